package app

import (
	"context"
	"sync"

	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// EventSource serves stored events (the store).
type EventSource interface {
	EventsAfter(ctx context.Context, turnID string, after int64, limit int) ([]turn.Event, error)
}

// Hub fans the events of running turns out to the UIs and keeps each
// running turn's events in memory, so a UI that (re)connects mid-turn can
// fetch everything after the last seq it has with no gap: the store may
// not have the last few milliseconds yet, the hub always does.
//
// To catch up without a gap or a duplicate a client subscribes first, then
// asks EventsAfter(last seq it has), and drops any event whose seq it has
// already seen.
//
// Beside the events, it tells UIs about turns whose state changed without
// an event (TurnChange): a dead process's turn marked interrupted.
type Hub struct {
	store EventSource

	mu       sync.Mutex
	live     map[string][]turn.Event // running turns' events so far
	subs     map[int]func(turn.Event)
	turnSubs map[int]func([]TurnChange)
	next     int
}

// TurnChange says that a turn's stored state changed with no event of its
// own: its process died (kill -9, a crash) and this process marked it
// interrupted. A UI that shows the turn or its session reloads them.
type TurnChange struct {
	TurnID    string          `json:"turn_id"`
	SessionID string          `json:"session_id"`
	State     store.TurnState `json:"state"`
}

// NewHub returns a Hub over the stored events.
func NewHub(store EventSource) *Hub {
	return &Hub{store: store, live: map[string][]turn.Event{}, subs: map[int]func(turn.Event){}, turnSubs: map[int]func([]TurnChange){}}
}

// Sink returns the sink for one running turn.
func (h *Hub) Sink(turnID string) turn.Sink {
	h.mu.Lock()
	h.live[turnID] = nil
	h.mu.Unlock()
	return turn.SinkFunc(func(e turn.Event) error {
		h.mu.Lock()
		h.live[e.TurnID] = append(h.live[e.TurnID], e)
		subs := make([]func(turn.Event), 0, len(h.subs))
		for _, s := range h.subs {
			subs = append(subs, s)
		}
		h.mu.Unlock()
		for _, s := range subs {
			s(e)
		}
		return nil
	})
}

// Ended forgets a turn's in-memory events once they are all stored.
func (h *Hub) Ended(turnID string) {
	h.mu.Lock()
	delete(h.live, turnID)
	h.mu.Unlock()
}

// Subscribe calls fn with every event of every running turn until the
// returned function is called. fn must not block.
func (h *Hub) Subscribe(fn func(turn.Event)) (unsubscribe func()) {
	return addListener(&h.mu, &h.next, h.subs, fn)
}

// SubscribeTurns calls fn with every batch of turn changes until the
// returned function is called. fn must not block.
func (h *Hub) SubscribeTurns(fn func([]TurnChange)) (unsubscribe func()) {
	return addListener(&h.mu, &h.next, h.turnSubs, fn)
}

// addListener files fn in listeners under the next free id, holding mu
// (which guards both next and listeners), and returns the function that
// removes it again.
func addListener[F any](mu *sync.Mutex, next *int, listeners map[int]F, fn F) (remove func()) {
	mu.Lock()
	id := *next
	*next++
	listeners[id] = fn
	mu.Unlock()
	return func() {
		mu.Lock()
		delete(listeners, id)
		mu.Unlock()
	}
}

// TurnsChanged tells every turn subscriber about changes.
func (h *Hub) TurnsChanged(changes []TurnChange) {
	if len(changes) == 0 {
		return
	}
	h.mu.Lock()
	subs := make([]func([]TurnChange), 0, len(h.turnSubs))
	for _, s := range h.turnSubs {
		subs = append(subs, s)
	}
	h.mu.Unlock()
	for _, s := range subs {
		s(changes)
	}
}

// EventsAfter returns a turn's events with seq > after: from memory while
// the turn runs, else from the store.
func (h *Hub) EventsAfter(ctx context.Context, turnID string, after int64) ([]turn.Event, error) {
	h.mu.Lock()
	evs, running := h.live[turnID]
	if running {
		var out []turn.Event
		for _, e := range evs {
			if e.Seq > after {
				out = append(out, e)
			}
		}
		h.mu.Unlock()
		return out, nil
	}
	h.mu.Unlock()
	return h.store.EventsAfter(ctx, turnID, after, 0)
}

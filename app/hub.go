package app

import (
	"context"
	"slices"
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

	mu   sync.Mutex
	live map[string]*liveEvents // running turns' events so far
	// subs is replaced on every change, never changed in place, so an
	// event reaches the subscribers of the moment without a copy of them.
	subs     []subscriber
	turnSubs map[int]func([]TurnChange)
	next     int
}

type subscriber struct {
	id int
	fn func(turn.Event)
}

// liveEvents is one running turn's events, in blocks of liveBlock once there
// are that many: a long answer's tens of thousands of tokens are appended
// without the whole list being copied again each time it grows.
type liveEvents struct {
	blocks [][]turn.Event
}

const liveBlock = 1024

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
	return &Hub{store: store, live: map[string]*liveEvents{}, turnSubs: map[int]func([]TurnChange){}}
}

// Sink returns the sink for one running turn.
func (h *Hub) Sink(turnID string) turn.Sink {
	live := &liveEvents{}
	h.mu.Lock()
	h.live[turnID] = live
	h.mu.Unlock()
	return turn.SinkFunc(func(e turn.Event) error {
		h.mu.Lock()
		live.add(e)
		subs := h.subs
		h.mu.Unlock()
		for _, s := range subs {
			s.fn(e)
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
	h.mu.Lock()
	id := h.next
	h.next++
	h.subs = append(slices.Clip(h.subs), subscriber{id, fn})
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		h.subs = slices.DeleteFunc(slices.Clone(h.subs), func(s subscriber) bool { return s.id == id })
		h.mu.Unlock()
	}
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
	live, running := h.live[turnID]
	if running {
		out := live.after(after)
		h.mu.Unlock()
		return out, nil
	}
	h.mu.Unlock()
	return h.store.EventsAfter(ctx, turnID, after, 0)
}

func (l *liveEvents) add(e turn.Event) {
	n := len(l.blocks)
	if n == 0 || len(l.blocks[n-1]) == liveBlock {
		var b []turn.Event // the first grows as a slice does: most turns are short
		if n > 0 {
			b = make([]turn.Event, 0, liveBlock)
		}
		l.blocks = append(l.blocks, b)
		n++
	}
	l.blocks[n-1] = append(l.blocks[n-1], e)
}

// after returns the events with seq > after, which are the tail: the
// emitter delivers them in seq order.
func (l *liveEvents) after(after int64) []turn.Event {
	var out []turn.Event
	for _, b := range l.blocks {
		if len(b) == 0 || b[len(b)-1].Seq <= after {
			continue
		}
		for _, e := range b {
			if e.Seq > after {
				out = append(out, e)
			}
		}
	}
	return out
}

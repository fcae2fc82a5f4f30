package app

import (
	"context"
	"slices"
	"sync"

	"github.com/agentdeck/agentdeck/backend/turn"
)

// EventSource serves stored events (the store).
type EventSource interface {
	EventsAfter(ctx context.Context, turnID string, after int64, limit int) ([]turn.Event, error)
}

// Hub is where the events of running turns come in: it keeps each running
// turn's events in memory, so a UI that (re)connects mid-turn can fetch
// everything after the last seq it has with no gap (the store may not have
// the last few milliseconds yet, the hub always does), and hands every
// event to its in-process subscribers. The Service's one subscriber is the
// Coalescer whose batches go out on the Bus: UIs get events from the bus,
// never from the hub.
//
// To catch up without a gap or a duplicate a client subscribes first, then
// asks EventsAfter(last seq it has), and drops any event whose seq it has
// already seen.
type Hub struct {
	store EventSource

	mu   sync.Mutex
	live map[string]*liveEvents // running turns' events so far
	// subs is replaced on every change, never changed in place, so an
	// event reaches the subscribers of the moment without a copy of them.
	subs []subscriber
	next int
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

// NewHub returns a Hub over the stored events.
func NewHub(store EventSource) *Hub {
	return &Hub{store: store, live: map[string]*liveEvents{}}
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

// Subscribe calls fn with every event of every running turn, on the
// turn's goroutine, until the returned function is called. fn must not
// block. It is for code in this process (the bus's Coalescer, tests);
// a UI subscribes to the Bus.
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

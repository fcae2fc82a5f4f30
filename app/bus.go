package app

import (
	"slices"
	"sync"
)

// The bus: everything the backend pushes to a UI, of every kind, goes out
// as one tagged message, an Envelope {"kind": ..., "data": ...}. The
// window (desktop.go) and the browser mode (serve.go) each subscribe once
// and forward every envelope as it is: one Wails event, one stream of
// server-sent events.

// MessageKind is the tag of a message on the bus: the envelope's "kind",
// by which a UI tells its payloads apart. The kinds are listed here and
// nowhere else in Go; the frontend's lib/bus.ts names the same set (a
// test holds the two together).
type MessageKind string

// The kinds, each with its payload type.
const (
	KindEvents       MessageKind = "events"        // EventBatch: the live events of running turns
	KindApproval     MessageKind = "approval"      // PendingApproval: a tool call waits for the person
	KindTurnsChanged MessageKind = "turns_changed" // TurnsChanged: turns whose state changed without an event
	KindEvalProgress MessageKind = "eval_progress" // EvalProgress: an evaluation run as it goes
	KindResync       MessageKind = "resync"        // Resync: this subscriber missed messages
	KindTraces       MessageKind = "traces"        // TracesStatus: the OpenTelemetry export's state changed
)

// Message is a payload of the bus. Each payload type says its kind, so a
// payload cannot go out under another kind's tag.
type Message interface {
	Kind() MessageKind
}

// Envelope is a message as a UI receives it.
type Envelope struct {
	Kind MessageKind `json:"kind"`
	Data Message     `json:"data"`
}

// Resync tells a subscriber that it fell behind and messages it had not
// taken were dropped (see Bus): what it shows may be stale, so it fetches
// it again (a running turn's events after the last seq it has).
type Resync struct{}

// Kind implements Message.
func (Resync) Kind() MessageKind { return KindResync }

// Bus fans the messages for the UIs out to their subscribers, in process.
// Rules:
//
//   - Publish never blocks and never waits for a subscriber: each
//     subscriber has its own queue, which its transport drains at its own
//     pace. A slow UI never slows a turn.
//   - Every subscriber gets the messages in the same order, the order in
//     which Publish was called; what one goroutine publishes arrives in
//     the order it published it.
//   - A subscriber gets the messages published from its Subscribe to its
//     Close, none from before.
//   - A queue holds at most its subscriber's limit. A subscriber that
//     falls that far behind loses what it had not taken: its queue is
//     replaced by one Resync, and what follows is queued after it. Memory
//     for a stuck UI stays bounded, and the UI learns to catch up.
//   - The bus starts no goroutine. A transport drains its Subscription on
//     its own goroutine (Pump, or Ready and Drain in its own loop) and
//     closes it when it is done.
type Bus struct {
	mu   sync.Mutex
	subs []*Subscription
}

// uiQueue is how far a UI's subscription may fall behind before it is
// told to resync: 1,024 messages, each a batch of at most 16 ms of a
// turn's events, or one approval, turn change or progress.
const uiQueue = 1024

// NewBus returns a bus with no subscribers.
func NewBus() *Bus { return &Bus{} }

// Publish hands m to every subscriber's queue.
func (b *Bus) Publish(m Message) {
	env := Envelope{Kind: m.Kind(), Data: m}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.subs {
		s.add(env)
	}
}

// Subscribe adds a subscriber whose queue holds at most limit messages
// (at least 2: a Resync and what follows it).
func (b *Bus) Subscribe(limit int) *Subscription {
	s := &Subscription{bus: b, limit: max(limit, 2), ready: make(chan struct{}, 1), done: make(chan struct{})}
	b.mu.Lock()
	b.subs = append(b.subs, s)
	b.mu.Unlock()
	return s
}

// Subscription is one subscriber's queue. Its fields are guarded by the
// bus's mutex.
type Subscription struct {
	bus    *Bus
	limit  int
	queue  []Envelope
	ready  chan struct{} // has a token when the queue may have messages
	done   chan struct{} // closed by Close
	closed bool
}

// add queues env. Call with the bus's mutex held.
func (s *Subscription) add(env Envelope) {
	if len(s.queue) >= s.limit {
		clear(s.queue) // let the dropped payloads go
		s.queue = append(s.queue[:0], Envelope{Kind: KindResync, Data: Resync{}})
	}
	s.queue = append(s.queue, env)
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

// Ready is signalled when messages may be waiting: then call Drain.
func (s *Subscription) Ready() <-chan struct{} { return s.ready }

// Done is closed once Close is called.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Drain takes every message waiting, oldest first.
func (s *Subscription) Drain() []Envelope {
	s.bus.mu.Lock()
	defer s.bus.mu.Unlock()
	out := s.queue
	s.queue = nil
	return out
}

// Pump hands each message to fn, in order, until Close; fn runs on the
// caller's goroutine. Messages still waiting at Close are dropped.
func (s *Subscription) Pump(fn func(Envelope)) {
	for {
		select {
		case <-s.done:
			return
		case <-s.ready:
			for _, env := range s.Drain() {
				fn(env)
			}
		}
	}
}

// Close ends the subscription: nothing more is queued, and Pump returns.
// Closing twice is harmless.
func (s *Subscription) Close() {
	b := s.bus
	b.mu.Lock()
	defer b.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	s.queue = nil
	b.subs = slices.DeleteFunc(b.subs, func(x *Subscription) bool { return x == s })
	close(s.done)
}

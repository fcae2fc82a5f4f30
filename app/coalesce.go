package app

import (
	"sync"
	"time"

	"github.com/agentdeck/agentdeck/backend/turn"
)

// Delivered is an event as the UI receives it. Consecutive tokens (or
// reasoning events) of one turn and stage are merged into one: its Seq is the last merged event's
// and FirstSeq the first's, so the UI can still check that no seq is
// missing. For any other event FirstSeq equals Seq.
type Delivered struct {
	turn.Event
	FirstSeq int64 `json:"first_seq"`
}

// EventBatch is the bus's message of live events: what a Coalescer hands
// on, never empty.
type EventBatch []Delivered

// Kind implements Message.
func (EventBatch) Kind() MessageKind { return KindEvents }

// eventBatches is the Coalescer that publishes its batches on bus: the
// one every UI's events go through.
func eventBatches(bus *Bus) *Coalescer {
	return NewCoalescer(func(batch []Delivered) { bus.Publish(EventBatch(batch)) }, 16*time.Millisecond)
}

// Coalescer batches events for a UI whose transport has no back-pressure
// (Wails' EventsEmit runs one JavaScript evaluation per call). Rules:
//
//   - A token is held for at most Interval (16 ms) and merged with the
//     tokens that follow it in the same turn and stage; reasoning events
//     the same way, with reasoning.
//   - Any other event flushes at once, after the held tokens, so the order
//     is never changed.
//   - Batches are handed to Out one at a time, in order.
//
// Memory while the UI is slow is the text of the held tokens, not one
// object per token.
type Coalescer struct {
	Out      func([]Delivered)
	Interval time.Duration

	mu      sync.Mutex
	pending []Delivered
	text    []byte // the text of the last pending token run
	timer   *time.Timer

	flushMu sync.Mutex
}

// NewCoalescer returns a Coalescer that hands batches to out.
func NewCoalescer(out func([]Delivered), interval time.Duration) *Coalescer {
	if interval <= 0 {
		interval = 16 * time.Millisecond
	}
	return &Coalescer{Out: out, Interval: interval}
}

// Emit implements turn.Sink.
func (c *Coalescer) Emit(e turn.Event) error {
	c.mu.Lock()
	if turn.Streamed(e.Type) {
		// Typed for a live event, so nothing is decoded; the run's data is
		// encoded once, when it is sealed.
		text := e.StreamedText()
		if n := len(c.pending); n > 0 && c.pending[n-1].Type == e.Type && c.pending[n-1].TurnID == e.TurnID && c.pending[n-1].StageID == e.StageID {
			c.text = append(c.text, text...)
			c.pending[n-1].Seq = e.Seq
			c.pending[n-1].At = e.At
		} else {
			c.sealText()
			c.text = append(c.text[:0], text...)
			c.pending = append(c.pending, Delivered{Event: e, FirstSeq: e.Seq})
		}
		if c.timer == nil {
			c.timer = time.AfterFunc(c.Interval, c.Flush)
		}
		c.mu.Unlock()
		return nil
	}
	c.sealText()
	c.pending = append(c.pending, Delivered{Event: e, FirstSeq: e.Seq})
	c.mu.Unlock()
	c.Flush()
	return nil
}

// sealText writes the merged text into the last pending token or
// reasoning event. Call with mu held.
func (c *Coalescer) sealText() {
	if n := len(c.pending); n > 0 && turn.Streamed(c.pending[n-1].Type) {
		c.pending[n-1].SetStreamedText(string(c.text))
	}
	c.text = c.text[:0]
}

// Flush hands everything held to Out now.
func (c *Coalescer) Flush() {
	c.flushMu.Lock()
	defer c.flushMu.Unlock()
	c.mu.Lock()
	c.sealText()
	batch := c.pending
	c.pending = nil
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	c.mu.Unlock()
	if len(batch) > 0 {
		c.Out(batch)
	}
}

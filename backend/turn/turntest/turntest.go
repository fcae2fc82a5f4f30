// Package turntest helps tests of anything that emits or receives turn
// events, in the manner of net/http/httptest: a Recorder sink that keeps
// every event and lets a test wait for the one it needs, Check, the
// invariants every turn keeps, and ReadBack, an event as the database gives
// it back.
//
// Rules for tests built on it: no sleeps and no polling against a clock.
// A test waits for the event it needs (Recorder.Until and its shorthands);
// a wait gives up after WaitTimeout only to report a hang, never to time
// anything.
package turntest

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/turn"
)

// WaitTimeout bounds one wait for an event. It is generous on purpose: it
// catches a hang on a loaded machine, it does not measure speed.
const WaitTimeout = 2 * time.Minute

// Recorder is a turn.Sink that keeps every event it is given, safe for
// concurrent use. The zero value is ready.
type Recorder struct {
	mu      sync.Mutex
	events  []turn.Event
	changed chan struct{} // closed and replaced at every event
	// OnEmit, if set, is called with each event after it is kept.
	OnEmit func(turn.Event)
}

// Emit implements turn.Sink.
func (r *Recorder) Emit(e turn.Event) error {
	r.mu.Lock()
	r.events = append(r.events, e)
	if r.changed != nil {
		close(r.changed)
	}
	r.changed = make(chan struct{})
	on := r.OnEmit
	r.mu.Unlock()
	if on != nil {
		on(e)
	}
	return nil
}

// Events returns a copy of every event so far, in the order received.
func (r *Recorder) Events() []turn.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]turn.Event(nil), r.events...)
}

// Of returns the events of one type.
func (r *Recorder) Of(typ turn.EventType) []turn.Event {
	var out []turn.Event
	for _, e := range r.Events() {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// Turn returns the events of one turn.
func (r *Recorder) Turn(turnID string) []turn.Event {
	var out []turn.Event
	for _, e := range r.Events() {
		if e.TurnID == turnID {
			out = append(out, e)
		}
	}
	return out
}

// Types returns the type of every event, in order.
func (r *Recorder) Types() []turn.EventType {
	evs := r.Events()
	out := make([]turn.EventType, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

// Until waits until cond holds for the events so far and returns them.
// what says what is awaited, for the failure message.
func (r *Recorder) Until(t testing.TB, what string, cond func([]turn.Event) bool) []turn.Event {
	t.Helper()
	timeout := time.After(WaitTimeout)
	for {
		r.mu.Lock()
		evs := append([]turn.Event(nil), r.events...)
		if r.changed == nil {
			r.changed = make(chan struct{})
		}
		ch := r.changed
		r.mu.Unlock()
		if cond(evs) {
			return evs
		}
		select {
		case <-ch:
		case <-timeout:
			t.Fatalf("%s never happened (%d events so far)", what, len(evs))
			return nil
		}
	}
}

// UntilEnded waits for turn_completed of turnID ("" for any turn) and
// returns that turn's events.
func (r *Recorder) UntilEnded(t testing.TB, turnID string) []turn.Event {
	t.Helper()
	evs := r.Until(t, "turn_completed of turn "+turnID, func(evs []turn.Event) bool {
		for _, e := range evs {
			if e.Type == turn.EventTurnCompleted && (turnID == "" || e.TurnID == turnID) {
				return true
			}
		}
		return false
	})
	if turnID == "" {
		return evs
	}
	var out []turn.Event
	for _, e := range evs {
		if e.TurnID == turnID {
			out = append(out, e)
		}
	}
	return out
}

// UntilCount waits until turnID ("" for any) has at least n events.
func (r *Recorder) UntilCount(t testing.TB, turnID string, n int) []turn.Event {
	t.Helper()
	return r.Until(t, "the first events", func(evs []turn.Event) bool {
		c := 0
		for _, e := range evs {
			if turnID == "" || e.TurnID == turnID {
				c++
			}
		}
		return c >= n
	})
}

// Check asserts the invariants every whole turn keeps: seq strictly
// increasing from 1, one session and turn, the envelope filled in with the
// phase and checkpoint of its type, exactly one terminal event right before
// turn_completed, which is last, and every tool result, error or event a
// tool reported pointing at an earlier tool call.
func Check(t testing.TB, events []turn.Event) {
	t.Helper()
	if len(events) < 2 {
		t.Fatalf("a turn has at least a terminal event and turn_completed; got %d events", len(events))
	}
	calls := map[string]bool{}
	terminals := 0
	first := events[0]
	for i, e := range events {
		if e.Seq != int64(i+1) {
			t.Fatalf("event %d (%s) has seq %d, want %d", i, e.Type, e.Seq, i+1)
		}
		if e.ID == "" || e.TurnID == "" || e.TurnID != first.TurnID || e.SessionID != first.SessionID || e.At.IsZero() || e.Phase == "" || !json.Valid(e.Data) {
			t.Fatalf("event %d has an incomplete or foreign envelope: %+v", i, e)
		}
		if e.Phase != turn.PhaseOf(e.Type) || e.Checkpoint != turn.IsCheckpoint(e.Type) {
			t.Fatalf("event %d (%s) has phase %q checkpoint %v", i, e.Type, e.Phase, e.Checkpoint)
		}
		if e.Type == turn.EventToolCall {
			calls[e.ID] = true
		} else if e.ParentID != "" && !calls[e.ParentID] {
			t.Fatalf("event %d (%s) has parent %q, not an earlier tool_call", i, e.Type, e.ParentID)
		}
		if (e.Type == turn.EventToolResult || e.Type == turn.EventToolError) && e.ParentID == "" {
			t.Fatalf("event %d (%s) has no parent tool_call", i, e.Type)
		}
		if turn.IsTerminal(e.Type) {
			terminals++
			if i != len(events)-2 {
				t.Fatalf("terminal event %s at %d of %d: it must come right before turn_completed", e.Type, i, len(events))
			}
		}
	}
	if terminals != 1 {
		t.Fatalf("%d terminal events, want exactly 1", terminals)
	}
	if last := events[len(events)-1]; last.Type != turn.EventTurnCompleted {
		t.Fatalf("last event is %s, want turn_completed", last.Type)
	}
}

// Data decodes an event's payload, failing the test if it does not fit T.
func Data[T any](t testing.TB, e turn.Event) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(e.Data, &v); err != nil {
		t.Fatalf("%s data %s: %v", e.Type, e.Data, err)
	}
	return v
}

// ReadBack returns e as it comes back from its JSON, as from the database
// or a file: without the typed text a live event carries beside its data.
func ReadBack(t testing.TB, e turn.Event) turn.Event {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var back turn.Event
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return back
}

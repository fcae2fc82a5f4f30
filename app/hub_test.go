package app

import (
	"context"
	"fmt"
	"testing"

	"github.com/agentdeck/agentdeck/backend/turn"
)

// storedEvents is an EventSource that says where an answer came from.
type storedEvents struct{ asked []string }

func (s *storedEvents) EventsAfter(_ context.Context, turnID string, after int64, _ int) ([]turn.Event, error) {
	s.asked = append(s.asked, fmt.Sprintf("%s after %d", turnID, after))
	return nil, nil
}

// While a turn runs, the hub answers EventsAfter from memory with every
// event after the seq asked for, wherever it falls among the blocks the
// events are kept in; once the turn has ended, the store answers.
func TestHubEventsAfterARunningTurn(t *testing.T) {
	t.Parallel()
	const n = 2*liveBlock + 10
	store := &storedEvents{}
	h := NewHub(store)
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: "s", TurnID: "t", Sinks: []turn.Sink{h.Sink("t")}})
	for i := 0; i < n; i++ {
		em.Emit(turn.Draft{Data: turn.TokenData{Text: "x"}})
	}
	for _, after := range []int64{0, 1, liveBlock - 1, liveBlock, liveBlock + 1, 2 * liveBlock, n - 1, n} {
		t.Run(fmt.Sprint("after ", after), func(t *testing.T) {
			evs, err := h.EventsAfter(context.Background(), "t", after)
			if err != nil {
				t.Fatal(err)
			}
			if len(evs) != int(n-after) {
				t.Fatalf("%d events, want %d", len(evs), n-after)
			}
			for i, e := range evs {
				if want := after + 1 + int64(i); e.Seq != want {
					t.Fatalf("event %d has seq %d, want %d", i, e.Seq, want)
				}
			}
		})
	}
	if len(store.asked) != 0 {
		t.Fatalf("the store was asked while the turn ran: %v", store.asked)
	}
	h.Ended("t")
	if _, err := h.EventsAfter(context.Background(), "t", 7); err != nil {
		t.Fatal(err)
	}
	if want := []string{"t after 7"}; fmt.Sprint(store.asked) != fmt.Sprint(want) {
		t.Fatalf("store asked %v, want %v", store.asked, want)
	}
}

// A subscriber gets every event from its subscription to its unsubscribe,
// and its leaving changes nothing for the others.
func TestHubSubscribers(t *testing.T) {
	t.Parallel()
	h := NewHub(&storedEvents{})
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: "s", TurnID: "t", Sinks: []turn.Sink{h.Sink("t")}})
	emit := func() { em.Emit(turn.Draft{Data: turn.TokenData{Text: "x"}}) }
	var a, b, c []int64
	emit() // seq 1: before anyone listens
	unsubA := h.Subscribe(func(e turn.Event) { a = append(a, e.Seq) })
	unsubB := h.Subscribe(func(e turn.Event) { b = append(b, e.Seq) })
	emit()
	unsubA()
	emit()
	unsubC := h.Subscribe(func(e turn.Event) { c = append(c, e.Seq) })
	emit()
	unsubB()
	unsubC()
	emit()
	for _, tt := range []struct {
		name      string
		got, want []int64
	}{{"a", a, []int64{2}}, {"b", b, []int64{2, 3, 4}}, {"c", c, []int64{4}}} {
		if fmt.Sprint(tt.got) != fmt.Sprint(tt.want) {
			t.Errorf("subscriber %s got seqs %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

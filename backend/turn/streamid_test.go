package turn

import (
	"testing"

	"github.com/google/uuid"
)

// TestStreamedEventsHaveDerivedIDs: the Emitter gives a token or reasoning
// event the id StreamID(turn, seq), which the store derives instead of
// keeping, and every other event a UUID; all of them differ.
func TestStreamedEventsHaveDerivedIDs(t *testing.T) {
	t.Parallel()
	var got []Event
	em := NewEmitter(EmitterConfig{SessionID: "s", TurnID: "turn-1", FirstSeq: 41, Sinks: []Sink{SinkFunc(func(e Event) error {
		got = append(got, e)
		return nil
	})}})
	em.Emit(Draft{Data: ThinkStartData{}})
	em.Emit(Draft{Data: TokenData{Text: "a"}})
	em.Emit(Draft{Data: ReasoningData{Text: "b"}})
	em.Emit(Draft{Data: FinalAnswerData{Text: "ab"}})
	seen := map[string]bool{}
	for _, e := range got {
		if seen[e.ID] {
			t.Errorf("id %s twice", e.ID)
		}
		seen[e.ID] = true
		_, err := uuid.Parse(e.ID)
		switch {
		case Streamed(e.Type) && e.ID != StreamID("turn-1", e.Seq):
			t.Errorf("%s seq %d has id %s, want %s", e.Type, e.Seq, e.ID, StreamID("turn-1", e.Seq))
		case !Streamed(e.Type) && err != nil:
			t.Errorf("%s has id %s, want a UUID", e.Type, e.ID)
		}
	}
	if got[1].ID != "turn-1.43" {
		t.Errorf("the token's id is %s", got[1].ID)
	}
}

package turntest_test

import (
	"context"
	"testing"

	"go.uber.org/goleak"

	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// A recorder waits for an event another goroutine emits, and a whole turn
// passes Check.
func TestRecorderWaitsAndTurnsCheck(t *testing.T) {
	rec := &turntest.Recorder{}
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: "s", TurnID: "t", Sinks: []turn.Sink{rec}})
	done := make(chan struct{})
	go func() {
		defer close(done)
		turn.RunTurn(context.Background(), em, func(context.Context) turn.Result {
			call := em.Emit(turn.Draft{Data: turn.ToolCallData{CallID: "c", Name: "x", Args: []byte(`{}`)}})
			em.Emit(turn.Draft{ParentID: call.ID, Data: turn.ToolResultData{CallID: "c", Name: "x"}})
			return turn.Result{OK: true, Outcome: turn.OutcomeSucceeded, FinalText: "done"}
		})
	}()
	evs := rec.UntilEnded(t, "t")
	<-done
	turntest.Check(t, evs)
	if got := turntest.Data[turn.FinalAnswerData](t, rec.Of(turn.EventFinalAnswer)[0]).Text; got != "done" {
		t.Fatalf("final answer %q", got)
	}
}

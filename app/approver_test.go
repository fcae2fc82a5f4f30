package app

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Two turns wait on the same call id (a server that numbers its calls
// call_0, call_1, …; two columns of one model side by side): each answer
// reaches its own turn, and an answer that names no turn is refused
// rather than given to either.
func TestApprovalsOfTwoTurnsWithOneCallID(t *testing.T) {
	bus := NewBus()
	sub := bus.Subscribe(16)
	a := newApprovals(bus, nil, slog.New(slog.DiscardHandler))
	type got struct {
		turn string
		ans  turn.Answer
	}
	out := make(chan got, 2)
	for _, id := range []string{"turn-a", "turn-b"} {
		go func() {
			ans, _ := a.Approve(context.Background(), agent.ApprovalRequest{GuardCall: agent.GuardCall{TurnID: id, CallID: "call_0", Tool: "write_file"}})
			out <- got{id, ans}
		}()
	}
	for seen := 0; seen < 2; {
		<-sub.Ready()
		seen += len(sub.Drain())
	}
	if err := a.answer("", "call_0", turn.AllowOnce); err == nil || !strings.Contains(err.Error(), "say which turn") {
		t.Fatalf("an answer naming no turn, with two waiting: %v", err)
	}
	if err := a.answer("turn-b", "call_0", turn.Deny); err != nil {
		t.Fatal(err)
	}
	if g := <-out; g.turn != "turn-b" || g.ans != turn.Deny {
		t.Fatalf("the answer for turn-b reached %+v", g)
	}
	// One left: now the call id alone reaches it.
	if err := a.answer("", "call_0", turn.AllowOnce); err != nil {
		t.Fatal(err)
	}
	if g := <-out; g.turn != "turn-a" || g.ans != turn.AllowOnce {
		t.Fatalf("the answer for turn-a reached %+v", g)
	}
}

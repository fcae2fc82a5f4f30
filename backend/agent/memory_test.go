package agent_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/recall"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

type fakeMemory struct{ query string }

func (f *fakeMemory) SearchMemory(_ context.Context, q string, limit int) ([]turn.Memory, error) {
	f.query = q
	return []turn.Memory{
		{SessionID: "s9", SessionTitle: "Q3 budget", At: time.Date(2026, 10, 2, 9, 0, 0, 0, time.UTC), Excerpt: "the travel budget was 12,400 EUR"},
	}, nil
}

func TestRecallReturnsExcerpts(t *testing.T) {
	h := newHarness(t)
	mem := &fakeMemory{}
	h.addTools(t, recall.New(mem))
	h.srv.Enqueue(toolCall("c1", "recall", `{"query":"travel budget"}`), text("It was 12,400 EUR."))
	h.turn(t, context.Background(), "what was the travel budget?")
	if mem.query != "travel budget" {
		t.Fatalf("searched %q", mem.query)
	}
	ev := h.rec.Of(turn.EventMemoryRecalled)
	if len(ev) != 1 || turntest.Data[turn.MemoryData](t, ev[0]).Count != 1 {
		t.Fatalf("memory_recalled %+v", ev)
	}
	out := turntest.Data[turn.ToolResultData](t, h.rec.Of(turn.EventToolResult)[0]).Output
	if !strings.Contains(out, `2026-10-02, session "Q3 budget": the travel budget was 12,400 EUR`) {
		t.Fatalf("excerpt %q", out)
	}
}

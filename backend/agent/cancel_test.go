package agent_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

// Stop in the middle of a stream: the server sees the disconnect, the
// partial text is kept in the transcript and the result, and the turn ends
// with cancelled.
func TestStopMidStream(t *testing.T) {
	h := newHarness(t)
	h.srv.Enqueue(llmtest.Reply{Chunks: llmtest.Tokens(5000), Delay: time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	var stoppedAt time.Time
	n := 0
	h.em = turn.NewEmitter(turn.EmitterConfig{SessionID: "sess-1", TurnID: "turn-1", Sinks: []turn.Sink{h.rec, turn.SinkFunc(func(e turn.Event) error {
		if e.Type == turn.EventToken {
			if n++; n == 20 {
				stoppedAt = time.Now()
				cancel()
			}
		}
		return nil
	})}})
	res := h.turn(t, ctx, "long answer please")
	elapsed := time.Since(stoppedAt)

	if !res.Cancelled || res.Outcome != turn.OutcomeCancelled || res.Termination.Kind != turn.TermCancelled || res.OK {
		t.Fatalf("result %+v", res)
	}
	if !strings.HasPrefix(res.FinalText, "tok0 tok1 ") {
		t.Fatalf("partial text lost: %q", res.FinalText)
	}
	last := res.Messages[len(res.Messages)-1]
	if last.Role != "assistant" || last.Content != res.FinalText {
		t.Fatalf("the partial answer must be the last message of the transcript: %+v", last)
	}
	c := h.rec.Of(turn.EventCancelled)
	if turntest.Data[turn.CancelledData](t, c[0]).PartialText != res.FinalText {
		t.Fatal("cancelled event does not carry the partial text")
	}
	if _, ok := h.srv.WaitDisconnect(2 * time.Second); !ok {
		t.Fatal("the model server did not see the disconnect")
	}
	t.Logf("turn ended %v after Stop", elapsed)
}

// Stop during a tool that ignores cancellation: the turn ends without
// waiting for the tool, and the transcript stays valid (every tool call
// answered).
func TestStopMidSlowTool(t *testing.T) {
	started := make(chan string, 1)
	release := make(chan struct{})
	defer close(release)
	h := newHarness(t, blockingTool("slow", started, release))
	h.srv.Enqueue(llmtest.Reply{Chunks: llmtest.Stream(llmtest.Text("Let me check. ", 2)[:2], llmtest.WithFinish(llmtest.ToolCallChunks(0, "c1", "slow", `{}`, 2), "tool_calls"))})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		waitFor(t, started, "the tool")
		cancel()
	}()
	res := h.turn(t, ctx, "check")
	// The tool is still blocked on release: the turn did not wait for it.
	if !res.Cancelled || res.FinalText != "Let me check. " {
		t.Fatalf("result %+v", res)
	}
	last := res.Messages[len(res.Messages)-1]
	if last.Role != "tool" || last.ToolCallID != "c1" || !strings.Contains(last.Content, "cancelled") {
		t.Fatalf("the tool call must be answered as cancelled: %+v", last)
	}
	if e := h.rec.Of(turn.EventToolError); len(e) != 1 {
		t.Fatalf("want the cancelled call reported, got %d tool errors", len(e))
	}
}

package agent_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

// longHistory is an earlier conversation with tool calls and big results.
func longHistory() []llm.Message {
	var h []llm.Message
	for i := 0; i < 6; i++ {
		id := fmt.Sprintf("old%d", i)
		h = append(h,
			llm.Message{Role: llm.RoleUser, Content: fmt.Sprintf("question %d %s", i, strings.Repeat("context ", 100))},
			llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: id, Name: "echo", Arguments: `{"text":"x"}`}}},
			llm.Message{Role: llm.RoleTool, ToolCallID: id, Name: "echo", Content: strings.Repeat("result ", 200)},
			llm.Message{Role: llm.RoleAssistant, Content: fmt.Sprintf("answer %d", i)},
		)
	}
	return h
}

func isSummaryRequest(r llmtest.Request) bool {
	return len(r.Messages) > 0 && strings.Contains(r.Messages[0].Content, "You compress conversations")
}

// checkToolPairs asserts every tool message follows the assistant message
// that called it, with nothing else between.
func checkToolPairs(t *testing.T, msgs []llmtest.Message) {
	t.Helper()
	for i, m := range msgs {
		if m.Role != "tool" {
			continue
		}
		j := i - 1
		for j >= 0 && msgs[j].Role == "tool" {
			j--
		}
		found := false
		if j >= 0 {
			for _, tc := range msgs[j].ToolCalls {
				found = found || tc.ID == m.ToolCallID
			}
		}
		if !found {
			t.Fatalf("message %d: tool result %s is separated from its call", i, m.ToolCallID)
		}
	}
}

func runCompressed(t *testing.T, summary llmtest.Reply) (*harness, turn.Result) {
	h := newHarness(t, echoTool())
	h.ag.ContextWindow = 2000
	h.srv.Respond(func(r llmtest.Request) llmtest.Reply {
		if isSummaryRequest(r) {
			return summary
		}
		return text("Here is the answer to the current question.")
	})
	res := turn.RunTurn(context.Background(), h.em, func(ctx context.Context) turn.Result {
		return h.ag.Run(ctx, h.em, agent.Input{History: longHistory(), User: "CURRENT: what was the total?"})
	})
	turntest.Check(t, h.rec.Events())
	return h, res
}

func TestCompressionSummarizesAndKeepsTheRequest(t *testing.T) {
	h, res := runCompressed(t, text("- six questions answered with echo"))
	ev := h.rec.Of(turn.EventContextCompressed)
	if len(ev) != 1 {
		t.Fatalf("%d context_compressed events", len(ev))
	}
	d := turntest.Data[turn.CompressedData](t, ev[0])
	if d.AfterTokens >= d.BeforeTokens || d.AfterCount >= d.BeforeCount || d.AfterTokens > 1500 {
		t.Fatalf("compression did not shrink enough: %+v", d)
	}
	reqs := h.srv.Requests()
	main := reqs[len(reqs)-1]
	if isSummaryRequest(main) || !isSummaryRequest(reqs[0]) {
		t.Fatal("expected a summary call, then the real call")
	}
	msgs := main.Messages
	if msgs[0].Role != "system" || !strings.Contains(msgs[1].Content, "six questions answered") {
		t.Fatalf("the summary must follow the system prompt: %+v", msgs[:2])
	}
	if last := msgs[len(msgs)-1]; last.Content != "CURRENT: what was the total?" {
		t.Fatalf("the current request must be kept verbatim, got %q", last.Content)
	}
	checkToolPairs(t, msgs)
	if !res.OK {
		t.Fatalf("result %+v", res)
	}
}

func TestCompressionDropsOldestWhenSummaryFails(t *testing.T) {
	h, res := runCompressed(t, llmtest.ErrorReply(500, "server_error", "no"))
	if len(h.rec.Of(turn.EventContextCompressed)) != 1 || !res.OK {
		t.Fatalf("compression by dropping failed: %+v", res)
	}
	reqs := h.srv.Requests()
	msgs := reqs[len(reqs)-1].Messages
	if last := msgs[len(msgs)-1]; last.Content != "CURRENT: what was the total?" {
		t.Fatalf("current request lost: %q", last.Content)
	}
	if strings.Contains(msgs[1].Content, "question 0") {
		t.Fatal("the oldest messages were not dropped")
	}
	checkToolPairs(t, msgs)
}

func TestContextLengthErrorTriggersCompressionAndRetry(t *testing.T) {
	h := newHarness(t, echoTool())
	h.ag.ContextWindow = 1_000_000 // our estimate says it fits; the server disagrees
	h.srv.Enqueue(llmtest.ContextLengthExceeded(), text("- summary"), text("answered after compression"))
	res := turn.RunTurn(context.Background(), h.em, func(ctx context.Context) turn.Result {
		return h.ag.Run(ctx, h.em, agent.Input{History: longHistory(), User: "CURRENT"})
	})
	turntest.Check(t, h.rec.Events())
	if res.FinalText != "answered after compression" || len(h.rec.Of(turn.EventContextCompressed)) != 1 {
		t.Fatalf("result %+v", res)
	}
}

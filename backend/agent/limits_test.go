package agent_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
)

func TestLimits(t *testing.T) {
	tests := []struct {
		name      string
		limits    agent.Limits
		replies   []llmtest.Reply
		kind      agent.TerminationKind
		limit     int64
		used      int64
		concludes bool // a last call without tools
	}{
		{
			name:      "max steps",
			limits:    agent.Limits{MaxSteps: 2},
			replies:   []llmtest.Reply{toolCall("1", "echo", `{"text":"a"}`), toolCall("2", "echo", `{"text":"b"}`), text("best so far")},
			kind:      agent.TermMaxIterations,
			limit:     2,
			used:      2,
			concludes: true,
		},
		{
			name:      "max tool calls",
			limits:    agent.Limits{MaxToolCalls: 1},
			replies:   []llmtest.Reply{toolCall("1", "echo", `{"text":"a"}`), toolCall("2", "echo", `{"text":"b"}`), text("best so far")},
			kind:      agent.TermMaxToolCalls,
			limit:     1,
			used:      1,
			concludes: true,
		},
		{
			name:      "stall",
			replies:   []llmtest.Reply{toolCall("1", "echo", `{"text":"same"}`), toolCall("2", "echo", `{ "text" : "same" }`), toolCall("3", "echo", `{"text":"same"}`), text("best so far")},
			kind:      agent.TermStallDetected,
			concludes: true,
		},
		{
			name:    "token budget",
			limits:  agent.Limits{TokenBudget: 20},
			replies: []llmtest.Reply{withUsage(toolCall("1", "echo", `{"text":"a"}`), 15), withUsage(toolCall("2", "echo", `{"text":"b"}`), 15)},
			kind:    agent.TermBudgetExceeded,
			limit:   20,
			used:    30,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, echoTool())
			h.ag.Limits = tt.limits
			h.srv.Enqueue(tt.replies...)
			res := h.turn(t, context.Background(), "loop")
			term := res.Termination
			if term.Kind != tt.kind || term.Limit != tt.limit || term.Used != tt.used {
				t.Fatalf("termination %+v, want %s limit %d used %d", term, tt.kind, tt.limit, tt.used)
			}
			if !res.OK || res.Outcome != agent.OutcomeSucceeded {
				t.Fatalf("a reached limit is still ok: %+v", res)
			}
			reqs := h.srv.Requests()
			last := reqs[len(reqs)-1]
			if tt.concludes {
				if len(last.Tools) != 0 || res.FinalText != "best so far" {
					t.Fatalf("the concluding call must offer no tools (%v) and give the final text (%q)", last.Tools, res.FinalText)
				}
				if !strings.Contains(last.Messages[len(last.Messages)-1].Content, string(tt.kind)) {
					t.Fatalf("the concluding prompt should name the limit: %q", last.Messages[len(last.Messages)-1].Content)
				}
			} else if len(reqs) != len(tt.replies) {
				t.Fatalf("%d requests: a %s must end without a concluding call", len(reqs), tt.kind)
			}
			if tt.kind == agent.TermBudgetExceeded && !res.BudgetExhausted {
				t.Fatal("budget_exhausted not set")
			}
		})
	}
}

func TestStallIsCountedAcrossSteps(t *testing.T) {
	h := newHarness(t, echoTool())
	h.srv.Enqueue(toolCall("1", "echo", `{"text":"x"}`), toolCall("2", "echo", `{"text":"y"}`), toolCall("3", "echo", `{"text":"x"}`), text("fine"))
	res := h.turn(t, context.Background(), "go")
	if res.Termination.Kind != agent.TermNaturalCompletion {
		t.Fatalf("alternating calls are not a stall: %+v", res.Termination)
	}
}

func TestTimeoutEndsTheTurnAndKeepsPartialText(t *testing.T) {
	h := newHarness(t)
	h.ag.Limits.Timeout = 150 * time.Millisecond
	h.srv.Enqueue(llmtest.Reply{Chunks: llmtest.Tokens(10000), Delay: 2 * time.Millisecond})
	res := h.turn(t, context.Background(), "write a lot")
	if res.Termination.Kind != agent.TermTimeout || res.Termination.Limit != 150 {
		t.Fatalf("termination %+v", res.Termination)
	}
	if res.FinalText == "" || !res.OK {
		t.Fatalf("the partial text is the best answer: %+v", res)
	}
	if len(h.srv.Requests()) != 1 {
		t.Fatal("a timeout must not make a concluding call")
	}
}

func withUsage(r llmtest.Reply, total int) llmtest.Reply {
	r.Usage = &llmtest.Usage{PromptTokens: total - 5, CompletionTokens: 5, TotalTokens: total}
	return r
}

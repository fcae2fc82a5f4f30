package agent_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/turn"
)

func TestLimits(t *testing.T) {
	tests := []struct {
		name      string
		limits    turn.Limits
		replies   []llmtest.Reply
		kind      turn.TerminationKind
		limit     int64
		used      int64
		concludes bool   // a last call without tools
		final     string // the final text; "" fails the turn, keeping the limit
		exhausted bool   // budget_exhausted: stopped at the step ceiling
	}{
		{
			name:      "max steps",
			limits:    turn.Limits{MaxSteps: 2},
			replies:   []llmtest.Reply{toolCall("1", "echo", `{"text":"a"}`), toolCall("2", "echo", `{"text":"b"}`), text("best so far")},
			kind:      turn.TermMaxIterations,
			limit:     2,
			used:      2,
			concludes: true,
			final:     "best so far",
			exhausted: true,
		},
		{
			name:      "max steps with no concluding answer",
			limits:    turn.Limits{MaxSteps: 2},
			replies:   []llmtest.Reply{toolCall("1", "echo", `{"text":"a"}`), toolCall("2", "echo", `{"text":"b"}`), toolCall("3", "echo", `{"text":"c"}`)},
			kind:      turn.TermMaxIterations,
			limit:     2,
			used:      2,
			concludes: true,
			exhausted: true,
		},
		{
			name:      "max tool calls",
			limits:    turn.Limits{MaxToolCalls: 1},
			replies:   []llmtest.Reply{toolCall("1", "echo", `{"text":"a"}`), toolCall("2", "echo", `{"text":"b"}`), text("best so far")},
			kind:      turn.TermMaxToolCalls,
			limit:     1,
			used:      1,
			concludes: true,
			final:     "best so far",
		},
		{
			name:      "stall",
			replies:   []llmtest.Reply{toolCall("1", "echo", `{"text":"same"}`), toolCall("2", "echo", `{ "text" : "same" }`), toolCall("3", "echo", `{"text":"same"}`), text("best so far")},
			kind:      turn.TermStallDetected,
			concludes: true,
			final:     "best so far",
		},
		{
			name:    "token budget after an answer",
			limits:  turn.Limits{TokenBudget: 20},
			replies: []llmtest.Reply{withUsage(toolCall("1", "echo", `{"text":"a"}`), 15), withUsage(text("the answer"), 15)},
			kind:    turn.TermBudgetExceeded,
			limit:   20,
			used:    30,
			final:   "the answer",
		},
		{
			name:    "token budget before any answer",
			limits:  turn.Limits{TokenBudget: 20},
			replies: []llmtest.Reply{withUsage(toolCall("1", "echo", `{"text":"a"}`), 15), withUsage(toolCall("2", "echo", `{"text":"b"}`), 15)},
			kind:    turn.TermBudgetExceeded,
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
			if res.FinalText != tt.final {
				t.Fatalf("final text %q, want %q", res.FinalText, tt.final)
			}
			if res.BudgetExhausted != tt.exhausted {
				t.Fatalf("budget_exhausted %v, want %v (it means: stopped at the step ceiling)", res.BudgetExhausted, tt.exhausted)
			}
			if term.Concluded != (tt.concludes && tt.final != "") {
				t.Fatalf("concluded %v: it is set only when the concluding call answered", term.Concluded)
			}
			if tt.final != "" {
				if !res.OK || res.Outcome != turn.OutcomeSucceeded || res.Error != "" {
					t.Fatalf("a reached limit with an answer is still ok: %+v", res)
				}
			} else if res.OK || res.Outcome != turn.OutcomeFailed || !strings.Contains(res.Error, "before it gave any answer") {
				t.Fatalf("a limit with no answer at all fails, saying so: ok %v outcome %s error %q", res.OK, res.Outcome, res.Error)
			}
			if !strings.Contains(term.Describe(), "stopped") {
				t.Fatalf("Describe should say the run stopped: %q", term.Describe())
			}
			reqs := h.srv.Requests()
			last := reqs[len(reqs)-1]
			if tt.concludes {
				if len(last.Tools) != 0 {
					t.Fatalf("the concluding call must offer no tools (%v)", last.Tools)
				}
				if !strings.Contains(last.Messages[len(last.Messages)-1].Content, string(tt.kind)) {
					t.Fatalf("the concluding prompt should name the limit: %q", last.Messages[len(last.Messages)-1].Content)
				}
				if tt.used > 0 && int64(res.StepsUsed) != tt.used+1 && tt.kind == turn.TermMaxIterations {
					t.Fatalf("steps_used %d counts every call, the concluding one included (%d+1)", res.StepsUsed, tt.used)
				}
			} else if len(reqs) != len(tt.replies) {
				t.Fatalf("%d requests: a %s must end without a concluding call", len(reqs), tt.kind)
			}
			checkTranscriptAnswered(t, res.Messages)
		})
	}
}

// checkTranscriptAnswered asserts every tool call in the transcript has its
// tool message: the next turn sends the transcript back to the model.
func checkTranscriptAnswered(t *testing.T, msgs []llm.Message) {
	t.Helper()
	open := map[string]bool{}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			open[c.ID] = true
		}
		if m.Role == llm.RoleTool {
			delete(open, m.ToolCallID)
		}
	}
	if len(open) > 0 {
		t.Fatalf("tool calls left unanswered in the transcript: %v", open)
	}
}

func TestStallNamesTheRepeatedCall(t *testing.T) {
	h := newHarness(t, echoTool())
	h.srv.Enqueue(toolCall("1", "echo", `{"text":"same"}`), toolCall("2", "echo", `{"text":"same"}`), toolCall("3", "echo", `{"text":"same"}`), text("done"))
	res := h.turn(t, context.Background(), "loop")
	c := res.Termination.Call
	if res.Termination.Kind != turn.TermStallDetected || c == nil || c.Name != "echo" || c.Arguments != `{"text":"same"}` {
		t.Fatalf("the stall should name the repeated call: %+v", res.Termination)
	}
	if d := res.Termination.Describe(); !strings.Contains(d, "echo") || !strings.Contains(d, "3 times") {
		t.Fatalf("Describe: %q", d)
	}
}

func TestFinalTextIsTheRunsOwn(t *testing.T) {
	history := []llm.Message{{Role: llm.RoleUser, Content: "capital of France?"}, {Role: llm.RoleAssistant, Content: "The capital of France is Paris."}}
	t.Run("a failed call leaves no final text", func(t *testing.T) {
		h := newHarness(t)
		h.srv.Enqueue(llmtest.ErrorReply(500, "server_error", "boom"))
		res := h.turnWith(t, context.Background(), agent.Input{History: history, User: "and of Spain?"})
		if res.OK || res.FinalText != "" {
			t.Fatalf("a failed turn must not take the previous answer as its own: ok %v final %q", res.OK, res.FinalText)
		}
	})
	t.Run("a blank reply is no answer", func(t *testing.T) {
		h := newHarness(t)
		h.srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("  \n\t ", 2)})
		res := h.turnWith(t, context.Background(), agent.Input{History: history, User: "again?"})
		if res.FinalText != "" {
			t.Fatalf("whitespace is not an answer: %q", res.FinalText)
		}
	})
	t.Run("the last non-blank reply", func(t *testing.T) {
		h := newHarness(t, echoTool())
		h.srv.Enqueue(llmtest.Reply{Chunks: llmtest.WithFinish(append(llmtest.Text("Let me check.", 2), llmtest.ToolCallChunks(0, "c1", "echo", `{"text":"x"}`, 2)...), "tool_calls")}, text("Madrid."))
		res := h.turnWith(t, context.Background(), agent.Input{History: history, User: "and of Spain?"})
		if res.FinalText != "Madrid." {
			t.Fatalf("final text %q", res.FinalText)
		}
	})
}

func TestStallIsCountedAcrossSteps(t *testing.T) {
	h := newHarness(t, echoTool())
	h.srv.Enqueue(toolCall("1", "echo", `{"text":"x"}`), toolCall("2", "echo", `{"text":"y"}`), toolCall("3", "echo", `{"text":"x"}`), text("fine"))
	res := h.turn(t, context.Background(), "go")
	if res.Termination.Kind != turn.TermNaturalCompletion {
		t.Fatalf("alternating calls are not a stall: %+v", res.Termination)
	}
}

func TestTimeoutEndsTheTurnAndKeepsPartialText(t *testing.T) {
	h := newHarness(t)
	h.ag.Limits.Timeout = 150 * time.Millisecond
	h.srv.Enqueue(llmtest.Reply{Chunks: llmtest.Tokens(10000), Delay: 2 * time.Millisecond})
	res := h.turn(t, context.Background(), "write a lot")
	if res.Termination.Kind != turn.TermTimeout || res.Termination.Limit != 150 {
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

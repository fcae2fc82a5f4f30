package agent_test

import (
	"testing"

	"github.com/agentdeck/agentdeck/backend/turn"
)

// Describe is what people read about how a run ended: every limit with
// its numbers.
func TestTerminationDescribe(t *testing.T) {
	tests := []struct {
		name string
		term turn.Termination
		want string
	}{
		{"steps, concluded", turn.Termination{Kind: turn.TermMaxIterations, Limit: 8, Used: 8, Concluded: true},
			"stopped at the step limit: 8 of 8 model calls, then gave a concluding answer without tools"},
		{"revisions of a stage", turn.Termination{Kind: turn.TermMaxIterations, Limit: 3, Used: 3, Stage: "draft", Properties: map[string]string{"counts": "revisions"}},
			`stopped at the limit of 3 revisions in stage "draft"`},
		{"tool calls", turn.Termination{Kind: turn.TermMaxToolCalls, Limit: 50, Used: 50}, "stopped at the tool-call limit: 50 of 50 tool calls"},
		{"tokens", turn.Termination{Kind: turn.TermBudgetExceeded, Limit: 1000, Used: 1234}, "stopped at the token budget: 1234 tokens used of 1000"},
		{"time", turn.Termination{Kind: turn.TermTimeout, Limit: 90000}, "stopped at the time limit of 1m30s"},
		{"stall", turn.Termination{Kind: turn.TermStallDetected, Threshold: 3, Call: &turn.RepeatedCall{Name: "read_file", Arguments: `{"path":"a"}`}},
			`stopped because it called read_file with the same arguments 3 times in a row ({"path":"a"})`},
		{"natural", turn.Termination{Kind: turn.TermNaturalCompletion}, "completed"},
		{"failed", turn.Termination{Kind: turn.TermFailed, Error: "HTTP 500"}, "failed: HTTP 500"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.term.Describe(); got != tt.want {
				t.Fatalf("Describe() = %q, want %q", got, tt.want)
			}
		})
	}
}

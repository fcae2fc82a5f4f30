package eval

import (
	"context"

	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/workflow"
)

// Observation is what a case's turn stored, all an assertion reads.
type Observation struct {
	// Answer is the turn's final answer as stored.
	Answer string
	// Result is the turn's result: termination, usage, cost, duration,
	// model and tool calls.
	Result turn.Result
	// Charts counts the valid charts the turn drew (its chart events).
	Charts int
	// Prompt is the user's message the case sent (for a judge).
	Prompt string
}

// AssertOutcome is one assertion's result.
type AssertOutcome struct {
	// Kind is the assertion's kind: its field's JSON name ("contains", ...).
	Kind string `json:"kind"`
	// Passed says whether it held.
	Passed bool `json:"passed"`
	// Score is 0-1 where the kind has one (judge, similar_to), else 1 or 0.
	Score float64 `json:"score"`
	// Reason says, in words a reviewer reads, why it failed (or what it
	// measured when it passed: "token F1 0.72 ≥ 0.5").
	Reason string `json:"reason"`
	// SessionID and TurnID are the critic's turn, for a judge that ran as
	// one: what it was asked and answered can be opened.
	SessionID string `json:"session_id,omitempty"`
	TurnID    string `json:"turn_id,omitempty"`
}

// Judge asks a critic model (model is "provider/model") to judge answer,
// the reply to prompt, against rubric. The ids of the critic's turn, where
// it ran as one, come back even with an error, so a judge that failed can
// be looked at.
type Judge interface {
	Judge(ctx context.Context, model, rubric, prompt, answer string) (Judged, error)
}

// Judged is a critic's verdict, and the turn it gave it in ("" when the
// judge is not a turn).
type Judged struct {
	Verdict   workflow.Verdict
	SessionID string
	TurnID    string
}

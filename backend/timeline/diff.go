package timeline

import "github.com/agentdeck/agentdeck/backend/turn"

// Diff compares two turns step by step: usually a re-run and the turn it
// was re-run from, from the step where they part (agentdeck turns diff,
// the window's "What changed" view).
type TurnDiff struct {
	A TurnSide `json:"a"`
	B TurnSide `json:"b"`
	// From is the step id the comparison starts at: B's from_step when B
	// was re-run from A, "start" otherwise.
	From string    `json:"from"`
	Rows []StepRow `json:"rows"`
}

// TurnSide is one turn of a TurnDiff, with its totals from the From step on.
type TurnSide struct {
	TurnID string     `json:"turn_id"`
	Seq    int        `json:"seq"`
	Model  string     `json:"model,omitempty"`
	Totals TurnTotals `json:"totals"`
}

// TurnTotals add up the steps of one side of a TurnDiff.
type TurnTotals struct {
	Calls        int      `json:"calls"`
	Tools        int      `json:"tools"`
	InputTokens  int      `json:"input_tokens"`
	OutputTokens int      `json:"output_tokens"`
	CostUSD      *float64 `json:"cost_usd,omitempty"` // nil: no call had a price
	DurationMS   int64    `json:"duration_ms"`
}

// StepRow is one aligned pair of steps; A or B is nil where that turn has no
// such step.
type StepRow struct {
	Kind StepKind  `json:"kind"`
	A    *StepCell `json:"a,omitempty"`
	B    *StepCell `json:"b,omitempty"`
	// Same says both sides' texts are equal.
	Same bool `json:"same"`
	// Ops turn A's text into B's, word by word.
	Ops []TextOp `json:"ops,omitempty"`
}

// StepCell is one step of a StepRow: a model call's reply or a tool's result.
type StepCell struct {
	StepID       string   `json:"step_id"`
	Label        string   `json:"label"`
	Text         string   `json:"text"`
	Tool         string   `json:"tool,omitempty"`
	InputTokens  int      `json:"input_tokens,omitempty"`
	OutputTokens int      `json:"output_tokens,omitempty"`
	CostUSD      *float64 `json:"cost_usd,omitempty"`
	DurationMS   int64    `json:"duration_ms"`
	// Recorded marks a step served from the original's recordings;
	// Edited the step a person changed.
	Recorded bool `json:"recorded,omitempty"`
	Edited   bool `json:"edited,omitempty"`
}

// TextOp is one piece of a text diff.
type TextOp struct {
	Op   string `json:"op"` // equal, insert, delete
	Text string `json:"text"`
}

// Turn is what Compare reads of a stored turn.
type Turn struct {
	ID         string
	Seq        int
	Model      string
	FromTurnID string
	FromStep   string
	FromEdit   string
	Events     []turn.Event
	Stages     []turn.StageResult
}

// Compare aligns b's steps with a's from the step where b left a (b's
// FromStep when b was re-run from a; the start otherwise).
func Compare(a, b Turn) TurnDiff {
	from := StartID
	if b.FromTurnID == a.ID && b.FromStep != "" {
		from = b.FromStep
	}
	return TurnDiff{A: TurnSide{TurnID: a.ID, Seq: a.Seq, Model: a.Model}, B: TurnSide{TurnID: b.ID, Seq: b.Seq, Model: b.Model}, From: from, Rows: []StepRow{}}
}

package timeline

import "github.com/agentdeck/agentdeck/backend/turn"

// TurnDiff compares two turns step by step: usually a re-run and the turn it
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
	// Ops turn A's text into B's, word by word: set only when both sides
	// are there and differ (a Same row's text is either side's).
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
// FromStep when b was re-run from a; the start otherwise), diffs each
// pair's text word by word, and adds up each side from there.
//
// Only model calls and tool results are compared (a call's reply, a
// tool's output or error); they are paired by kind and tool name in
// order, so a tool call one side made and the other did not leaves a gap
// row instead of shifting every later pair.
func Compare(a, b Turn) TurnDiff {
	from := StartID
	if b.FromTurnID == a.ID && b.FromStep != "" {
		from = b.FromStep
	}
	ca, cb := cellsFrom(a, from), cellsFrom(b, from)
	d := TurnDiff{
		A:    TurnSide{TurnID: a.ID, Seq: a.Seq, Model: a.Model, Totals: totals(ca)},
		B:    TurnSide{TurnID: b.ID, Seq: b.Seq, Model: b.Model, Totals: totals(cb)},
		From: from,
		Rows: []StepRow{},
	}
	for _, p := range align(ca, cb) {
		row := StepRow{}
		switch {
		case p.a >= 0 && p.b >= 0:
			x, y := ca[p.a], cb[p.b]
			row.Kind, row.A, row.B = x.kind, &x.StepCell, &y.StepCell
			row.Same = x.Text == y.Text
			if !row.Same {
				row.Ops = WordDiff(x.Text, y.Text)
			}
		case p.a >= 0:
			x := ca[p.a]
			row.Kind, row.A = x.kind, &x.StepCell
		default:
			y := cb[p.b]
			row.Kind, row.B = y.kind, &y.StepCell
		}
		d.Rows = append(d.Rows, row)
	}
	return d
}

// totals add up one side's cells.
func totals(cells []cell) TurnTotals {
	var t TurnTotals
	for _, c := range cells {
		if c.kind == KindCall {
			t.Calls++
		} else {
			t.Tools++
		}
		t.InputTokens += c.InputTokens
		t.OutputTokens += c.OutputTokens
		t.DurationMS += c.DurationMS
		if c.CostUSD != nil {
			sum := *c.CostUSD
			if t.CostUSD != nil {
				sum += *t.CostUSD
			}
			t.CostUSD = &sum
		}
	}
	return t
}

// pair is one row of an alignment: indexes into each side, -1 for a gap.
type pair struct{ a, b int }

// align pairs the cells of two sides by the longest common subsequence of
// their (kind, tool) keys; what is left between two pairs becomes gap
// rows, A's first.
func align(a, b []cell) []pair {
	// n[i][j] is the LCS length of a[i:] and b[j:].
	n := make([][]int, len(a)+1)
	for i := range n {
		n[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i].key() == b[j].key() {
				n[i][j] = n[i+1][j+1] + 1
			} else {
				n[i][j] = max(n[i+1][j], n[i][j+1])
			}
		}
	}
	var out []pair
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i].key() == b[j].key():
			out = append(out, pair{i, j})
			i, j = i+1, j+1
		case n[i+1][j] >= n[i][j+1]:
			out = append(out, pair{i, -1})
			i++
		default:
			out = append(out, pair{-1, j})
			j++
		}
	}
	for ; i < len(a); i++ {
		out = append(out, pair{i, -1})
	}
	for ; j < len(b); j++ {
		out = append(out, pair{-1, j})
	}
	return out
}

package timeline

import (
	"encoding/json"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// cell is one side's step of a comparison, with what aligning needs.
type cell struct {
	StepCell
	kind StepKind
}

// key is what two cells must share to be paired.
func (c cell) key() string { return string(c.kind) + "\x00" + c.Tool }

// cellsFrom reads a turn's model calls and tool results from the step id
// from on (the start when the turn has no such step), each with its text,
// tokens, cost and time.
func cellsFrom(t Turn, from string) []cell {
	steps := Steps(t.Events)
	var fromSeq int64
	if s, ok := Find(steps, from); ok {
		fromSeq = s.Seq
	}
	bySeq := make(map[int64]TimelineStep, len(steps))
	for _, s := range steps {
		bySeq[s.Seq] = s
	}
	r := newCellReader(t)
	var out []cell
	open := map[string]int{} // stage id → index in out of the call under way
	for i := range t.Events {
		ev := &t.Events[i]
		switch ev.Type {
		case turn.EventThinkStart:
			diag := r.nextCall(ev.StageID)
			delete(open, ev.StageID)
			s, ok := bySeq[ev.Seq]
			if !ok || ev.Seq < fromSeq {
				continue
			}
			c := r.cell(s, KindCall)
			if diag != nil {
				c.InputTokens, c.OutputTokens = diag.Usage.InputTokens, diag.Usage.OutputTokens
				c.DurationMS = diag.Duration.Milliseconds()
				if diag.Cost != nil {
					usd := diag.Cost.USD
					c.CostUSD = &usd
				}
			}
			open[ev.StageID] = len(out)
			out = append(out, c)
		case turn.EventToken:
			if k, ok := open[ev.StageID]; ok {
				out[k].Text += ev.StreamedText()
			}
		case turn.EventThinkEnd:
			k, ok := open[ev.StageID]
			if !ok {
				continue
			}
			delete(open, ev.StageID)
			var d turn.ThinkEndData
			_ = json.Unmarshal(ev.Data, &d)
			if out[k].InputTokens == 0 && out[k].OutputTokens == 0 {
				out[k].InputTokens, out[k].OutputTokens = d.PromptTokens, d.CompletionTokens
			}
			// live_from comes inside the first live call, after its
			// think_start: a call is recorded when it ended before it.
			out[k].Recorded = r.recorded(ev.Seq)
		case turn.EventContextCompressed:
			// The summary compression asked for is a model call of the
			// stage's diagnostics with no think_start of its own.
			r.nextCall(ev.StageID)
		case turn.EventToolResult, turn.EventToolError:
			s, ok := bySeq[ev.Seq]
			if !ok || ev.Seq < fromSeq {
				continue
			}
			c := r.cell(s, KindTool)
			var d struct {
				CallID     string `json:"call_id"`
				Output     string `json:"output"`
				Error      string `json:"error"`
				DurationMS int64  `json:"duration_ms"`
			}
			_ = json.Unmarshal(ev.Data, &d)
			c.Text, c.DurationMS = d.Output, d.DurationMS
			if ev.Type == turn.EventToolError {
				c.Text = d.Error
			}
			if diag := r.tool(ev.StageID, d.CallID, s.Tool); diag != nil {
				c.DurationMS = diag.DurationMS
			}
			c.Recorded = r.recorded(ev.Seq)
			out = append(out, c)
		}
	}
	return out
}

// cellReader matches a turn's events with its stages' diagnostics: the
// k-th model call of a stage (think_start, or a summary for compression)
// is its diagnostics' k-th, a tool result the diagnostic with its call id.
type cellReader struct {
	t     Turn
	calls map[string][]llm.CallDiagnostics
	tools map[string][]turn.ToolCallDiagnostics
	used  map[string]int
	// liveSeq is the seq of a re-run's live_from (0: not a re-run; past
	// every event: a re-run that never went live).
	liveSeq int64
}

func newCellReader(t Turn) *cellReader {
	r := &cellReader{t: t, calls: map[string][]llm.CallDiagnostics{}, tools: map[string][]turn.ToolCallDiagnostics{}, used: map[string]int{}}
	seen := map[string]bool{}
	for _, ev := range t.Events {
		seen[ev.StageID] = true
		if ev.Type == turn.EventLiveFrom && r.liveSeq == 0 {
			r.liveSeq = ev.Seq
		}
	}
	if t.FromTurnID != "" && r.liveSeq == 0 && len(t.Events) > 0 {
		r.liveSeq = t.Events[len(t.Events)-1].Seq + 1
	}
	// A stage no event names (a chat turn's one stage has the turn's id,
	// its events none) answers for the events whose stage has no entry.
	for _, s := range t.Stages {
		id := s.ID
		if !seen[id] {
			id = ""
		}
		r.calls[id] = append(r.calls[id], s.Diagnostics.ModelCalls...)
		r.tools[id] = append(r.tools[id], s.Diagnostics.ToolCalls...)
	}
	return r
}

// nextCall takes the stage's next model call's diagnostics (nil past them).
func (r *cellReader) nextCall(stageID string) *llm.CallDiagnostics {
	id := r.pool(stageID)
	k := r.used[id]
	r.used[id] = k + 1
	if k >= len(r.calls[id]) {
		return nil
	}
	return &r.calls[id][k]
}

// tool finds a tool call's diagnostics by its call id and name.
func (r *cellReader) tool(stageID, callID, name string) *turn.ToolCallDiagnostics {
	for i, d := range r.tools[r.pool(stageID)] {
		if callID != "" && d.CallID == callID && d.Name == name {
			return &r.tools[r.pool(stageID)][i]
		}
	}
	return nil
}

// pool is the diagnostics key of an event's stage.
func (r *cellReader) pool(stageID string) string {
	if _, ok := r.calls[stageID]; ok {
		return stageID
	}
	return ""
}

// recorded says an event of a re-run came before it went live.
func (r *cellReader) recorded(seq int64) bool { return r.liveSeq > 0 && seq < r.liveSeq }

// cell starts a turn's cell for a step; Edited marks the step the turn was
// re-run from, when an edit was made there.
func (r *cellReader) cell(s TimelineStep, k StepKind) cell {
	c := cell{kind: k, StepCell: StepCell{StepID: s.ID, Label: s.Label(), Tool: s.Tool}}
	c.Edited = r.t.FromEdit != "" && s.ID == r.t.FromStep
	return c
}

package store

import (
	"encoding/json"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/turn"
)

func (im *importer) stages(tid string, t *export.Turn) error {
	for i, s := range t.Stages {
		if _, err := im.tx.ExecContext(im.ctx, `INSERT INTO stages (id, turn_id, idx, name, agent, phase, outcome, termination, diagnostics, response) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			im.id(s.ID), tid, i, s.Name, s.Agent, s.Phase, s.Outcome, im.raw(s.Termination, `{}`), im.raw(s.Diagnostics, `{}`), im.raw(s.Response, `null`)); err != nil {
			return err
		}
	}
	return nil
}

func (im *importer) calls(tid string, t *export.Turn) error {
	for _, c := range t.ModelCalls {
		var cost any
		if c.CostUSD != nil {
			cost = *c.CostUSD
		}
		if _, err := im.tx.ExecContext(im.ctx, `INSERT INTO model_calls (turn_id, stage_id, idx, model, started_at, duration_ms, ttft_ms, input_tokens, output_tokens, cached_tokens, reasoning_tokens, estimated, ok, error,
				provider, capture, price, cost_usd)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			tid, im.id(c.StageID), c.Idx, c.Model, fmtTime(c.StartedAt), c.DurationMS, c.TTFTMS, c.InputTokens, c.OutputTokens, c.CachedTokens, c.ReasoningTokens, c.Estimated, c.OK, c.Error,
			c.Provider, c.Capture, priceColumn(c.Price), cost); err != nil {
			return err
		}
	}
	for _, c := range t.ToolCalls {
		if _, err := im.tx.ExecContext(im.ctx, `INSERT INTO tool_calls (turn_id, stage_id, call_id, name, arguments, result_size, started_at, duration_ms, ok, error)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			tid, im.id(c.StageID), c.CallID, c.Name, c.Arguments, c.ResultSize, fmtTime(c.StartedAt), c.DurationMS, c.OK, c.Error); err != nil {
			return err
		}
	}
	return nil
}

func (im *importer) approvals(tid string, t *export.Turn) error {
	for _, a := range t.Approvals {
		if _, err := im.tx.ExecContext(im.ctx, `INSERT INTO approvals (session_id, turn_id, call_id, tool, args, guard, answer, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			im.sid, tid, a.CallID, a.Tool, a.Args, a.Guard, a.Answer, fmtTime(a.At)); err != nil {
			return err
		}
	}
	return nil
}

// reviews stores the turn's reviews (version 11) under its new id, each
// checked as SaveReview checks it: a file with a review no Agentdeck
// writes was changed or damaged, and is refused.
func (im *importer) reviews(tid string, t *export.Turn) error {
	for i, r := range t.Reviews {
		r.TurnID = tid
		r, err := r.Normalize()
		if err != nil {
			return apperr.New(apperr.Invalid, "Turn %d of the file has a review (reviews[%d]) that cannot be read: %s. The file was changed or damaged; export it again.", t.Seq, i, err)
		}
		if r.Empty() {
			continue
		}
		labels, _ := json.Marshal(r.Labels)
		id := turn.NewID()
		if _, err := im.tx.ExecContext(im.ctx, `INSERT INTO reviews (id, turn_id, step, thumb, score, labels, note, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (turn_id, step) DO NOTHING`,
			id, tid, r.Step, r.Thumb, r.Score, string(labels), r.Note, fmtTime(r.CreatedAt), fmtTime(r.UpdatedAt)); err != nil {
			return err
		}
		if err := storeLabels(im.ctx, im.tx, id, r.Labels); err != nil {
			return err
		}
	}
	return nil
}

// events stores the turn's log as the event log does, token runs and all
// (insertEvents). An event's session and turn are those of the row it is
// stored under, so they need no column of their own. The events must
// come in order of seq, each once.
func (im *importer) events(tid string, t *export.Turn) error {
	evs := make([]turn.Event, len(t.Events))
	for i, e := range t.Events {
		if i > 0 && e.Seq <= t.Events[i-1].Seq {
			return apperr.New(apperr.Invalid, "This file is damaged: its events are out of order (seq %d after %d). Nothing was imported.", e.Seq, t.Events[i-1].Seq)
		}
		evs[i] = turn.Event{Seq: e.Seq, ID: im.id(e.ID), StageID: im.id(e.StageID), ParentID: im.id(e.ParentID), At: e.At,
			Type: e.Type, Phase: e.Phase, Checkpoint: e.Checkpoint, Data: json.RawMessage(im.raw(e.Data, `{}`))}
	}
	return insertEvents(im.ctx, im.tx, tid, evs)
}

// captures stores the file's recorded model calls, each as a recording of
// its own linked to the imported turns' calls. A version 1 file names only
// the turns that used a capture: their calls are numbered in the order the
// file lists the captures, which is the order they were recorded.
func (im *importer) captures() error {
	inFile := map[string]bool{}
	for _, t := range im.doc.Turns {
		inFile[t.ID] = true
	}
	nextIndex := map[string]int{} // version 1: each turn's next call index
	for _, c := range im.doc.Captures {
		if c.Key == "" {
			return apperr.New(apperr.Invalid, "This file is damaged: a recorded model call has no key. Nothing was imported.")
		}
		var id int64
		if err := im.tx.QueryRowContext(im.ctx, `INSERT INTO recordings (key, model, request, chunks, response, recorded_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
			c.Key, c.Model, compactJSON(c.Request, `null`), compactJSON(c.Chunks, `[]`), compactJSON(c.Response, `{}`), fmtTime(c.RecordedAt)).Scan(&id); err != nil {
			return err
		}
		calls := c.Calls
		for _, turnID := range c.Turns {
			calls = append(calls, export.Call{Turn: turnID, Index: nextIndex[turnID]})
			nextIndex[turnID]++
		}
		for _, call := range calls {
			if !inFile[call.Turn] {
				continue
			}
			if call.Index < 0 {
				return apperr.New(apperr.Invalid, "This file is damaged: a recorded model call has a negative call index. Nothing was imported.")
			}
			if _, err := im.tx.ExecContext(im.ctx, `INSERT OR IGNORE INTO turn_calls (turn_id, idx, recording_id) VALUES (?, ?, ?)`, im.id(call.Turn), call.Index, id); err != nil {
				return err
			}
		}
	}
	return nil
}

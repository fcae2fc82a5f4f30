package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

// Evaluation runs spread over machines (scale/, issue 26): a worker keeps
// a copy of each run it runs cells of, so eval.Runner works on its own
// database unchanged; and the side that started the run collects each
// cell's result from the worker that ran it.

// CopyEvalRun stores r as it is, keeping its id, as a running run owned
// by this process; a run of that id already here is left as it is. It
// returns the run as stored.
func (db *DB) CopyEvalRun(ctx context.Context, r EvalRun) (EvalRun, error) {
	if r.ID == "" || r.SuiteName == "" || len(r.Suite) == 0 {
		return EvalRun{}, apperr.New(apperr.Invalid, "A copied evaluation run needs its id, suite name and suite.")
	}
	if r.Capture == "" {
		r.Capture = "record"
	}
	if r.StartedAt.IsZero() {
		r.StartedAt = time.Now().UTC()
	}
	own := CurrentOwner()
	err := db.tx(ctx, "saving a copy of the evaluation run", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO eval_runs (id, suite_name, suite_file, suite, capture, from_run_id, state, started_at, owner_pid, owner_start)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
			r.ID, r.SuiteName, r.SuiteFile, string(r.Suite), r.Capture, r.FromRunID, EvalRunning, fmtTime(r.StartedAt), own.PID, own.Start)
		return err
	})
	if err != nil {
		return EvalRun{}, err
	}
	return db.EvalRun(ctx, r.ID)
}

// PutEvalResult stores an ended result collected from elsewhere, keeping
// its id and links. It replaces any result of the same run, case, model
// and repeat, so a case run more than once (a retried activity) has one
// result: the one put last. Its session and turn must be stored first.
func (db *DB) PutEvalResult(ctx context.Context, r EvalResult) error {
	switch r.State {
	case EvalPassed, EvalFailedCase, EvalCancelled, EvalError:
	default:
		return apperr.New(apperr.Invalid, "A collected evaluation case ends passed, failed, cancelled or error, not %q.", r.State)
	}
	if r.ID == "" || r.RunID == "" || r.CaseID == "" || r.Model == "" || r.Repeat < 1 {
		return apperr.New(apperr.Invalid, "A collected evaluation result needs its id, run, case, model and a repeat from 1.")
	}
	if len(r.Outcomes) == 0 {
		r.Outcomes = json.RawMessage(`[]`)
	}
	if r.StartedAt.IsZero() {
		r.StartedAt = time.Now().UTC()
	}
	ended := time.Now().UTC()
	if r.EndedAt != nil {
		ended = *r.EndedAt
	}
	return db.tx(ctx, "saving a collected evaluation result", func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM eval_results WHERE run_id = ? AND case_id = ? AND model = ? AND repeat = ? AND id <> ?`,
			r.RunID, r.CaseID, r.Model, r.Repeat, r.ID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO eval_results (id, run_id, case_id, model, repeat, session_id, turn_id, state, score, outcomes, error,
				latency_ms, tokens, cost_usd, started_at, ended_at)
			VALUES (?, ?, ?, ?, ?, NULLIF(?, ''), NULLIF(?, ''), ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET session_id = excluded.session_id, turn_id = excluded.turn_id, state = excluded.state,
				score = excluded.score, outcomes = excluded.outcomes, error = excluded.error, latency_ms = excluded.latency_ms,
				tokens = excluded.tokens, cost_usd = excluded.cost_usd, started_at = excluded.started_at, ended_at = excluded.ended_at`,
			r.ID, r.RunID, r.CaseID, r.Model, r.Repeat, r.SessionID, r.TurnID, r.State, r.Score, string(r.Outcomes), r.Error,
			r.LatencyMS, r.Tokens, r.CostUSD, fmtTime(r.StartedAt), fmtTime(ended))
		return err
	})
}

package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Evaluation runs and their results. A run keeps the suite as it ran
// (JSON, so a later edit of the file does not change what the run was);
// each case × model × repeat of it is one result, stored once: claiming a
// result that exists returns it (ClaimEvalResult), which makes running a
// case idempotent. A result links the session and turn it ran as.

// The states of an evaluation run.
const (
	EvalRunning   = "running"
	EvalCompleted = "completed"
	EvalCancelled = "cancelled"
	EvalFailed    = "failed"
)

// The states of an evaluation result besides running and cancelled.
const (
	EvalPassed     = "passed"
	EvalFailedCase = "failed"
	EvalError      = "error"
)

// EvalRun is one run of a suite.
type EvalRun struct {
	ID        string `json:"id"`
	SuiteName string `json:"suite_name"`
	SuiteFile string `json:"suite_file"`
	// Suite is the suite as it ran (eval.Suite as JSON).
	Suite json.RawMessage `json:"suite"`
	// Capture is record, replay or auto; FromRunID names the run whose
	// recordings a replay serves.
	Capture   string     `json:"capture"`
	FromRunID string     `json:"from_run_id"`
	State     string     `json:"state"`
	StartedAt time.Time  `json:"started_at"`
	EndedAt   *time.Time `json:"ended_at,omitempty"`
}

// EvalResult is one case × model × repeat of a run.
type EvalResult struct {
	ID        string `json:"id"`
	RunID     string `json:"run_id"`
	CaseID    string `json:"case_id"`
	Model     string `json:"model"`  // provider/model
	Repeat    int    `json:"repeat"` // 1-based
	SessionID string `json:"session_id"`
	TurnID    string `json:"turn_id"`
	// State is running, passed, failed, cancelled or error (the case could
	// not be run or judged: Error says why).
	State string  `json:"state"`
	Score float64 `json:"score"`
	// Outcomes are the assertions' outcomes (eval.AssertOutcome as JSON).
	Outcomes  json.RawMessage `json:"outcomes"`
	Error     string          `json:"error"`
	LatencyMS int64           `json:"latency_ms"`
	Tokens    int64           `json:"tokens"`
	// CostUSD is nil when the cost is unknown.
	CostUSD   *float64   `json:"cost_usd,omitempty"`
	StartedAt time.Time  `json:"started_at"`
	EndedAt   *time.Time `json:"ended_at,omitempty"`
	// Answer is the final answer of the turn it ran as, its first
	// EvalAnswerPreview characters at most; AnswerMore says it goes on
	// (EvalAnswer reads it whole). Only EvalResults fills them.
	Answer     string `json:"answer"`
	AnswerMore bool   `json:"answer_more"`
}

// EvalAnswerPreview is how many characters of a result's answer
// EvalResults reads. A cell shows a few lines and, opened, up to this
// much, which holds most evaluation answers whole; a run of a thousand
// cells then carries 2 MB of answers at most, and a longer answer is read
// whole (EvalAnswer) only when a person opens it.
const EvalAnswerPreview = 2000

// CreateEvalRun stores a new run, running, owned by this process.
func (db *DB) CreateEvalRun(ctx context.Context, r EvalRun) (EvalRun, error) {
	if r.ID == "" {
		r.ID = turn.NewID()
	}
	if r.Capture == "" {
		r.Capture = "record"
	}
	if len(r.Suite) == 0 {
		r.Suite = json.RawMessage(`{}`)
	}
	r.State, r.StartedAt, r.EndedAt = EvalRunning, time.Now().UTC(), nil
	own := CurrentOwner()
	err := db.tx(ctx, "saving the evaluation run", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO eval_runs (id, suite_name, suite_file, suite, capture, from_run_id, state, started_at, owner_pid, owner_start)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.ID, r.SuiteName, r.SuiteFile, string(r.Suite), r.Capture, r.FromRunID, r.State, fmtTime(r.StartedAt), own.PID, own.Start)
		return err
	})
	return r, err
}

// EndEvalRun records how a run ended (completed, cancelled or failed).
func (db *DB) EndEvalRun(ctx context.Context, id, state string) error {
	switch state {
	case EvalCompleted, EvalCancelled, EvalFailed:
	default:
		return apperr.New(apperr.Invalid, "An evaluation run ends completed, cancelled or failed, not %q.", state)
	}
	return db.tx(ctx, "saving how the evaluation run ended", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE eval_runs SET state = ?, ended_at = ? WHERE id = ?`, state, fmtTime(time.Now()), id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return apperr.New(apperr.NotFound, "There is no evaluation run %s.", id)
		}
		return nil
	})
}

const evalRunSelect = `SELECT id, suite_name, suite_file, suite, capture, from_run_id, state, started_at, ended_at, owner_pid, owner_start FROM eval_runs`

// EvalRun returns one run. A run still marked running whose process is
// gone reads as cancelled: it was stopped by the process ending.
func (db *DB) EvalRun(ctx context.Context, id string) (EvalRun, error) {
	r, err := scanEvalRun(db.reader.QueryRowContext(ctx, evalRunSelect+` WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return EvalRun{}, apperr.New(apperr.NotFound, "There is no evaluation run %s. See `agentdeck eval runs` for the runs there are.", id)
	}
	if err != nil {
		return EvalRun{}, readError(err, "loading the evaluation run")
	}
	return r, nil
}

// EvalRuns lists runs, newest first, at most limit (default 50); with
// suite set, only that suite's.
func (db *DB) EvalRuns(ctx context.Context, suite string, limit int) ([]EvalRun, error) {
	runs, err := appendRows(ctx, db.reader, []EvalRun{}, func(r scanner) (EvalRun, error) { return scanEvalRun(r) },
		evalRunSelect+` WHERE (? = '' OR suite_name = ?) ORDER BY started_at DESC, id DESC LIMIT ?`,
		suite, suite, clampLimit(limit, 50, 1000))
	if err != nil {
		return nil, readError(err, "listing evaluation runs")
	}
	return runs, nil
}

// EvalRunTally is a run with how many results it has and how many of
// them passed.
type EvalRunTally struct {
	Run     EvalRun
	Results int
	Passed  int
}

// EvalRunTallies lists runs as EvalRuns does, each with its tally, in one
// query however many runs there are.
func (db *DB) EvalRunTallies(ctx context.Context, suite string, limit int) ([]EvalRunTally, error) {
	tally := func(r scanner) (t EvalRunTally, err error) {
		t.Run, err = scanEvalRun(r, &t.Results, &t.Passed)
		return t, err
	}
	out, err := appendRows(ctx, db.reader, []EvalRunTally{}, tally, `SELECT r.id, r.suite_name, r.suite_file, r.suite, r.capture, r.from_run_id, r.state, r.started_at, r.ended_at, r.owner_pid, r.owner_start,
			COUNT(e.id), COALESCE(SUM(e.state = 'passed'), 0)
		FROM eval_runs r LEFT JOIN eval_results e ON e.run_id = r.id
		WHERE (? = '' OR r.suite_name = ?)
		GROUP BY r.id ORDER BY r.started_at DESC, r.id DESC LIMIT ?`,
		suite, suite, clampLimit(limit, 50, 1000))
	if err != nil {
		return nil, readError(err, "listing evaluation runs")
	}
	return out, nil
}

// scanEvalRun reads a row of evalRunSelect's columns, then into extra
// any columns after them.
func scanEvalRun(r scanner, extra ...any) (EvalRun, error) {
	var run EvalRun
	var suite, started string
	var ended sql.NullString
	var own Owner
	dest := append([]any{&run.ID, &run.SuiteName, &run.SuiteFile, &suite, &run.Capture, &run.FromRunID, &run.State, &started, &ended, &own.PID, &own.Start}, extra...)
	if err := r.Scan(dest...); err != nil {
		return EvalRun{}, err
	}
	run.Suite, run.StartedAt, run.EndedAt = json.RawMessage(suite), parseTime(started), nullTime(ended)
	if run.State == EvalRunning && !own.Alive() {
		run.State = EvalCancelled
	}
	return run, nil
}

// ClaimEvalResult starts the result of one case × model × repeat of a
// run, or finds it: a result that ended is returned as stored with
// claimed false (the case is not run again). One still marked running is
// claimed again when its turn is not running (its process ended); one
// whose turn runs is a Conflict.
func (db *DB) ClaimEvalResult(ctx context.Context, key EvalResult) (res EvalResult, claimed bool, err error) {
	if key.RunID == "" || key.CaseID == "" || key.Model == "" || key.Repeat < 1 {
		return EvalResult{}, false, apperr.New(apperr.Invalid, "An evaluation result needs its run, case, model and a repeat from 1.")
	}
	err = db.tx(ctx, "starting an evaluation case", func(tx *sql.Tx) error {
		res, err = scanEvalResult(tx.QueryRowContext(ctx, evalResultSelect+` WHERE run_id = ? AND case_id = ? AND model = ? AND repeat = ?`,
			key.RunID, key.CaseID, key.Model, key.Repeat))
		now := time.Now().UTC()
		switch {
		case errors.Is(err, sql.ErrNoRows):
			res = EvalResult{ID: turn.NewID(), RunID: key.RunID, CaseID: key.CaseID, Model: key.Model, Repeat: key.Repeat,
				State: EvalRunning, Outcomes: json.RawMessage(`[]`), StartedAt: now}
			claimed = true
			_, err = tx.ExecContext(ctx, `INSERT INTO eval_results (id, run_id, case_id, model, repeat, state, started_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
				res.ID, res.RunID, res.CaseID, res.Model, res.Repeat, res.State, fmtTime(now))
			return err
		case err != nil:
			return err
		case res.State != EvalRunning:
			return nil
		}
		var turnState string
		if res.TurnID != "" {
			if err := tx.QueryRowContext(ctx, `SELECT state FROM turns WHERE id = ?`, res.TurnID).Scan(&turnState); err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		if turnState == "running" {
			var own Owner
			if err := tx.QueryRowContext(ctx, `SELECT owner_pid, owner_start FROM turns WHERE id = ?`, res.TurnID).Scan(&own.PID, &own.Start); err != nil {
				return err
			}
			if own.Alive() {
				return apperr.New(apperr.Conflict, "Case %s on %s (repeat %d) is running already.", res.CaseID, res.Model, res.Repeat)
			}
		}
		res.SessionID, res.TurnID, res.StartedAt, claimed = "", "", now, true
		_, err = tx.ExecContext(ctx, `UPDATE eval_results SET session_id = NULL, turn_id = NULL, started_at = ? WHERE id = ?`, fmtTime(now), res.ID)
		return err
	})
	if err != nil {
		return EvalResult{}, false, err
	}
	return res, claimed, nil
}

// SetEvalResultTurn links a running result to the session and turn it
// runs as, as soon as the turn starts, so a result whose process dies
// still leads to what was stored.
func (db *DB) SetEvalResultTurn(ctx context.Context, id, sessionID, turnID string) error {
	return db.tx(ctx, "linking an evaluation case to its turn", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE eval_results SET session_id = NULLIF(?, ''), turn_id = NULLIF(?, '') WHERE id = ?`, sessionID, turnID, id)
		return err
	})
}

// FinishEvalResult stores how a result ended: its state (passed, failed,
// cancelled or error), score, outcomes, error and measures.
func (db *DB) FinishEvalResult(ctx context.Context, r EvalResult) error {
	switch r.State {
	case EvalPassed, EvalFailedCase, EvalCancelled, EvalError:
	default:
		return apperr.New(apperr.Invalid, "An evaluation case ends passed, failed, cancelled or error, not %q.", r.State)
	}
	if len(r.Outcomes) == 0 {
		r.Outcomes = json.RawMessage(`[]`)
	}
	return db.tx(ctx, "saving an evaluation case's result", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE eval_results SET state = ?, score = ?, outcomes = ?, error = ?, latency_ms = ?, tokens = ?, cost_usd = ?, ended_at = ?,
				session_id = COALESCE(NULLIF(?, ''), session_id), turn_id = COALESCE(NULLIF(?, ''), turn_id)
			WHERE id = ?`,
			r.State, r.Score, string(r.Outcomes), r.Error, r.LatencyMS, r.Tokens, r.CostUSD, fmtTime(time.Now()), r.SessionID, r.TurnID, r.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return apperr.New(apperr.NotFound, "There is no evaluation result %s.", r.ID)
		}
		return nil
	})
}

const evalResultSelect = `SELECT id, run_id, case_id, model, repeat, COALESCE(session_id, ''), COALESCE(turn_id, ''), state, score, outcomes, error,
	latency_ms, tokens, cost_usd, started_at, ended_at FROM eval_results`

// EvalResults returns a run's results in the order they were started,
// each with the start of its turn's answer.
func (db *DB) EvalResults(ctx context.Context, runID string) ([]EvalResult, error) {
	scan := func(r scanner) (EvalResult, error) {
		var answer string
		var more bool
		res, err := scanEvalResult(r, &answer, &more)
		res.Answer, res.AnswerMore = answer, more
		return res, err
	}
	out, err := appendRows(ctx, db.reader, []EvalResult{}, scan, `SELECT e.id, e.run_id, e.case_id, e.model, e.repeat, COALESCE(e.session_id, ''), COALESCE(e.turn_id, ''),
			e.state, e.score, e.outcomes, e.error, e.latency_ms, e.tokens, e.cost_usd, e.started_at, e.ended_at,
			COALESCE(substr(t.final_text, 1, ?), ''), COALESCE(length(t.final_text) > ?, 0)
		FROM eval_results e LEFT JOIN turns t ON t.id = e.turn_id
		WHERE e.run_id = ? ORDER BY e.rowid`, EvalAnswerPreview, EvalAnswerPreview, runID)
	if err != nil {
		return nil, readError(err, "reading the evaluation's results")
	}
	return out, nil
}

// EvalAnswer is the whole final answer of the turn result id ran as (""
// when it has no turn, or the turn no answer yet).
func (db *DB) EvalAnswer(ctx context.Context, id string) (string, error) {
	var answer string
	err := db.reader.QueryRowContext(ctx, `SELECT COALESCE(t.final_text, '') FROM eval_results e LEFT JOIN turns t ON t.id = e.turn_id WHERE e.id = ?`, id).Scan(&answer)
	if errors.Is(err, sql.ErrNoRows) {
		return "", apperr.New(apperr.NotFound, "There is no evaluation result %s; the run may have been deleted. Open the run again.", id)
	}
	if err != nil {
		return "", readError(err, "reading an evaluation case's answer")
	}
	return answer, nil
}

// scanEvalResult reads a row of evalResultSelect's columns, then into
// extra any columns after them.
func scanEvalResult(r scanner, extra ...any) (EvalResult, error) {
	var res EvalResult
	var outcomes, started string
	var ended sql.NullString
	var cost sql.NullFloat64
	dest := append([]any{&res.ID, &res.RunID, &res.CaseID, &res.Model, &res.Repeat, &res.SessionID, &res.TurnID, &res.State, &res.Score, &outcomes, &res.Error,
		&res.LatencyMS, &res.Tokens, &cost, &started, &ended}, extra...)
	if err := r.Scan(dest...); err != nil {
		return EvalResult{}, err
	}
	res.Outcomes, res.StartedAt, res.EndedAt = json.RawMessage(outcomes), parseTime(started), nullTime(ended)
	if cost.Valid {
		res.CostUSD = &cost.Float64
	}
	return res, nil
}

func nullTime(s sql.NullString) *time.Time {
	if !s.Valid || strings.TrimSpace(s.String) == "" {
		return nil
	}
	t := parseTime(s.String)
	return &t
}

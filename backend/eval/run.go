package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Running one cell: the unit an evaluation is made of, and what a worker
// elsewhere runs (scale/ runs RunCell as a Temporal activity). Its input
// is ids and its output ids and scores; the transcript stays in the
// database, as a real turn in an evaluation session of its own.
//
// One name for one thing: a cell is one case × model × repeat of a run.
// Cell is its key, CellOutput what running it returns, CellResult its
// stored result as a report reads it; the row in the database is
// store.EvalResult (table eval_results), one per cell.

// Cell names one case × model × repeat of a run.
type Cell struct {
	RunID  string `json:"run_id"`
	CaseID string `json:"case_id"`
	Model  string `json:"model"`  // provider/model
	Repeat int    `json:"repeat"` // 1-based
}

// CellOutput is what came of it.
type CellOutput struct {
	ResultID  string  `json:"result_id"`
	SessionID string  `json:"session_id"`
	TurnID    string  `json:"turn_id"`
	State     string  `json:"state"` // store.EvalPassed, EvalFailedCase, EvalCancelled, EvalError
	Score     float64 `json:"score"`
	// Stored is true when the case had already ended in this run and its
	// stored result was returned without running it again.
	Stored bool `json:"stored"`
}

// Store is what running a case needs of the database.
type Store interface {
	EvalRun(ctx context.Context, id string) (store.EvalRun, error)
	EvalResults(ctx context.Context, runID string) ([]store.EvalResult, error)
	ClaimEvalResult(ctx context.Context, key store.EvalResult) (store.EvalResult, bool, error)
	SetEvalResultTurn(ctx context.Context, id, sessionID, turnID string) error
	FinishEvalResult(ctx context.Context, r store.EvalResult) error
	CreateSession(ctx context.Context, s store.Session) (store.Session, error)
	// GetTurn and EvalCopy serve the cases that start from a recorded
	// turn (runfrom.go).
	GetTurn(ctx context.Context, id string, withEvents bool) (store.TurnDetail, error)
	EvalCopy(ctx context.Context, turnID string, s store.Session) (store.Session, error)
}

// Turns starts and stops turns: the runner. A turn runs on in the
// background whatever becomes of the context that started it; Stop ends it.
type Turns interface {
	Start(ctx context.Context, req runner.Request) (*runner.Handle, error)
	Stop(turnID string) error
}

// CellRunner runs the cells of stored runs, each as a turn through
// Turns (the engine's runner.Runner, which runs any turn).
type CellRunner struct {
	db    Store
	turns Turns
	judge Judge // nil: each case's critic runs as a turn (turnJudge)
	log   *slog.Logger
	// giveBack returns a case whose model call failed in a way that may
	// pass later as an error instead of storing it (GiveBackRetryable).
	giveBack bool
}

// NewCellRunner returns a CellRunner; judge and log may be nil (a nil judge runs
// each judge assertion's critic as a turn of its own, see turnJudge).
func NewCellRunner(db Store, turns Turns, judge Judge, log *slog.Logger) *CellRunner {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &CellRunner{db: db, turns: turns, judge: judge, log: log}
}

// GiveBackRetryable makes RunCell give back a cell whose turn ended on a
// model call that may succeed later (a 429, a 5xx, a dead server, once
// the call's own retries are spent): it returns the call's *llm.Error
// and leaves the result unended, so running the case again claims it
// afresh. A scheduler that retries (a Temporal worker) wants this; a
// local run stores such a case as an error, which is the default.
func (r *CellRunner) GiveBackRetryable() *CellRunner {
	r.giveBack = true
	return r
}

// LoadedRun is a stored run with its suite read from the JSON it was
// stored with: what running its cells reads. Read it once per run
// (LoadRun) and give it to each of the run's cells.
type LoadedRun struct {
	Run   store.EvalRun
	Suite *Suite
}

// LoadRun reads run id and its suite, once for all the run's cells.
func LoadRun(ctx context.Context, db interface {
	EvalRun(ctx context.Context, id string) (store.EvalRun, error)
}, id string) (*LoadedRun, error) {
	run, err := db.EvalRun(ctx, id)
	if err != nil {
		return nil, err
	}
	return loaded(run)
}

// loaded is run with its stored suite read.
func loaded(run store.EvalRun) (*LoadedRun, error) {
	var suite Suite
	if err := json.Unmarshal(run.Suite, &suite); err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "The suite stored with run %s cannot be read.", run.ID)
	}
	return &LoadedRun{Run: run, Suite: &suite}, nil
}

// RunCell runs one cell (case × model × repeat) of run as a turn in a new
// evaluation session, checks its assertions against what the turn stored,
// and stores the result. It is idempotent: a cell that already ended in
// this run returns its stored result (Stored). Cancelling ctx stops the
// turn; the result is stored as cancelled, with what the turn had kept.
func (r *CellRunner) RunCell(ctx context.Context, lr *LoadedRun, in Cell) (CellOutput, error) {
	if in.RunID != lr.Run.ID {
		return CellOutput{}, apperr.New(apperr.Invalid, "Cell of run %s given with run %s.", in.RunID, lr.Run.ID)
	}
	run, suite := lr.Run, lr.Suite
	c, ok := findCase(suite, in.CaseID)
	if !ok {
		return CellOutput{}, apperr.New(apperr.Invalid, "Suite %s has no case %q.", suite.Name, in.CaseID)
	}
	provider, model, ok := strings.Cut(in.Model, "/")
	if !ok || provider == "" || model == "" {
		return CellOutput{}, apperr.New(apperr.Invalid, "%q is not a provider/model.", in.Model)
	}
	res, claimed, err := r.db.ClaimEvalResult(ctx, store.EvalResult{RunID: in.RunID, CaseID: in.CaseID, Model: in.Model, Repeat: in.Repeat})
	if err != nil {
		return CellOutput{}, err
	}
	if !claimed {
		return CellOutput{ResultID: res.ID, SessionID: res.SessionID, TurnID: res.TurnID, State: res.State, Score: res.Score, Stored: true}, nil
	}

	req, err := r.request(ctx, run, suite, c, in, provider, model)
	if err != nil {
		return r.finish(ctx, res, c.Assert, Observation{}, nil, nil, err)
	}
	sess := store.Session{
		Title:    fmt.Sprintf("%s · %s · %s #%d", suite.Name, c.ID, in.Model, in.Repeat),
		Kind:     store.SessionEval,
		Provider: provider, Model: model, Workflow: suite.Workflow,
	}
	if c.From != nil && req.Replay == nil {
		sess, err = r.fromSession(ctx, c, sess, &req)
	} else {
		sess, err = r.db.CreateSession(ctx, sess)
	}
	if err != nil {
		return r.finish(ctx, res, c.Assert, Observation{}, nil, nil, err)
	}
	req.SessionID = sess.ID
	var charts atomic.Int32
	req.Sinks = append(req.Sinks, turn.SinkFunc(func(e turn.Event) error {
		if e.Type == turn.EventChart {
			charts.Add(1)
		}
		return nil
	}))
	h, err := r.turns.Start(ctx, req)
	if err != nil {
		res.SessionID = sess.ID
		return r.finish(ctx, res, c.Assert, Observation{}, nil, nil, err)
	}
	res.SessionID, res.TurnID = sess.ID, h.TurnID
	if err := r.db.SetEvalResultTurn(ctx, res.ID, sess.ID, h.TurnID); err != nil {
		r.log.Warn("linking an evaluation case to its turn", "result", res.ID, "turn", h.TurnID, "err", err)
	}
	result := r.wait(ctx, h)
	if err := r.retryable(ctx, result); err != nil {
		return CellOutput{}, err
	}
	obs := Observation{Answer: result.FinalText, Result: result, Charts: int(charts.Load()), Prompt: req.Message}
	judge := r.judge
	if judge == nil {
		judge = turnJudge{r: r, title: sess.Title, capture: recording.Mode(run.Capture)}
	}
	return r.finish(ctx, res, c.Assert, obs, &result, judge, nil)
}

// wait waits for a turn to end; Stop (ctx cancelled) stops it as the Stop
// button would, and it still returns what the turn kept.
func (r *CellRunner) wait(ctx context.Context, h *runner.Handle) turn.Result {
	select {
	case <-h.Done():
	case <-ctx.Done():
		if err := r.turns.Stop(h.TurnID); err != nil {
			r.log.Warn("stopping an evaluation turn", "turn", h.TurnID, "err", err)
		}
	}
	return h.Wait()
}

// retryable is the error a case is given back with (GiveBackRetryable):
// its turn failed, not stopped, and its last model call failed in a way
// llm.Retryable says may pass later. nil otherwise.
func (r *CellRunner) retryable(ctx context.Context, result turn.Result) error {
	if !r.giveBack || result.Error == "" || result.Cancelled || ctx.Err() != nil || len(result.ModelCalls) == 0 {
		return nil
	}
	last := result.ModelCalls[len(result.ModelCalls)-1]
	err := &llm.Error{Kind: last.ErrorKind, Message: result.Error}
	if last.OK || !llm.Retryable(err) {
		return nil
	}
	return err
}

// request is the turn a case runs as: its prompt with the vars filled,
// its conversation before it, the suite's workflow, and the run's capture
// (a replay run replays the turn the same cell ran as in
// the run it names, so repeats replay as they happened).
func (r *CellRunner) request(ctx context.Context, run store.EvalRun, s *Suite, c Case, in Cell, provider, model string) (runner.Request, error) {
	message, history := s.Render(c)
	req := runner.Request{
		Message: message, Workflow: fromSuite(run.SuiteFile, s.Workflow, isWorkflowFile(s.Workflow)), Provider: provider, Model: model,
		Capture: recording.Mode(run.Capture),
	}
	for _, a := range c.Attach {
		req.Attach = append(req.Attach, fromSuite(run.SuiteFile, a, true))
	}
	for _, m := range history {
		req.History = append(req.History, llm.Message{Role: llm.Role(m.Role), Content: m.Content})
	}
	if run.Capture != string(recording.Replay) {
		return req, nil
	}
	from, err := r.db.EvalResults(ctx, run.FromRunID)
	if err != nil {
		return runner.Request{}, err
	}
	for _, f := range from {
		if f.CaseID == in.CaseID && f.Model == in.Model && f.Repeat == in.Repeat && f.TurnID != "" {
			req.Replay = &runner.Replay{TurnID: f.TurnID}
			return req, nil
		}
	}
	return runner.Request{}, apperr.New(apperr.NotFound,
		"Run %s has no recorded turn of case %s on %s (repeat %d) to replay; run the suite with --capture record first.", run.FromRunID, in.CaseID, in.Model, in.Repeat)
}

// finish checks the assertions (when the turn ran to an answer) and
// stores the result. A case that could not run is an error result, with
// the reason a person can act on.
func (r *CellRunner) finish(ctx context.Context, res store.EvalResult, asserts []Assert, obs Observation, result *turn.Result, judge Judge, runErr error) (CellOutput, error) {
	switch {
	case runErr != nil:
		res.State, res.Error = store.EvalError, apperr.MessageOf(runErr)
		if errors.Is(runErr, context.Canceled) {
			res.State = store.EvalCancelled
		}
	case result.Cancelled || result.Termination.Kind == turn.TermCancelled:
		res.State, res.Error = store.EvalCancelled, "Stopped before the case's turn ended."
	default:
		res.State = store.EvalPassed
	}
	if result != nil {
		if result.Error != "" {
			res.Error = result.Error // why the turn failed, beside what the assertions say
		}
		res.LatencyMS, res.Tokens = result.DurationMS, tokensOf(result.Usage)
		if result.Cost != nil && result.Cost.Unpriced == 0 {
			usd := result.Cost.USD
			res.CostUSD = &usd
		}
	}
	// The store's context may be cancelled (Stop): the result is still
	// stored, so a cancelled case says so.
	storeCtx := context.WithoutCancel(ctx)
	if res.State == store.EvalPassed {
		outcomes, passed, score := CheckAll(ctx, asserts, obs, judge)
		b, _ := json.Marshal(outcomes)
		res.Outcomes, res.Score = b, score
		switch {
		case ctx.Err() != nil: // stopped while a judge was asked
			res.State, res.Error = store.EvalCancelled, "Stopped while the case's answer was judged."
		case !passed:
			res.State = store.EvalFailedCase
		}
	}
	if err := r.db.FinishEvalResult(storeCtx, res); err != nil {
		return CellOutput{}, err
	}
	return CellOutput{ResultID: res.ID, SessionID: res.SessionID, TurnID: res.TurnID, State: res.State, Score: res.Score}, nil
}

func findCase(s *Suite, id string) (Case, bool) {
	for _, c := range s.Cases {
		if c.ID == id {
			return c, true
		}
	}
	return Case{}, false
}

// tokensOf is a turn's tokens: the server's total, else input + output.
func tokensOf(u llm.Usage) int64 {
	if u.TotalTokens > 0 {
		return int64(u.TotalTokens)
	}
	return int64(u.InputTokens + u.OutputTokens)
}

// fromSuite is path as the suite file means it: relative to the suite's
// folder (file paths only; a workflow's name is left as it is).
func fromSuite(suiteFile, path string, isFile bool) string {
	if !isFile || path == "" || filepath.IsAbs(path) || suiteFile == "" {
		return path
	}
	return filepath.Join(filepath.Dir(suiteFile), path)
}

// isWorkflowFile says whether a suite's workflow names a file rather than
// a workflow: it has a folder or a YAML or JSON extension.
func isWorkflowFile(w string) bool {
	switch strings.ToLower(filepath.Ext(w)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return strings.ContainsAny(w, `/\`)
}

// Package submit is the side that starts a run on Temporal: it stores the
// run in its own database, puts it in the shared folder, starts the
// run's workflow, waits for it, and collects every cell home.
//
// Rules:
//   - The run is stored here before anything starts, and ended here
//     (completed, cancelled or failed) whatever becomes of the workflow,
//     with every cell that came home: a stopped run keeps what ended.
//   - Stop (ctx) cancels the workflow and waits for it, so the running
//     cells are stored cancelled by their workers and come home as that.
//   - A cell that failed for good on every attempt, with nothing stored
//     by any worker, is stored here as an error result saying why.
package submit

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/scale/evalflow"
	"github.com/agentdeck/agentdeck/scale/exchange"
)

// Config is where a run goes.
type Config struct {
	// Client is connected to Temporal (worker.Dial).
	Client client.Client
	// Share is the shared folder the workers were given.
	Share *exchange.Dir
	// BatchSize and Activity tune the workflow (zero: evalflow's defaults).
	BatchSize int
	Activity  evalflow.ActivityTimeouts
	// Detached makes Stop (ctx) stop waiting, not the run: the workflow
	// goes on, and nothing is collected or ended here (collect it later).
	Detached bool
	// Started, if set, is told the workflow's id once it runs.
	Started func(workflowID string)
	// Progress, if set, is told how many cells are in the shared folder
	// (of the run's planned, when known; 0 when not) as that changes,
	// read every ProgressEvery (default 2 s).
	Progress      func(home, planned int)
	ProgressEvery time.Duration
	Logger        *slog.Logger
}

// DB is what submitting uses of this side's database.
type DB interface {
	eval.SuiteStore
	exchange.Target
}

// Outcome is how a submitted run ended.
type Outcome struct {
	Run       store.EvalRun
	Collected exchange.Collected
	// Failed counts the cells that failed for good with nothing stored.
	Failed int
}

// WorkflowID is the workflow a run runs as.
func WorkflowID(runID string) string { return "agentdeck-eval-" + runID }

// Run runs sr's cells on the workers and collects them into db.
func Run(ctx context.Context, db DB, sr *eval.SuiteRun, cfg Config) (Outcome, error) {
	// The run is stored: it is ended whatever happens.
	end := ender(ctx, db, sr.Run.ID)
	if sr.Run.Capture == "replay" {
		return end(store.EvalFailed, Outcome{}, apperr.New(apperr.Invalid, "A replay needs no model and reads this database's recordings: run it here, without --temporal."))
	}
	if err := cfg.Share.PutRun(sr.Run); err != nil {
		return end(store.EvalFailed, Outcome{}, err)
	}
	in, err := inputOf(sr)
	if err != nil {
		return end(store.EvalFailed, Outcome{}, err)
	}
	in.BatchSize, in.Options = cfg.BatchSize, cfg.Activity
	id := WorkflowID(sr.Run.ID)
	we, err := cfg.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: evalflow.TaskQueue}, evalflow.SuiteRun, in)
	if err != nil {
		return end(store.EvalFailed, Outcome{}, apperr.Wrap(err, apperr.Unavailable, "Temporal did not start the run: %v", err))
	}
	if cfg.Started != nil {
		cfg.Started(id)
	}
	return wait(ctx, db, sr.Run.ID, we, cfg)
}

// Resume waits for the workflow of a run started here earlier, by a
// process that ended before it (killed, or the machine restarted), and
// collects it: what Run would have done had it lived. A run whose
// workflow has ended is collected at once.
func Resume(ctx context.Context, db DB, runID string, cfg Config) (Outcome, error) {
	if _, err := db.EvalRun(ctx, runID); err != nil {
		return Outcome{}, err
	}
	return wait(ctx, db, runID, cfg.Client.GetWorkflow(ctx, WorkflowID(runID), ""), cfg)
}

// wait waits for the run's workflow (Stop, ctx, cancels it and waits for
// its cells to end), collects every cell home, and ends the run.
func wait(ctx context.Context, db DB, runID string, we client.WorkflowRun, cfg Config) (Outcome, error) {
	end := ender(ctx, db, runID)
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	bg := context.WithoutCancel(ctx)
	id := WorkflowID(runID)
	var res evalflow.SuiteRunOutput
	done := make(chan error, 1)
	getCtx := bg // Stop waits for the cancelled run to end
	if cfg.Detached {
		getCtx = ctx // Stop stops waiting
	}
	go func() { done <- we.Get(getCtx, &res) }()
	stopWatching := watch(cfg, runID, planned(ctx, db, runID))
	defer stopWatching()
	state := store.EvalCompleted
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		if cfg.Detached {
			<-done
			return Outcome{}, apperr.New(apperr.Cancelled, "Stopped waiting; run %s goes on. Collect it later with: agentdeck-worker collect %s", runID, runID)
		}
		log.Info("stopping the run", "workflow", id)
		if cerr := cfg.Client.CancelWorkflow(bg, id, ""); cerr != nil {
			log.Warn("cancelling the run's workflow", "workflow", id, "err", cerr)
		}
		err = <-done
		state = store.EvalCancelled
	}
	var cancelled *temporal.CanceledError
	var notFound *serviceerror.NotFound
	switch {
	case err == nil:
	case errors.As(err, &cancelled):
		state, err = store.EvalCancelled, nil
	case errors.As(err, &notFound):
		return end(store.EvalFailed, Outcome{}, apperr.Wrap(err, apperr.NotFound, "Temporal has no workflow %s: was the run started on this Temporal server and namespace?", id))
	default:
		state, err = store.EvalFailed, apperr.Wrap(err, apperr.Unavailable, "The run's workflow failed: %v", err)
	}

	out := Outcome{}
	scores := append(res.Scores, batchScores(bg, cfg.Client, res.Batches, log)...)
	chosen := map[exchange.Key]string{}
	for _, s := range scores {
		if s.ResultID != "" {
			chosen[exchange.Key{CaseID: s.CaseID, Model: s.Model, Repeat: s.Repeat}] = s.ResultID
		}
	}
	collected, cerr := cfg.Share.Collect(bg, db, runID, chosen)
	out.Collected = collected
	if cerr != nil {
		return end(store.EvalFailed, out, errors.Join(err, cerr))
	}
	failed, ferr := storeFailures(bg, db, runID, scores)
	out.Failed = failed
	return end(state, out, errors.Join(err, ferr))
}

// watch tells cfg.Progress how many cells are home, as that changes,
// until the returned func is called.
func watch(cfg Config, runID string, total int) (stop func()) {
	if cfg.Progress == nil {
		return func() {}
	}
	every := cfg.ProgressEvery
	if every <= 0 {
		every = 2 * time.Second
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		last := -1
		for {
			if n, err := cfg.Share.CellsPut(runID); err == nil && n != last {
				last = n
				if total > 0 {
					n = min(n, total) // cells put twice can pass the total
				}
				cfg.Progress(n, total)
			}
			select {
			case <-quit:
				return
			case <-tick.C:
			}
		}
	}()
	return func() { close(quit); <-done }
}

// planned is how many cells the run has, from its stored suite (0 when
// it cannot be read: the count then goes without a total).
func planned(ctx context.Context, db DB, runID string) int {
	run, err := db.EvalRun(ctx, runID)
	if err != nil {
		return 0
	}
	return eval.PlannedOf(run)
}

// inputOf is the workflow's input for sr: its matrix, which must make
// the cells eval made.
func inputOf(sr *eval.SuiteRun) (evalflow.SuiteRunInput, error) {
	var s eval.Suite
	if err := json.Unmarshal(sr.Run.Suite, &s); err != nil {
		return evalflow.SuiteRunInput{}, apperr.Wrap(err, apperr.Internal, "The suite stored with run %s cannot be read.", sr.Run.ID)
	}
	in := evalflow.InputOf(sr.Run.ID, &s)
	if got, want := in.Cells(), sr.Cells(); !slices.Equal(got, want) {
		return evalflow.SuiteRunInput{}, apperr.New(apperr.Internal, "Run %s's %d cells and its matrix's %d differ.", sr.Run.ID, len(want), len(got))
	}
	return in, nil
}

// batchScores are the scores of a fanned-out run's child workflows, read
// from each one's result. One that cannot be read is logged and left
// out: its cells come home all the same, each keeping the result that
// ended last.
func batchScores(ctx context.Context, tc client.Client, ids []string, log *slog.Logger) []evalflow.CellScore {
	var all []evalflow.CellScore
	for _, id := range ids {
		var scores []evalflow.CellScore
		if err := tc.GetWorkflow(ctx, id, "").Get(ctx, &scores); err != nil {
			log.Warn("reading a batch's scores", "workflow", id, "err", err)
			continue
		}
		all = append(all, scores...)
	}
	return all
}

// ender returns what ends the run: it stores state (whatever else failed,
// and whatever became of ctx) and reads the run back into the outcome.
func ender(ctx context.Context, db DB, runID string) func(state string, out Outcome, err error) (Outcome, error) {
	bg := context.WithoutCancel(ctx)
	return func(state string, out Outcome, err error) (Outcome, error) {
		if endErr := db.EndEvalRun(bg, runID, state); endErr != nil {
			return out, errors.Join(err, endErr)
		}
		run, readErr := db.EvalRun(bg, runID)
		out.Run = run
		return out, errors.Join(err, readErr)
	}
}

// storeFailures stores an error result for each cell that failed for good
// and has no result here.
func storeFailures(ctx context.Context, db DB, runID string, scores []evalflow.CellScore) (int, error) {
	have, err := db.EvalResults(ctx, runID)
	if err != nil {
		return 0, err
	}
	stored := map[exchange.Key]bool{}
	for _, r := range have {
		stored[exchange.Key{CaseID: r.CaseID, Model: r.Model, Repeat: r.Repeat}] = true
	}
	n := 0
	for _, s := range scores {
		k := exchange.Key{CaseID: s.CaseID, Model: s.Model, Repeat: s.Repeat}
		if s.State != store.EvalError || s.ResultID != "" || stored[k] {
			continue
		}
		msg := s.Error
		if msg == "" {
			msg = "The case failed on every attempt."
		}
		if err := db.PutEvalResult(ctx, store.EvalResult{ID: turn.NewID(), RunID: runID, CaseID: s.CaseID, Model: s.Model, Repeat: s.Repeat,
			State: store.EvalError, Error: msg}); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

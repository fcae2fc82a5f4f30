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
	"errors"
	"log/slog"

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
	// Started, if set, is told the workflow's id once it runs.
	Started func(workflowID string)
	Logger  *slog.Logger
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
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if sr.Run.Capture == "replay" {
		return Outcome{}, apperr.New(apperr.Invalid, "A replay needs no model and reads this database's recordings: run it here, without --temporal.")
	}
	// Past this point the run is stored: it is ended whatever happens.
	bg := context.WithoutCancel(ctx)
	end := func(state string, out Outcome, err error) (Outcome, error) {
		if endErr := db.EndEvalRun(bg, sr.Run.ID, state); endErr != nil {
			return out, errors.Join(err, endErr)
		}
		run, readErr := db.EvalRun(bg, sr.Run.ID)
		out.Run = run
		return out, errors.Join(err, readErr)
	}
	if err := cfg.Share.PutRun(sr.Run); err != nil {
		return end(store.EvalFailed, Outcome{}, err)
	}
	id := WorkflowID(sr.Run.ID)
	we, err := cfg.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: evalflow.TaskQueue}, evalflow.SuiteRun,
		evalflow.SuiteRunInput{RunID: sr.Run.ID, Cells: sr.Cells(), BatchSize: cfg.BatchSize, Options: cfg.Activity})
	if err != nil {
		return end(store.EvalFailed, Outcome{}, apperr.Wrap(err, apperr.Unavailable, "Temporal did not start the run: %v", err))
	}
	if cfg.Started != nil {
		cfg.Started(id)
	}

	var res evalflow.SuiteRunOutput
	done := make(chan error, 1)
	go func() { done <- we.Get(bg, &res) }()
	state := store.EvalCompleted
	select {
	case err = <-done:
	case <-ctx.Done():
		log.Info("stopping the run", "workflow", id)
		if cerr := cfg.Client.CancelWorkflow(bg, id, ""); cerr != nil {
			log.Warn("cancelling the run's workflow", "workflow", id, "err", cerr)
		}
		err = <-done
		state = store.EvalCancelled
	}
	var cancelled *temporal.CanceledError
	switch {
	case err == nil:
	case errors.As(err, &cancelled):
		state, err = store.EvalCancelled, nil
	default:
		state, err = store.EvalFailed, apperr.Wrap(err, apperr.Unavailable, "The run's workflow failed: %v", err)
	}

	out := Outcome{}
	chosen := map[exchange.Key]string{}
	for _, s := range res.Scores {
		if s.ResultID != "" {
			chosen[exchange.Key{CaseID: s.CaseID, Model: s.Model, Repeat: s.Repeat}] = s.ResultID
		}
	}
	collected, cerr := cfg.Share.Collect(bg, db, sr.Run.ID, chosen)
	out.Collected = collected
	if cerr != nil {
		return end(store.EvalFailed, out, errors.Join(err, cerr))
	}
	failed, ferr := storeFailures(bg, db, sr.Run.ID, res.Scores)
	out.Failed = failed
	return end(state, out, errors.Join(err, ferr))
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

// Package worker is an agentdeck-worker: the engine over a database of
// its own, running the cells Temporal gives it.
//
// Rules:
//   - A worker's turns and recordings are written to its own database
//     first; a cell goes home through the shared folder (exchange) only
//     once it has ended there.
//   - A worker needs no copy of the suite beforehand: the first cell of a
//     run copies the run from the shared folder into its database.
//   - A cell whose model call may pass later (a 429, a 5xx, a dead
//     server) is given back to Temporal to retry, not stored as ended.
//   - Stopping the worker (ctx) stops taking cells and lets the running
//     ones be stopped through Temporal; nothing here outlives Serve.
package worker

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/setup"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/scale/evalflow"
	"github.com/agentdeck/agentdeck/scale/exchange"
)

// Cells runs a worker's cells: evalflow's CellRunner over this worker's
// database, which puts each ended cell in the shared folder.
type Cells struct {
	db     *store.DB
	runner *eval.CellRunner // gives back failures that may pass later
	last   *eval.CellRunner // stores them: for a cell's last attempt
	share  *exchange.Dir
	name   string

	mu   sync.Mutex
	runs map[string]*eval.LoadedRun // runs already copied from the shared folder, read
}

// NewCells returns the cells of worker name, run on db by turns (the
// engine's runner), and exchanged through share.
func NewCells(db *store.DB, turns eval.Turns, log *slog.Logger, share *exchange.Dir, name string) *Cells {
	return &Cells{db: db, runner: eval.NewCellRunner(db, turns, nil, log).GiveBackRetryable(), last: eval.NewCellRunner(db, turns, nil, log),
		share: share, name: name, runs: map[string]*eval.LoadedRun{}}
}

// RunCell runs one cell and puts it in the shared folder. A model
// failure that may pass later is given back to be retried, unless this
// is the cell's last attempt: then it is the cell's result.
func (c *Cells) RunCell(ctx context.Context, in eval.Cell, last bool) (eval.CellOutput, error) {
	run, err := c.loadRun(ctx, in.RunID)
	if err != nil {
		return eval.CellOutput{}, err
	}
	runner := c.runner
	if last {
		runner = c.last
	}
	out, err := runner.RunCell(ctx, run, in)
	if err != nil {
		return out, err
	}
	// A stopped cell is stored cancelled, and goes home as that.
	if err := c.share.PutCell(context.WithoutCancel(ctx), c.db, c.name, in.RunID, out.ResultID); err != nil {
		return out, err
	}
	return out, nil
}

// loadRun is run runID with its suite read: copied from the shared folder
// into this worker's database by its first cell here, and read once for
// all the cells of the run this worker is given.
func (c *Cells) loadRun(ctx context.Context, runID string) (*eval.LoadedRun, error) {
	c.mu.Lock()
	lr := c.runs[runID]
	c.mu.Unlock()
	if lr != nil {
		return lr, nil
	}
	run, err := c.share.Run(runID)
	if err != nil {
		return nil, err
	}
	if run.Capture == "replay" {
		return nil, apperr.New(apperr.Invalid, "Run %s replays recordings, which are in the database that started it: replay it there.", runID)
	}
	if _, err := c.db.CopyEvalRun(ctx, run); err != nil {
		return nil, err
	}
	if lr, err = eval.LoadRun(ctx, c.db, runID); err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.runs[runID] = lr
	c.mu.Unlock()
	return lr, nil
}

// Config is how a worker runs.
type Config struct {
	// HostPort is the Temporal frontend, e.g. 127.0.0.1:7233.
	HostPort  string
	Namespace string // default "default"
	// DBPath is this worker's own database; Share the shared folder.
	DBPath string
	Share  string
	// Name names the worker in scores (default: Temporal's identity).
	Name string
	// Concurrency is how many cells run at once here (default 4).
	Concurrency int
	// Heartbeat is how often a running cell heartbeats (default 2 s).
	Heartbeat time.Duration
	Logger    *slog.Logger
}

// Serve runs the worker until ctx ends.
func Serve(ctx context.Context, cfg Config) error {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	share, err := exchange.New(cfg.Share)
	if err != nil {
		return err
	}
	db, err := store.Open(ctx, cfg.DBPath, store.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	eng, err := setup.Build(ctx, db, setup.Options{DataDir: filepath.Dir(cfg.DBPath), Logger: log})
	if err != nil {
		return err
	}
	defer eng.Close()

	tc, err := Dial(cfg.HostPort, cfg.Namespace, log)
	if err != nil {
		return err
	}
	defer tc.Close()
	name := cfg.Name
	if name == "" {
		host, _ := os.Hostname()
		name = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	w := worker.New(tc, evalflow.TaskQueue, worker.Options{
		MaxConcurrentActivityExecutionSize: max(cfg.Concurrency, 1),
		Identity:                           name,
		// Stopping the worker gives a running cell a moment to store
		// itself; Temporal gives what is left to another worker.
		WorkerStopTimeout: 10 * time.Second,
	})
	cells := NewCells(db, eng.Runner, log, share, name)
	evalflow.Register(w, &evalflow.Activities{Cases: cells, Worker: name, HeartbeatEvery: cfg.Heartbeat})
	if err := w.Start(); err != nil {
		return apperr.Wrap(err, apperr.Unavailable, "The worker could not start on Temporal at %s: %v", cfg.HostPort, err)
	}
	log.Info("worker started", "name", name, "temporal", cfg.HostPort, "db", cfg.DBPath, "share", cfg.Share)
	<-ctx.Done()
	w.Stop()
	return nil
}

// Dial connects to Temporal at hostPort, logging through log.
func Dial(hostPort, namespace string, log *slog.Logger) (client.Client, error) {
	if hostPort == "" {
		return nil, apperr.New(apperr.Invalid, "Name the Temporal server: --temporal HOST:PORT.")
	}
	if namespace == "" {
		namespace = "default"
	}
	c, err := client.Dial(client.Options{HostPort: hostPort, Namespace: namespace, Logger: tlog.NewStructuredLogger(log)})
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Unavailable, "Temporal at %s does not answer (%v); check that it runs and the address is right.", hostPort, err)
	}
	return c, nil
}

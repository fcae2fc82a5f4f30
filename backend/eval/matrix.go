package eval

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"sync"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/store"
)

// Running a suite: its cases × models × repeats, each through RunCell, a
// few at a time. The run stores the suite as it ran (the models, repeat
// and cases left after the options), so a replay, a diff or a later look
// at it reads exactly what was run.

// RunOptions change what a run of a suite runs.
type RunOptions struct {
	// Models replaces the suite's models ("provider/model" each).
	Models []string
	// Filter keeps the cases whose id matches it.
	Filter *regexp.Regexp
	// Repeat replaces the suite's repeat (0: the suite's, else 1).
	Repeat int
	// Concurrency is how many cases run at once (default 1).
	Concurrency int
	// Capture is record (default), replay or auto. A replay serves the
	// recordings of run FromRunID: "" is the suite's latest run that
	// recorded.
	Capture   string
	FromRunID string
}

// Progress is told of each case as it ends: done of total have ended.
type Progress func(done, total int, in Cell, out CellOutput, err error)

// SuiteStore is what running a whole suite needs of the database.
type SuiteStore interface {
	Store
	CreateEvalRun(ctx context.Context, r store.EvalRun) (store.EvalRun, error)
	EndEvalRun(ctx context.Context, id, state string) error
	EvalRuns(ctx context.Context, suite string, limit int) ([]store.EvalRun, error)
}

// RunSuite runs s with opts and returns the run as it ended. Cancelling
// ctx (Stop, SIGINT) stops the running cases, which are stored as
// cancelled, starts no more, and ends the run cancelled. A case that could
// not run is an error result; the run still completes.
func RunSuite(ctx context.Context, db SuiteStore, r *CellRunner, s *Suite, opts RunOptions, progress Progress) (store.EvalRun, error) {
	sr, err := NewSuiteRun(ctx, db, s, opts)
	if err != nil {
		return store.EvalRun{}, err
	}
	return sr.Execute(ctx, r, progress)
}

// SuiteRun is a run stored and about to run: RunSuite in two steps, for a
// caller that shows the run before its first case ends (the window).
type SuiteRun struct {
	Run         store.EvalRun
	loaded      *LoadedRun // the run with its suite read, once for all its cells
	db          SuiteStore
	cells       []Cell
	concurrency int
}

// NewSuiteRun stores a run of s with opts, running, with nothing run yet.
func NewSuiteRun(ctx context.Context, db SuiteStore, s *Suite, opts RunOptions) (*SuiteRun, error) {
	ran, err := effective(s, opts)
	if err != nil {
		return nil, err
	}
	capture := opts.Capture
	if capture == "" {
		capture = "record"
	}
	from := opts.FromRunID
	if capture == "replay" && from == "" {
		if from, err = latestRecorded(ctx, db, s.Name); err != nil {
			return nil, err
		}
	}
	raw, err := json.Marshal(ran)
	if err != nil {
		return nil, err
	}
	run, err := db.CreateEvalRun(ctx, store.EvalRun{SuiteName: s.Name, SuiteFile: s.Source, Suite: raw, Capture: capture, FromRunID: from})
	if err != nil {
		return nil, err
	}
	lr, err := loaded(run)
	if err != nil {
		return nil, err
	}
	return &SuiteRun{Run: run, loaded: lr, db: db, cells: matrix(run.ID, ran), concurrency: max(opts.Concurrency, 1)}, nil
}

// Planned is how many cells the run has.
func (sr *SuiteRun) Planned() int { return len(sr.cells) }

// Cells are the run's cells, case by case: what a scheduler elsewhere
// runs instead of Execute (scale/, issue 26).
func (sr *SuiteRun) Cells() []Cell { return append([]Cell(nil), sr.cells...) }

// Execute runs the run's cells through r, a few at a time, and ends the
// run: completed, or cancelled when ctx was.
func (sr *SuiteRun) Execute(ctx context.Context, r *CellRunner, progress Progress) (store.EvalRun, error) {
	cells := sr.cells
	work := make(chan Cell)
	var (
		mu   sync.Mutex
		done int
		wg   sync.WaitGroup
	)
	for range sr.concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for in := range work {
				if ctx.Err() != nil {
					continue // stopped: start no more (the feed may have won a race with Stop)
				}
				out, err := r.RunCell(ctx, sr.loaded, in)
				mu.Lock()
				done++
				if progress != nil {
					progress(done, len(cells), in, out, err)
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, in := range cells {
		select {
		case work <- in:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()

	state := store.EvalCompleted
	if ctx.Err() != nil {
		state = store.EvalCancelled
	}
	if err := sr.db.EndEvalRun(context.WithoutCancel(ctx), sr.Run.ID, state); err != nil {
		return sr.Run, err
	}
	return sr.db.EvalRun(context.WithoutCancel(ctx), sr.Run.ID)
}

// effective is s as opts run it.
func effective(s *Suite, opts RunOptions) (*Suite, error) {
	ran := *s
	if len(opts.Models) > 0 {
		ran.Models = append([]string(nil), opts.Models...)
	}
	if opts.Repeat > 0 {
		ran.Repeat = opts.Repeat
	}
	if ran.Repeat < 1 {
		ran.Repeat = 1
	}
	if opts.Filter != nil {
		ran.Cases = nil
		for _, c := range s.Cases {
			if opts.Filter.MatchString(c.ID) {
				ran.Cases = append(ran.Cases, c)
			}
		}
		if len(ran.Cases) == 0 {
			return nil, apperr.New(apperr.Invalid, "No case of suite %s has an id matching %q.", s.Name, opts.Filter.String())
		}
	}
	if len(ran.Models) == 0 {
		return nil, apperr.New(apperr.Invalid, "Suite %s names no model to run; list some under models, or pass --models.", s.Name)
	}
	return &ran, nil
}

// matrix is every case × model × repeat of s, case by case.
func matrix(runID string, s *Suite) []Cell {
	var cells []Cell
	for _, c := range s.Cases {
		for _, m := range s.Models {
			for rep := 1; rep <= s.Repeat; rep++ {
				cells = append(cells, Cell{RunID: runID, CaseID: c.ID, Model: m, Repeat: rep})
			}
		}
	}
	return cells
}

// latestRecorded is the newest run of the suite that recorded its calls.
func latestRecorded(ctx context.Context, db SuiteStore, suite string) (string, error) {
	runs, err := db.EvalRuns(ctx, suite, 1000)
	if err != nil {
		return "", err
	}
	for _, r := range runs {
		if r.Capture != "replay" {
			return r.ID, nil
		}
	}
	return "", apperr.Wrap(errors.New("no recorded run"), apperr.NotFound,
		"Suite %s has no recorded run to replay: run it once with --capture record (the default).", suite)
}

package evalflow

import (
	"errors"
	"strconv"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agentdeck/agentdeck/backend/eval"
)

// TaskQueue is where runs' cells wait for a worker.
const TaskQueue = "agentdeck-eval"

// DefaultBatchSize is how many cells one workflow runs before a run fans
// out in child workflows: 500 activities keep a history far below
// Temporal's 50,000 events.
const DefaultBatchSize = 500

// SuiteRunInput is a stored run's matrix, ids only. Its cells (Cells) are
// made in the workflow, not listed: a payload is limited to 2 MB, and a
// run of 40,000 cells listed would pass that; its case ids do not.
type SuiteRunInput struct {
	RunID   string   `json:"run_id"`
	CaseIDs []string `json:"case_ids"`
	Models  []string `json:"models"`
	Repeat  int      `json:"repeat"`
	// BatchSize is how many cells a workflow runs itself (0: DefaultBatchSize).
	BatchSize int `json:"batch_size,omitempty"`
	// Options are the cells' activity options (zero: DefaultActivity).
	Options ActivityTimeouts `json:"options"`
}

// InputOf is the matrix of suite s (as a run stores it, after its options:
// eval.SuiteRun) for run runID.
func InputOf(runID string, s *eval.Suite) SuiteRunInput {
	in := SuiteRunInput{RunID: runID, Models: s.Models, Repeat: max(s.Repeat, 1)}
	for _, c := range s.Cases {
		in.CaseIDs = append(in.CaseIDs, c.ID)
	}
	return in
}

// Cells are every case × model × repeat, case by case: the order
// eval.SuiteRun.Cells gives.
func (in SuiteRunInput) Cells() []eval.Cell {
	cells := make([]eval.Cell, 0, len(in.CaseIDs)*len(in.Models)*max(in.Repeat, 1))
	for _, c := range in.CaseIDs {
		for _, m := range in.Models {
			for rep := 1; rep <= max(in.Repeat, 1); rep++ {
				cells = append(cells, eval.Cell{RunID: in.RunID, CaseID: c, Model: m, Repeat: rep})
			}
		}
	}
	return cells
}

// ActivityTimeouts bound a cell's activity.
type ActivityTimeouts struct {
	// StartToClose is the longest a cell may run (its turn, and a judge's).
	StartToClose time.Duration `json:"start_to_close,omitempty"`
	// Heartbeat is how long a cell may go without a heartbeat before its
	// worker is taken for dead and the cell is given to another.
	Heartbeat time.Duration `json:"heartbeat,omitempty"`
	// MaxAttempts bounds the retries of a retryable failure.
	MaxAttempts int32 `json:"max_attempts,omitempty"`
}

// DefaultActivity is a cell's bounds when a run names none.
// The SDK sends heartbeats at most every 80% of Heartbeat, so a Stop reaches
// a running cell within about 8 s, and a dead worker is noticed in 10.
var DefaultActivity = ActivityTimeouts{StartToClose: 30 * time.Minute, Heartbeat: 10 * time.Second, MaxAttempts: 5}

// CellScore is what came of one cell, as the workflow carries it home.
type CellScore struct {
	eval.Cell
	ResultID  string  `json:"result_id"`
	SessionID string  `json:"session_id"`
	TurnID    string  `json:"turn_id"`
	State     string  `json:"state"`
	Score     float64 `json:"score"`
	// Worker names the worker whose database holds the cell's turn.
	Worker string `json:"worker"`
	// Error says why a cell that failed for good has no result (state
	// error, no ResultID): what its last attempt failed on.
	Error string `json:"error,omitempty"`
}

// SuiteRunOutput is what came of a run's cells: their scores in the order
// of Cells when the run ran them itself; when it fanned out, the child
// workflows', in order, each of whose results is its batch's scores
// (carrying them all home in one payload would pass its 2 MB limit).
type SuiteRunOutput struct {
	Scores  []CellScore `json:"scores,omitempty"`
	Batches []string    `json:"batches,omitempty"`
}

// SuiteRun runs a run's cells: itself when they fit in a batch, else in
// a child workflow per batch, all at once. Stop (cancelling it) cancels
// every cell and waits for each to end, so a run ends after its cells.
func SuiteRun(ctx workflow.Context, in SuiteRunInput) (SuiteRunOutput, error) {
	size := in.BatchSize
	if size <= 0 {
		size = DefaultBatchSize
	}
	cells := in.Cells()
	if len(cells) <= size {
		scores, err := Batch(ctx, BatchInput{Cells: cells, Options: in.Options})
		return SuiteRunOutput{Scores: scores}, err
	}
	var (
		out     SuiteRunOutput
		futures []workflow.ChildWorkflowFuture
	)
	for start := 0; start < len(cells); start += size {
		end := min(start+size, len(cells))
		id := workflow.GetInfo(ctx).WorkflowExecution.ID + "-batch-" + strconv.Itoa(start/size)
		cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: id, WaitForCancellation: true})
		futures = append(futures, workflow.ExecuteChildWorkflow(cctx, Batch, BatchInput{Cells: cells[start:end], Options: in.Options}))
		out.Batches = append(out.Batches, id)
	}
	var firstErr error
	for _, f := range futures {
		if err := f.Get(ctx, nil); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return out, firstErr
}

// BatchInput is some of a run's cells.
type BatchInput struct {
	Cells   []eval.Cell      `json:"cells"`
	Options ActivityTimeouts `json:"options"`
}

// Batch runs cells as activities, all started at once: the workers'
// own limits say how many run at a time. A cell that failed for good is
// a score with state error; the batch goes on.
func Batch(ctx workflow.Context, in BatchInput) ([]CellScore, error) {
	opts := activityOptions(in.Options)
	ctx = workflow.WithActivityOptions(ctx, opts)
	futures := make([]workflow.Future, len(in.Cells))
	for i, c := range in.Cells {
		futures[i] = workflow.ExecuteActivity(ctx, ActivityRunCell, c, opts.RetryPolicy.MaximumAttempts)
	}
	scores := make([]CellScore, len(in.Cells))
	var cancelled error
	for i, f := range futures {
		// Every future is waited for, also after Stop: a cell not started
		// ends at once, but a running one only once its worker has stored
		// it cancelled (WaitForCancellation), and the run must not end
		// before its cells have.
		if err := f.Get(ctx, &scores[i]); err != nil {
			if temporal.IsCanceledError(err) || ctx.Err() != nil {
				cancelled = err
				scores[i] = CellScore{Cell: in.Cells[i], State: "cancelled"}
				continue
			}
			scores[i] = CellScore{Cell: in.Cells[i], State: "error", Error: messageOf(err)}
			workflow.GetLogger(ctx).Warn("a cell failed for good", "case", in.Cells[i].CaseID, "model", in.Cells[i].Model, "repeat", in.Cells[i].Repeat, "err", err)
		}
	}
	return scores, cancelled
}

// messageOf is what a cell's activity failed on, for people: the
// application error's message (ours, see Classify), else the error's.
func messageOf(err error) string {
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) {
		return ae.Message()
	}
	var te *temporal.TimeoutError
	if errors.As(err, &te) {
		return "The cell's worker stopped answering, on every attempt: " + te.Error()
	}
	return err.Error()
}

// ActivityRunCell is the registered name of Activities.RunCell. It
// stays "RunCase", the name it had when cells were called cases, so
// workflows already in a Temporal history still find their activity.
const ActivityRunCell = "RunCase"

func activityOptions(t ActivityTimeouts) workflow.ActivityOptions {
	if t.StartToClose <= 0 {
		t.StartToClose = DefaultActivity.StartToClose
	}
	if t.Heartbeat <= 0 {
		t.Heartbeat = DefaultActivity.Heartbeat
	}
	if t.MaxAttempts <= 0 {
		t.MaxAttempts = DefaultActivity.MaxAttempts
	}
	return workflow.ActivityOptions{
		TaskQueue:           TaskQueue,
		StartToCloseTimeout: t.StartToClose,
		HeartbeatTimeout:    t.Heartbeat,
		// Stop waits for a cell to store itself cancelled.
		WaitForCancellation: true,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:    time.Second,
			BackoffCoefficient: 2,
			MaximumInterval:    time.Minute,
			MaximumAttempts:    t.MaxAttempts,
		},
	}
}

// Registry is where a worker (or a test's environment) registers the
// workflows and the cell activity.
type Registry interface {
	RegisterWorkflow(w any)
	RegisterActivityWithOptions(a any, options activity.RegisterOptions)
}

// Register registers SuiteRun, Batch and acts.RunCell under their names.
func Register(r Registry, acts *Activities) {
	r.RegisterWorkflow(SuiteRun)
	r.RegisterWorkflow(Batch)
	r.RegisterActivityWithOptions(acts.RunCell, activity.RegisterOptions{Name: ActivityRunCell})
}

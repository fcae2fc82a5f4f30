package evalflow

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/store"
)

// fakeCases runs cells in memory: each cell fails with its errors in
// turn, then passes; "slow" cells wait for their context to end.
type fakeCases struct {
	mu        sync.Mutex
	calls     map[string]int
	fail      map[string][]error
	cancelled []string
	lasts     []int         // the calls (1-based) of "busy-always" told they were the last
	started   chan struct{} // a slow cell started
	stopped   chan struct{} // a slow cell saw its context end
}

func newFake() *fakeCases {
	return &fakeCases{calls: map[string]int{}, fail: map[string][]error{}, started: make(chan struct{}, 8), stopped: make(chan struct{}, 8)}
}

func (f *fakeCases) RunCell(ctx context.Context, in eval.Cell, last bool) (eval.CellOutput, error) {
	key := fmt.Sprintf("%s/%s/%d", in.CaseID, in.Model, in.Repeat)
	f.mu.Lock()
	n := f.calls[key]
	f.calls[key]++
	errs := f.fail[key]
	f.mu.Unlock()
	if in.CaseID == "busy-always" {
		if !last {
			return eval.CellOutput{}, &llm.Error{Kind: llm.ErrRateLimited, Status: 429, Message: "Too many requests."}
		}
		f.mu.Lock()
		f.lasts = append(f.lasts, n+1)
		f.mu.Unlock()
		return eval.CellOutput{ResultID: "r-" + key, TurnID: "t-" + key, State: store.EvalError}, nil
	}
	if n < len(errs) {
		return eval.CellOutput{}, errs[n]
	}
	if in.CaseID == "slow" {
		f.started <- struct{}{}
		<-ctx.Done()
		f.mu.Lock()
		f.cancelled = append(f.cancelled, key)
		f.mu.Unlock()
		f.stopped <- struct{}{}
		return eval.CellOutput{}, ctx.Err()
	}
	return eval.CellOutput{ResultID: "r-" + key, TurnID: "t-" + key, State: store.EvalPassed, Score: 1}, nil
}

func (f *fakeCases) callsOf(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[key]
}

// matrix is a run of the cases given on the model p/m, once each.
func matrix(ids ...string) SuiteRunInput {
	return SuiteRunInput{RunID: "run", CaseIDs: ids, Models: []string{"p/m"}, Repeat: 1}
}

func withOptions(in SuiteRunInput, o ActivityTimeouts) SuiteRunInput {
	in.Options = o
	return in
}

func newEnv(t *testing.T, f *fakeCases) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(time.Minute)
	Register(env, &Activities{Cases: f, Worker: "w1", HeartbeatEvery: time.Second})
	return env
}

// TestSuiteRun: a run's cells (case × model × repeat, case by case) come
// home as one score each, in order, whether the run fits in one workflow
// or fans out in child workflows (whose results hold their batches').
func TestSuiteRun(t *testing.T) {
	for _, tt := range []struct {
		name     string
		batch    int
		children int
	}{
		{"in one workflow", 0, 0},
		{"in batches", 4, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake()
			env := newEnv(t, f)
			batches := map[string][]CellScore{}
			env.SetOnChildWorkflowCompletedListener(func(info *workflow.Info, result converter.EncodedValue, err error) {
				var scores []CellScore
				if err == nil && result.Get(&scores) == nil {
					batches[info.WorkflowExecution.ID] = scores
				}
			})
			in := SuiteRunInput{RunID: "run", CaseIDs: []string{"a", "b", "c", "d", "e"}, Models: []string{"p/m", "p/n"}, Repeat: 1, BatchSize: tt.batch}
			env.ExecuteWorkflow(SuiteRun, in)
			if !env.IsWorkflowCompleted() || env.GetWorkflowError() != nil {
				t.Fatalf("completed %v: %v", env.IsWorkflowCompleted(), env.GetWorkflowError())
			}
			var out SuiteRunOutput
			if err := env.GetWorkflowResult(&out); err != nil {
				t.Fatal(err)
			}
			scores := out.Scores
			for _, id := range out.Batches {
				scores = append(scores, batches[id]...)
			}
			var got string
			for _, s := range scores {
				got += s.CaseID + "/" + s.Model + ":" + s.State + ":" + s.Worker + " "
			}
			want := ""
			for _, c := range []string{"a", "b", "c", "d", "e"} {
				want += c + "/p/m:passed:w1 " + c + "/p/n:passed:w1 "
			}
			if got != want {
				t.Fatalf("scores %q, want %q", got, want)
			}
			if len(out.Batches) != tt.children || len(batches) != tt.children {
				t.Fatalf("%d child workflows (%d ended), want %d", len(out.Batches), len(batches), tt.children)
			}
		})
	}
}

// TestCellsMatchEval: the workflow makes a run's cells in the order and
// with the ids eval gives them.
func TestCellsMatchEval(t *testing.T) {
	s := &eval.Suite{Name: "s", Models: []string{"p/m", "q/n"}, Repeat: 2, Cases: []eval.Case{{ID: "x"}, {ID: "y"}}}
	got := InputOf("run", s).Cells()
	var want []eval.Cell
	for _, c := range []string{"x", "y"} {
		for _, m := range s.Models {
			for rep := 1; rep <= 2; rep++ {
				want = append(want, eval.Cell{RunID: "run", CaseID: c, Model: m, Repeat: rep})
			}
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("cells %v, want %v", got, want)
	}
}

// TestRetries: a rate limit and a server error are retried until the cell
// passes; a bad suite is not retried and is scored an error, with its
// reason; the batch goes on past it.
func TestRetries(t *testing.T) {
	f := newFake()
	f.fail["busy/p/m/1"] = []error{
		&llm.Error{Kind: llm.ErrRateLimited, Status: 429, Message: "Too many requests."},
		&llm.Error{Kind: llm.ErrServer, Status: 502, Message: "Bad gateway."},
	}
	f.fail["bad/p/m/1"] = []error{apperr.New(apperr.Invalid, "Suite s has no case %q.", "bad")}
	f.fail["auth/p/m/1"] = []error{&llm.Error{Kind: llm.ErrAuth, Status: 401, Message: "The API key was refused."}}
	env := newEnv(t, f)
	env.ExecuteWorkflow(SuiteRun, matrix("busy", "bad", "auth", "fine"))
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var out SuiteRunOutput
	if err := env.GetWorkflowResult(&out); err != nil {
		t.Fatal(err)
	}
	states, errs := map[string]string{}, map[string]string{}
	for _, s := range out.Scores {
		states[s.CaseID], errs[s.CaseID] = s.State, s.Error
	}
	if states["busy"] != store.EvalPassed || states["bad"] != "error" || states["auth"] != "error" || states["fine"] != store.EvalPassed {
		t.Fatalf("states %v", states)
	}
	// A cell failed for good says why, in the words of its last failure.
	if errs["bad"] != `Suite s has no case "bad".` || errs["auth"] != "The API key was refused." || errs["fine"] != "" {
		t.Fatalf("errors %q", errs)
	}
	for key, want := range map[string]int{"busy/p/m/1": 3, "bad/p/m/1": 1, "auth/p/m/1": 1, "fine/p/m/1": 1} {
		if got := f.callsOf(key); got != want {
			t.Errorf("%s ran %d times, want %d", key, got, want)
		}
	}
}

// TestLastAttemptIsStored: a cell whose model is always busy is given
// back on every attempt but the last, which is told it is the last and
// stores the failure as the cell's result, so the cell comes home with
// its turn.
func TestLastAttemptIsStored(t *testing.T) {
	f := newFake()
	env := newEnv(t, f)
	env.ExecuteWorkflow(SuiteRun, withOptions(matrix("busy-always"), ActivityTimeouts{MaxAttempts: 3}))
	var out SuiteRunOutput
	if err := env.GetWorkflowResult(&out); err != nil {
		t.Fatal(err)
	}
	if got := f.callsOf("busy-always/p/m/1"); got != 3 {
		t.Fatalf("ran %d times, want 3", got)
	}
	if len(f.lasts) != 1 || f.lasts[0] != 3 {
		t.Fatalf("the calls told they were the last: %v, want [3]", f.lasts)
	}
	if s := out.Scores[0]; s.State != store.EvalError || s.TurnID == "" || s.ResultID == "" {
		t.Fatalf("the score: %+v", s)
	}
}

// TestStop: cancelling the workflow (Stop) reaches a running cell's
// context, and the run ends cancelled.
func TestStop(t *testing.T) {
	f := newFake()
	env := newEnv(t, f)
	go func() {
		<-f.started
		env.CancelWorkflow()
	}()
	// A short heartbeat timeout: the SDK heartbeats at most every 80% of it,
	// and Stop reaches the cell with a heartbeat.
	env.ExecuteWorkflow(SuiteRun, withOptions(matrix("slow"), ActivityTimeouts{Heartbeat: 2 * time.Second}))
	if err := env.GetWorkflowError(); !temporal.IsCanceledError(err) {
		t.Fatalf("the run ended %v, want cancelled", err)
	}
	// The cell's context ends through its heartbeat (the test's deadline
	// bounds a cell that never hears of Stop).
	<-f.stopped
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.cancelled) != 1 {
		t.Fatalf("cells that saw Stop: %v", f.cancelled)
	}
}

// TestClassify: which failures Temporal retries.
func TestClassify(t *testing.T) {
	for _, tt := range []struct {
		err       error
		retryable bool
		delay     time.Duration
	}{
		{&llm.Error{Kind: llm.ErrRateLimited, Status: 429, RetryAfter: 7 * time.Second}, true, 7 * time.Second},
		{&llm.Error{Kind: llm.ErrServer, Status: 503}, true, 0},
		{&llm.Error{Kind: llm.ErrNetwork}, true, 0},
		{&llm.Error{Kind: llm.ErrBadRequest, Status: 400}, false, 0},
		{&llm.Error{Kind: llm.ErrModelNotFound, Status: 404}, false, 0},
		{apperr.New(apperr.Invalid, "bad suite"), false, 0},
		{apperr.New(apperr.NotFound, "no run"), false, 0},
		{apperr.New(apperr.Unavailable, "disk"), true, 0},
		{apperr.New(apperr.Conflict, "its turn runs"), true, 0},
		{errors.New("a bug"), false, 0},
	} {
		var ae *temporal.ApplicationError
		got := Classify(tt.err)
		if !errors.As(got, &ae) {
			t.Fatalf("%v: not an application error: %T", tt.err, got)
		}
		if ae.NonRetryable() == tt.retryable || ae.NextRetryDelay() != tt.delay {
			t.Errorf("%v: non-retryable %v, delay %v", tt.err, ae.NonRetryable(), ae.NextRetryDelay())
		}
	}
	if err := Classify(context.Canceled); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled cell: %v", err)
	}
}

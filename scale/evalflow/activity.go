package evalflow

import (
	"context"
	"errors"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/llm"
)

// CellRunner runs one cell where the worker keeps its turns:
// eval.CellRunner.RunCell over the worker's own database. A failure that may
// pass later is given back as an error to retry, but on the last attempt
// (last) stored as the cell's result, so the cell comes home with the
// turn that failed.
type CellRunner interface {
	RunCell(ctx context.Context, in eval.Cell, last bool) (eval.CellOutput, error)
}

// Activities are what a worker registers: each cell it is given runs
// through Cases, heartbeating while it runs.
type Activities struct {
	Cases CellRunner
	// Worker names this worker in the scores (whose database holds a
	// cell's turn).
	Worker string
	// HeartbeatEvery is how often a running cell heartbeats (default 2 s;
	// it must be well under the activity's HeartbeatTimeout).
	HeartbeatEvery time.Duration
}

// RunCell runs one cell. Its context ends when the workflow is cancelled
// (Stop) or the server stops hearing the heartbeat; the cell's turn is
// then stopped and stored cancelled by eval.
//
// attempts is the retry policy's most attempts (0: no bound), so the
// last one is known.
func (a *Activities) RunCell(ctx context.Context, in eval.Cell, attempts int32) (CellScore, error) {
	last := attempts > 0 && activity.GetInfo(ctx).Attempt >= attempts
	ctx, stop := a.heartbeat(ctx)
	defer stop()
	out, err := a.Cases.RunCell(ctx, in, last)
	if err != nil {
		return CellScore{}, Classify(err)
	}
	return CellScore{Cell: in, ResultID: out.ResultID, SessionID: out.SessionID, TurnID: out.TurnID, State: out.State, Score: out.Score, Worker: a.Worker}, nil
}

// heartbeat records a heartbeat every HeartbeatEvery until stop, the
// first only at half the activity's heartbeat timeout: each heartbeat
// that reaches the server is a billed action on Temporal Cloud, and the
// SDK sends the first at once, so a cell quicker than that sends none.
// (The SDK then sends at most one per 80% of the timeout.)
func (a *Activities) heartbeat(ctx context.Context) (context.Context, func()) {
	every := a.HeartbeatEvery
	if every <= 0 {
		every = 2 * time.Second
	}
	first := every
	if timeout := activity.GetInfo(ctx).HeartbeatTimeout; timeout > 0 {
		first = max(timeout/2, every)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		wait := time.NewTimer(first)
		defer wait.Stop()
		select {
		case <-ctx.Done():
			return
		case <-wait.C:
		}
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			activity.RecordHeartbeat(ctx)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return ctx, func() { cancel(); <-done }
}

// Classify makes a cell's error one Temporal retries or not: a model
// call that may succeed later (429, 5xx, a dead server) is retried, after
// its Retry-After when it sent one; a bad suite, a bad request or an
// unknown model is not; a cancelled cell is left as cancelled.
func Classify(err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	var le *llm.Error
	if errors.As(err, &le) {
		if !llm.Retryable(err) {
			return temporal.NewNonRetryableApplicationError(le.Message, string(le.Kind), err)
		}
		return temporal.NewApplicationErrorWithOptions(le.Message, string(le.Kind), temporal.ApplicationErrorOptions{Cause: err, NextRetryDelay: le.RetryAfter})
	}
	msg := apperr.MessageOf(err)
	switch code := apperr.CodeOf(err); code {
	case apperr.Unavailable, apperr.Conflict:
		return temporal.NewApplicationErrorWithCause(msg, string(code), err)
	default:
		return temporal.NewNonRetryableApplicationError(msg, string(code), err)
	}
}

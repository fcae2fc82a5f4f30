package runner

import (
	"context"
	"sync"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// A model call that failed has no recording. A replay, or a re-run from a
// step after such a call, fails it again as it failed in the original,
// without reaching a model: otherwise the next recording would answer it,
// and every call after it would get its neighbour's answer.

// failedCalls are the original's model calls that failed, by their index
// in call order (the stages' diagnostics list every call in the order it
// was made, compression summaries included), with how each failed.
func (src *replaySource) failedCalls() map[int]llm.CallDiagnostics {
	out := map[int]llm.CallDiagnostics{}
	i := 0
	for _, s := range src.orig.Stages {
		for _, c := range s.Diagnostics.ModelCalls {
			if !c.OK {
				out[i] = c
			}
			i++
		}
	}
	return out
}

// failAgain serves the original's calls through recorded, failing the
// ones that failed in the original.
func (src *replaySource) failAgain(recorded llm.Client) llm.Client {
	failed := src.failedCalls()
	if len(failed) == 0 {
		return recorded
	}
	return &failedAgain{recorded: recorded, failed: failed}
}

// failedAgain counts the calls it is asked for: call i fails as the
// original's did when it failed there, and goes to recorded otherwise.
type failedAgain struct {
	recorded llm.Client
	failed   map[int]llm.CallDiagnostics

	mu sync.Mutex
	n  int
}

func (c *failedAgain) Stream(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (llm.Response, error) {
	c.mu.Lock()
	i := c.n
	c.n++
	c.mu.Unlock()
	d, ok := c.failed[i]
	if !ok {
		return c.recorded.Stream(ctx, req, fn)
	}
	msg := d.Error
	if msg == "" {
		msg = "the model call failed"
	}
	kind := d.ErrorKind
	if kind == "" {
		kind = llm.ErrBadRequest
	}
	diag := llm.CallDiagnostics{Model: req.Model, StartedAt: d.StartedAt, CompletedAt: d.CompletedAt, Attempts: d.Attempts, RequestMessages: len(req.Messages),
		ErrorKind: kind, Error: msg, Notes: []string{"this call failed in the original turn, which has no recording of it: it failed again without reaching a model"}}
	return llm.Response{Diagnostics: diag}, &llm.Error{Kind: kind, Message: msg}
}

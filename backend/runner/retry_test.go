package runner_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/llm/openai"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/setup"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

// TestRetriesAreEvents: each retry of a model call is a model_retry event
// (the attempt of how many, the status, the wait) emitted before the wait,
// and is kept in the call's diagnostics; a call that never got through
// says in its error how many times it was tried; and a failing server is
// never called "loading" by the wait notice.
func TestRetriesAreEvents(t *testing.T) {
	tests := []struct {
		name      string
		replies   []llmtest.Reply
		ok        bool
		statuses  []int
		minWaitMS int64 // the first retry's wait at least (a Retry-After)
		errHas    string
	}{
		{
			name:      "429 then answered",
			replies:   []llmtest.Reply{llmtest.RateLimited("1"), {Chunks: llmtest.Text("Hello there.", 2)}},
			ok:        true,
			statuses:  []int{429},
			minWaitMS: 1000,
		},
		{
			name: "500 every time",
			replies: []llmtest.Reply{
				llmtest.ErrorReply(500, "", "boom"), llmtest.ErrorReply(500, "", "boom"),
				llmtest.ErrorReply(500, "", "boom"), llmtest.ErrorReply(500, "", "boom"),
			},
			statuses: []int{500, 500, 500},
			errHas:   "(Tried 4 times.)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, db, eng := setuptest.NewEngine(t, func(o *setup.Options) {
				// Notice a silent call at once: a retry must not be one.
				o.WaitNotice = time.Millisecond
				o.ModelCalls = openai.Config{MaxRetries: 3, RetryInitial: time.Millisecond, RetryMax: 2 * time.Second}
			})
			srv := llmtest.NewServer(t)
			for _, r := range tt.replies {
				srv.Enqueue(r)
			}
			sess, _ := db.CreateSession(context.Background(), store.Session{Title: "retries", Model: "m"})
			rec := &turntest.Recorder{}
			h, err := eng.Runner.Start(context.Background(), runner.Request{SessionID: sess.ID, Message: "hello", BaseURL: srv.URL(), Sinks: []turn.Sink{rec}})
			if err != nil {
				t.Fatal(err)
			}
			res := h.Wait()
			all := rec.UntilEnded(t, h.TurnID)
			turntest.Check(t, all)
			if res.OK != tt.ok {
				t.Fatalf("ok = %v (%s), want %v", res.OK, res.Error, tt.ok)
			}
			retries := eventsOf(all, turn.EventModelRetry)
			if len(retries) != len(tt.statuses) {
				t.Fatalf("%d model_retry events, want %d", len(retries), len(tt.statuses))
			}
			for i, e := range retries {
				d := turntest.Data[turn.ModelRetryData](t, e)
				if d.Status != tt.statuses[i] || d.Attempt != i+2 || d.MaxAttempts != 4 || d.Message == "" {
					t.Errorf("retry %d = %+v, want status %d, attempt %d of 4, a message", i, d, tt.statuses[i], i+2)
				}
				if i == 0 && d.WaitMS < tt.minWaitMS {
					t.Errorf("first retry waits %d ms, want at least %d (Retry-After)", d.WaitMS, tt.minWaitMS)
				}
			}
			if n := len(eventsOf(all, turn.EventModelWaiting)); n > 0 && eventsOf(all, turn.EventModelWaiting)[0].Seq > retries[0].Seq {
				t.Errorf("model_waiting came after a retry: a failing server is not loading")
			}
			if !strings.Contains(res.Error, tt.errHas) {
				t.Errorf("error %q lacks %q", res.Error, tt.errHas)
			}
			calls := res.ModelCalls
			if len(res.Stages) > 0 {
				calls = res.Stages[0].Diagnostics.ModelCalls
			}
			if len(calls) != 1 || len(calls[0].Retries) != len(tt.statuses) || calls[0].Attempts != len(tt.statuses)+1 {
				t.Fatalf("diagnostics: %d calls, %+v; want one call with %d retries", len(calls), calls, len(tt.statuses))
			}
			// The stored turn keeps them: diagnostics and events read back.
			d, err := db.GetTurn(context.Background(), h.TurnID, true)
			if err != nil {
				t.Fatal(err)
			}
			stored := 0
			for _, e := range d.Events {
				if e.Type == turn.EventModelRetry {
					stored++
				}
			}
			if stored != len(tt.statuses) {
				t.Errorf("%d model_retry events stored, want %d", stored, len(tt.statuses))
			}
		})
	}
}

package app

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
	"github.com/agentdeck/agentdeck/backend/workflow"
)

// stuckEnding is the runner's store with a turn's ending held until
// release: a turn that does not end when it is stopped (its last write
// waits on a disk or a lock), which quitting must not wait for.
type stuckEnding struct {
	*store.DB
	entered chan string // the turn whose ending is held
	release chan struct{}
}

func (s stuckEnding) FinishTurn(ctx context.Context, turnID string, from int, res turn.Result) error {
	s.entered <- turnID
	<-s.release
	return s.DB.FinishTurn(ctx, turnID, from, res)
}

// TestQuitDuringEvalWithAStuckTurn: quitting while an evaluation run's
// turn ignores Stop returns without that turn, having waited one grace
// for turns and runs together (it says so); once the turn does end, its
// case and the run are stored cancelled.
func TestQuitDuringEvalWithAStuckTurn(t *testing.T) {
	t.Parallel()
	stuck := stuckEnding{entered: make(chan string, 1), release: make(chan struct{})}
	// The log is read once quit has returned and before the turn is let
	// go: nothing else writes it then.
	var logs bytes.Buffer
	svc, db, srv, dir, progress := evalService(t, func(c *Config) {
		stuck.DB = c.DB.(*store.DB)
		c.Runner = runner.New(runner.Config{DB: stuck, Secrets: c.Secrets, Workflows: workflow.Builtins})
		c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	})
	var releaseOnce sync.Once
	release := func() { releaseOnce.Do(func() { close(stuck.release) }) }
	t.Cleanup(release) // before the service quits and the engine closes the database

	writeSuite(t, dir, "geo.yaml", geoSuite)
	srv.Respond(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Hang: true} })
	run, err := svc.api.StartEval(EvalStart{File: "geo.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if p := progress.Next(); p.State != store.EvalRunning {
		t.Fatalf("first progress %+v", p)
	}
	if !srv.WaitRequests(1, turntest.WaitTimeout) {
		t.Fatal("the first case never asked the model")
	}

	quit := make(chan struct{})
	start := time.Now() // logged, not asserted
	go func() { svc.shutdown(); close(quit) }()
	var turnID string
	select {
	case turnID = <-stuck.entered:
	case <-time.After(turntest.WaitTimeout): // a safety net for a hung test, not a measure
		t.Fatal("the stopped turn never came to store its ending")
	}
	select {
	case <-quit:
	case <-time.After(turntest.WaitTimeout): // a safety net for a hung test, not a measure
		t.Fatal("quitting waited for a turn that ignores Stop")
	}
	t.Logf("quit took %v", time.Since(start))
	// The turn is still held: quitting did not wait for it, but for the
	// one grace it gives turns and runs together, and said so.
	if tr, err := db.GetTurn(context.Background(), turnID, false); err != nil || tr.State != store.StateRunning {
		t.Fatalf("the held turn after quit: %+v %v", tr.Turn, err)
	}
	if log, want := logs.String(), "evaluation runs still stopping at quit\" grace="+quitGrace.String(); !strings.Contains(log, want) {
		t.Fatalf("the log after quit should say %q:\n%s", want, log)
	}

	release()
	seen := untilEnded(t, progress)
	if last := seen[len(seen)-1]; last.State != store.EvalCancelled || last.Done != 1 || last.Passed != 0 {
		t.Fatalf("after the turn ended: %+v", seen)
	}
	rep, err := svc.api.EvalReport(run.ID)
	if err != nil || rep.Run.State != store.EvalCancelled || rep.Run.EndedAt == nil || len(rep.Results) != 1 || rep.Results[0].State != store.EvalCancelled {
		t.Fatalf("the stored run: %+v %v", rep, err)
	}
	if tr, err := db.GetTurn(context.Background(), turnID, false); err != nil || tr.State != store.StateCancelled {
		t.Fatalf("the case's turn: %+v %v", tr.Turn, err)
	}
}

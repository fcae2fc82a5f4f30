package eval_test

import (
	"context"
	"regexp"
	"sync"
	"testing"

	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
)

// TestRunSuite: a suite runs every case × model × repeat, two at a time,
// each told to Progress once; the run stores the suite as it ran (after
// the filter); a replay with no --from serves the latest recorded run,
// offline, with the same results; a filter that keeps nothing is refused.
func TestRunSuite(t *testing.T) {
	ctx := context.Background()
	_, db, eng := setuptest.NewEngine(t)
	srv := llmtest.NewServer(t)
	srv.Respond(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Chunks: llmtest.Text("Paris it is.", 2)} })
	for _, name := range []string{"a", "b"} {
		if err := db.SaveProvider(ctx, llm.Provider{Name: name, Kind: catalog.KindCustom, BaseURL: srv.URL(), Local: true}); err != nil {
			t.Fatal(err)
		}
	}
	s := geoSuite()
	r := eval.NewRunner(db, eng.Runner, nil, nil)
	var mu sync.Mutex
	seen := map[eval.CaseInput]string{}
	progress := func(done, total int, in eval.CaseInput, out eval.CaseOutput, err error) {
		mu.Lock()
		defer mu.Unlock()
		if total != 8 || err != nil {
			t.Errorf("progress %d/%d %v", done, total, err)
		}
		in.RunID = ""
		seen[in] = out.State
	}
	run, err := eval.RunSuite(ctx, db, r, &s, eval.RunOptions{Models: []string{"a/m", "b/m"}, Concurrency: 2}, progress)
	if err != nil || run.State != store.EvalCompleted {
		t.Fatalf("run: %+v %v", run, err)
	}
	if len(seen) != 8 || seen[eval.CaseInput{CaseID: "capital", Model: "b/m", Repeat: 2}] != store.EvalPassed ||
		seen[eval.CaseInput{CaseID: "wrong", Model: "a/m", Repeat: 1}] != store.EvalFailedCase {
		t.Fatalf("cells: %v", seen)
	}

	filtered, err := eval.RunSuite(ctx, db, r, &s, eval.RunOptions{Models: []string{"a/m"}, Filter: regexp.MustCompile("^cap"), Repeat: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	results, _ := db.EvalResults(ctx, filtered.ID)
	if len(results) != 1 || results[0].CaseID != "capital" {
		t.Fatalf("the filtered run: %+v", results)
	}
	asked := len(srv.Requests())

	srv.Close()
	replay, err := eval.RunSuite(ctx, db, r, &s, eval.RunOptions{Capture: "replay", Models: []string{"a/m"}, Filter: regexp.MustCompile("^cap"), Repeat: 1}, nil)
	if err != nil || replay.FromRunID != filtered.ID {
		t.Fatalf("a replay of the latest recorded run: %+v %v", replay, err)
	}
	replayed, _ := db.EvalResults(ctx, replay.ID)
	if len(replayed) != 1 || replayed[0].State != store.EvalPassed {
		t.Fatalf("replayed: %+v", replayed)
	}
	if asked != 9 {
		t.Fatalf("the model was asked %d times for 9 cases", asked)
	}
	if _, err := eval.RunSuite(ctx, db, r, &s, eval.RunOptions{Filter: regexp.MustCompile("^none$")}, nil); err == nil {
		t.Fatal("a filter that keeps no case ran")
	}
}

// TestStoppedSuiteEndsCancelled: Stop mid-run stops the running case and
// starts no other; the run ends cancelled.
func TestStoppedSuiteEndsCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, db, eng, srv := fakeEngine(t)
	asked := make(chan struct{}, 8)
	srv.Respond(func(llmtest.Request) llmtest.Reply {
		asked <- struct{}{}
		return llmtest.Reply{Hang: true}
	})
	go func() {
		<-asked
		cancel()
	}()
	s := geoSuite()
	run, err := eval.RunSuite(ctx, db, eval.NewRunner(db, eng.Runner, nil, nil), &s, eval.RunOptions{}, nil)
	if err != nil || run.State != store.EvalCancelled {
		t.Fatalf("a stopped run: %+v %v", run, err)
	}
	results, _ := db.EvalResults(context.Background(), run.ID)
	if len(results) != 1 || results[0].State != store.EvalCancelled {
		t.Fatalf("results of a stopped run: %+v", results)
	}
}

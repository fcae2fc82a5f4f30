package exchange_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/setup"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/scale/exchange"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func ptr[T any](v T) *T { return &v }

// worker is a worker's engine on its own database, its model the
// scripted server.
type worker struct {
	db     *store.DB
	runner *eval.Runner
}

func newWorker(t *testing.T, srv *llmtest.Server) worker {
	t.Helper()
	_, db, eng := setuptest.NewEngine(t, func(o *setup.Options) { o.ModelCalls.MaxRetries = -1 })
	if err := db.SaveProvider(context.Background(), llm.Provider{Name: "fake", Kind: catalog.KindCustom, BaseURL: srv.URL(), Local: true}); err != nil {
		t.Fatal(err)
	}
	return worker{db: db, runner: eval.NewRunner(db, eng.Runner, nil, nil)}
}

// TestRunsAndCellsComeHome: a run put in the folder reads back whole; a
// cell two workers both ran comes home once, as the workflow chose, with
// its session, turn and recordings under their own ids, so the turn can
// be opened and replayed at home; collecting again adds nothing; a cell
// still being put is not read; and a damaged cell is an error naming it.
func TestRunsAndCellsComeHome(t *testing.T) {
	ctx := context.Background()
	srv := llmtest.NewServer(t)
	srv.Respond(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Chunks: llmtest.Text("It is Paris.", 3)} })
	share, err := exchange.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exchange.New(filepath.Join(t.TempDir(), "absent")); apperr.CodeOf(err) != apperr.Invalid {
		t.Fatalf("a shared folder that does not exist: %v", err)
	}

	home, err := store.Open(ctx, filepath.Join(t.TempDir(), "home.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer home.Close()
	suite := eval.Suite{Name: "geo", Models: []string{"fake/m"}, Repeat: 1, Cases: []eval.Case{
		{ID: "capital", Prompt: "Capital of France?", Assert: []eval.Assert{{Contains: ptr("Paris")}}},
	}}
	raw, _ := json.Marshal(suite)
	run, err := home.CreateEvalRun(ctx, store.EvalRun{SuiteName: "geo", Suite: raw})
	if err != nil {
		t.Fatal(err)
	}
	if err := share.PutRun(run); err != nil {
		t.Fatal(err)
	}
	if _, err := share.Run("../etc"); apperr.CodeOf(err) != apperr.Invalid {
		t.Fatalf("a run id that leaves the folder: %v", err)
	}
	if _, err := share.Run("absent"); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("a run not put: %v", err)
	}

	cell := eval.CaseInput{RunID: run.ID, CaseID: "capital", Model: "fake/m", Repeat: 1}
	var outs []eval.CaseOutput
	for _, name := range []string{"w1", "w2"} {
		w := newWorker(t, srv)
		got, err := share.Run(run.ID)
		if err != nil || got.ID != run.ID || string(got.Suite) != string(run.Suite) {
			t.Fatalf("the run read back: %+v %v", got, err)
		}
		if _, err := w.db.CopyEvalRun(ctx, got); err != nil {
			t.Fatal(err)
		}
		out, err := w.runner.RunCase(ctx, cell)
		if err != nil || out.State != store.EvalPassed {
			t.Fatalf("%s ran the case: %+v %v", name, out, err)
		}
		for range 2 { // putting again leaves the cell as it was
			if err := share.PutCell(ctx, w.db, name, run.ID, out.ResultID); err != nil {
				t.Fatal(err)
			}
		}
		outs = append(outs, out)
	}
	if err := os.Mkdir(filepath.Join(share.RunFolder(run.ID), "cells", ".put-unfinished"), 0o755); err != nil {
		t.Fatal(err)
	}
	if n, err := share.CellsPut(run.ID); err != nil || n != 2 {
		t.Fatalf("cells put: %d %v, want the 2 whole ones", n, err)
	}

	chosen := map[exchange.Key]string{{CaseID: "capital", Model: "fake/m", Repeat: 1}: outs[0].ResultID}
	got, err := share.Collect(ctx, home, run.ID, chosen)
	if err != nil || got != (exchange.Collected{Results: 1, Sessions: 1, Duplicates: 1}) {
		t.Fatalf("collected: %+v %v", got, err)
	}
	results, _ := home.EvalResults(ctx, run.ID)
	if len(results) != 1 || results[0].ID != outs[0].ResultID || results[0].TurnID != outs[0].TurnID || results[0].State != store.EvalPassed {
		t.Fatalf("home has %+v, want the chosen %+v", results, outs[0])
	}
	d, err := home.GetTurn(ctx, outs[0].TurnID, false)
	if err != nil || d.SessionID != outs[0].SessionID || d.FinalText != "It is Paris." {
		t.Fatalf("the turn at home: %+v %v", d.Turn, err)
	}
	if n, err := home.TurnRecordings(outs[0].TurnID).Count(ctx); err != nil || n != 1 {
		t.Fatalf("the turn's recordings at home: %d %v", n, err)
	}
	if _, err := home.GetSession(ctx, outs[1].SessionID); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("the session of the result left out came home: %v", err)
	}

	again, err := share.Collect(ctx, home, run.ID, chosen)
	if err != nil || again.Sessions != 0 || again.Results != 1 {
		t.Fatalf("collecting again: %+v %v", again, err)
	}
	if results, _ = home.EvalResults(ctx, run.ID); len(results) != 1 || results[0].ID != outs[0].ResultID {
		t.Fatalf("after collecting again: %+v", results)
	}

	// Without the workflow's choice, the result that ended last is kept.
	if _, err := share.Collect(ctx, home, run.ID, nil); err != nil {
		t.Fatal(err)
	}
	if results, _ = home.EvalResults(ctx, run.ID); len(results) != 1 || results[0].ID != outs[1].ResultID {
		t.Fatalf("with no choice, the last ended: %+v", results)
	}

	bad := filepath.Join(share.RunFolder(run.ID), "cells", outs[1].ResultID, "cell.json")
	if err := os.WriteFile(bad, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := share.Collect(ctx, home, run.ID, chosen); apperr.CodeOf(err) != apperr.Invalid {
		t.Fatalf("a damaged cell: %v", err)
	}
}

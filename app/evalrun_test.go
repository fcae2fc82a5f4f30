package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
)

// evalService is a Service over a fresh database whose provider "fake"
// is the scripted server, with the progress of its runs watched on the bus;
// opts may change its Config (DB is the *store.DB) before it is made.
func evalService(t *testing.T, opts ...func(*Config)) (*Service, *store.DB, *llmtest.Server, string, *busWatch[EvalProgress]) {
	t.Helper()
	dir, db, eng := setuptest.NewEngine(t)
	srv := llmtest.NewServer(t)
	if err := db.SaveProvider(context.Background(), llm.Provider{Name: "fake", Kind: catalog.KindCustom, BaseURL: srv.URL(), Local: true}); err != nil {
		t.Fatal(err)
	}
	cfg := Config{DB: db, DBPath: db.Path(), Runner: eng.Runner, Secrets: eng.Secrets, Workflows: eng.Workflows}
	for _, o := range opts {
		o(&cfg)
	}
	svc := NewService(cfg)
	progress := watchBus[EvalProgress](t, svc.bus)
	t.Cleanup(svc.shutdown)
	return svc, db, srv, filepath.Join(dir, "evals"), progress
}

// untilEnded reads progress until the run ends, and returns all of it.
func untilEnded(t *testing.T, progress *busWatch[EvalProgress]) []EvalProgress {
	t.Helper()
	var seen []EvalProgress
	for {
		p := progress.Next()
		seen = append(seen, p)
		if p.State != store.EvalRunning {
			return seen
		}
	}
}

const geoSuite = `# Kept by hand.
name: geo
models: [fake/m]
cases:
  - id: france
    prompt: Capital of France?
    assert:
      - contains: Paris
  - id: spain
    prompt: Capital of Spain?
    assert:
      - contains: Madrid
`

// writeSuite writes a suite file into the evaluations folder dir.
func writeSuite(t *testing.T, dir, file, text string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestEvalSuitesFolder: suite files live in the data folder's evals/;
// cases are added to one as text, a new one is started under a name, and
// nothing that would not read back is written.
func TestEvalSuitesFolder(t *testing.T) {
	t.Parallel()
	svc, _, _, dir, _ := evalService(t)
	api := svc.api
	if got, err := api.EvalSuites(); err != nil || len(got) != 0 {
		t.Fatalf("no folder yet: %+v %v", got, err)
	}

	fromTurn := "name: from-abc\nmodels: [fake/m]\ncases:\n  - id: italy\n    prompt: Capital of Italy?\n    assert:\n      - similar_to: {reference: Rome., threshold: 0.5}\n"
	saved, err := api.SaveEvalCases(EvalCasesSave{Name: "Capitals of Europe", YAML: fromTurn})
	if err != nil || len(saved.Problems) != 0 || saved.Suite.File != "capitals-of-europe.yaml" || saved.Suite.Name != "Capitals of Europe" || saved.Suite.Cases != 1 {
		t.Fatalf("a new suite: %+v %v", saved, err)
	}
	writeSuite(t, dir, "geo.yaml", geoSuite)
	writeSuite(t, dir, "broken.yaml", "name: broken\nmodels: [fake/m]\ncases: [{id: x, prompt: hi, assert: [{contain: x}]}]\n")
	saved, err = api.SaveEvalCases(EvalCasesSave{File: "geo.yaml", YAML: fromTurn})
	if err != nil || len(saved.Problems) != 0 || saved.Suite.Cases != 3 || saved.Suite.Name != "geo" {
		t.Fatalf("added to geo: %+v %v", saved, err)
	}
	text, _ := os.ReadFile(filepath.Join(dir, "geo.yaml"))
	if !strings.HasPrefix(string(text), "# Kept by hand.\n") || !strings.Contains(string(text), "id: italy") {
		t.Fatalf("geo.yaml now:\n%s", text)
	}

	// Refused: a case it has, a bad assertion, a name outside the folder.
	if _, err := api.SaveEvalCases(EvalCasesSave{File: "geo.yaml", YAML: fromTurn}); apperr.CodeOf(err) != apperr.Conflict {
		t.Fatalf("the same case again: %v", err)
	}
	bad := strings.Replace(fromTurn, "similar_to", "similar", 1)
	saved, err = api.SaveEvalCases(EvalCasesSave{File: "geo.yaml", YAML: strings.Replace(bad, "italy", "malta", 1)})
	if err != nil || len(saved.Problems) == 0 || !strings.Contains(saved.Problems[0].Message, "similar") {
		t.Fatalf("a bad assertion: %+v %v", saved, err)
	}
	if again, _ := os.ReadFile(filepath.Join(dir, "geo.yaml")); string(again) != string(text) {
		t.Fatalf("a refused save changed the file:\n%s", again)
	}
	for _, file := range []string{"../geo.yaml", "/etc/passwd", "geo.txt", ".hidden.yaml"} {
		if _, err := api.SaveEvalCases(EvalCasesSave{File: file, YAML: fromTurn}); apperr.CodeOf(err) != apperr.Invalid {
			t.Errorf("file %q: %v", file, err)
		}
	}

	suites, err := api.EvalSuites()
	if err != nil || len(suites) != 3 {
		t.Fatalf("suites: %+v %v", suites, err)
	}
	byFile := map[string]EvalSuiteInfo{}
	for _, s := range suites {
		byFile[s.File] = s
	}
	if b := byFile["broken.yaml"]; len(b.Problems) != 1 || b.Problems[0].Line != 3 || !strings.Contains(b.Problems[0].Message, "contain") {
		t.Fatalf("the broken suite: %+v", b)
	}
	if g := byFile["geo.yaml"]; g.Cases != 3 || g.Repeat != 1 || len(g.Models) != 1 || len(g.Problems) != 0 {
		t.Fatalf("geo: %+v", g)
	}
}

// TestStartEval: a run started from the window runs the suite's cases as
// turns, tells the UIs as each ends, and is stored like a command line
// run; a bad start is refused before anything is stored.
func TestStartEval(t *testing.T) {
	t.Parallel()
	svc, db, srv, dir, progress := evalService(t)
	api := svc.api
	writeSuite(t, dir, "geo.yaml", geoSuite)
	srv.Respond(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Chunks: llmtest.Text("I believe it is Paris.", 3)}
	})

	for _, bad := range []struct {
		start EvalStart
		says  string
	}{
		{EvalStart{File: "nope.yaml"}, "nope.yaml"},
		{EvalStart{File: "../geo.yaml"}, "is not a suite file's name"},
		{EvalStart{File: "geo.yaml", Models: []string{"m"}}, `Models: "m" is not a provider/model.`},
		{EvalStart{File: "geo.yaml", Filter: "("}, "The filter is not a regular expression"},
		{EvalStart{File: "geo.yaml", Repeat: 101}, "Repeat must be 1 to 100 (0: the suite's), not 101."},
		{EvalStart{File: "geo.yaml", Concurrency: 99}, "Cases at once must be 1 to 8, not 99."},
		{EvalStart{File: "geo.yaml", Capture: "sometimes"}, `Capture must be record, replay or auto, not "sometimes".`},
		{EvalStart{File: "geo.yaml", Capture: "record", FromRunID: "r1"}, "The run to replay needs Capture replay"},
		{EvalStart{File: "geo.yaml", Filter: "^nothing$"}, "No case"},
	} {
		if _, err := api.StartEval(bad.start); err == nil || !strings.Contains(apperr.MessageOf(err), bad.says) {
			t.Errorf("start %+v: %v, want it refused saying %q", bad.start, err, bad.says)
		}
	}
	if runs, _ := db.EvalRuns(context.Background(), "", 0); len(runs) != 0 {
		t.Fatalf("a refused start stored runs: %+v", runs)
	}

	run, err := api.StartEval(EvalStart{File: "geo.yaml", Repeat: 2})
	if err != nil || run.State != store.EvalRunning || run.SuiteName != "geo" {
		t.Fatalf("start: %+v %v", run, err)
	}
	seen := untilEnded(t, progress)
	last := seen[len(seen)-1]
	if first := seen[0]; first.State != store.EvalRunning || first.Done != 0 || first.Planned != 4 || first.RunID != run.ID {
		t.Fatalf("the first progress: %+v", first)
	}
	if len(seen) != 6 || last.State != store.EvalCompleted || last.Done != 4 || last.Passed != 2 || last.Failed != 2 {
		t.Fatalf("progress: %+v", seen)
	}
	var ended []string
	for _, p := range seen[1:5] {
		if p.Case == nil || p.Case.TurnID == "" {
			t.Fatalf("a case's progress without its turn: %+v", p)
		}
		ended = append(ended, p.Case.CaseID+"/"+p.Case.State)
	}
	if got := strings.Join(ended, " "); got != "france/passed france/passed spain/failed spain/failed" {
		t.Fatalf("cases ended %s", got)
	}
	rep, err := api.EvalReport(run.ID)
	if err != nil || rep.Run.State != store.EvalCompleted || rep.Passed != 2 || rep.Total != 4 || rep.Run.SuiteFile != filepath.Join(dir, "geo.yaml") {
		t.Fatalf("the stored run: %+v %v", rep, err)
	}
	if err := func() error { _, err := api.StopEval(run.ID); return err }(); err != nil {
		t.Fatalf("stopping a run that ended: %v", err)
	}
}

// TestStopEval: Stop ends the running case's turn, stores it cancelled,
// starts no more, and ends the run cancelled; shutting down does the same
// to a run left going.
func TestStopEval(t *testing.T) {
	t.Parallel()
	svc, db, srv, dir, progress := evalService(t)
	api := svc.api
	writeSuite(t, dir, "geo.yaml", geoSuite)
	srv.Respond(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Hang: true} })

	run, err := api.StartEval(EvalStart{File: "geo.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if p := progress.Next(); p.State != store.EvalRunning || p.Done != 0 {
		t.Fatalf("first progress %+v", p)
	}
	if !srv.WaitRequests(1, time.Minute) {
		t.Fatal("the first case never asked the model")
	}
	if _, err := api.StopEval(run.ID); err != nil {
		t.Fatal(err)
	}
	seen := untilEnded(t, progress)
	last := seen[len(seen)-1]
	if last.State != store.EvalCancelled || last.Done != 1 || last.Passed != 0 || seen[0].Case == nil || seen[0].Case.State != store.EvalCancelled {
		t.Fatalf("stopped: %+v", seen)
	}
	rep, err := api.EvalReport(run.ID)
	if err != nil || rep.Run.State != store.EvalCancelled || len(rep.Results) != 1 || rep.Results[0].State != store.EvalCancelled || rep.Planned != 2 {
		t.Fatalf("the stored run: %+v %v", rep, err)
	}
	tr, err := db.GetTurn(context.Background(), rep.Results[0].TurnID, false)
	if err != nil || tr.State != store.StateCancelled {
		t.Fatalf("the case's turn: %+v %v", tr.Turn, err)
	}
	if len(srv.Requests()) != 1 {
		t.Fatalf("a stopped run asked the model %d times", len(srv.Requests()))
	}

	// Closing the app stops a run left going, and it is stored so.
	again, err := api.StartEval(EvalStart{File: "geo.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	progress.Next()
	if !srv.WaitRequests(2, time.Minute) {
		t.Fatal("the second run never asked the model")
	}
	svc.shutdown()
	if seen := untilEnded(t, progress); seen[len(seen)-1].State != store.EvalCancelled {
		t.Fatalf("shut down: %+v", seen)
	}
	if r, err := db.EvalRun(context.Background(), again.ID); err != nil || r.State != store.EvalCancelled || r.EndedAt == nil {
		t.Fatalf("the run after shutdown: %+v %v", r, err)
	}
}

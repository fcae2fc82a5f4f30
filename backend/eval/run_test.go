package eval_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/setup"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
)

func ptr[T any](v T) *T { return &v }

// fakeEngine is an engine on a temporary database with the provider
// "fake" on a scripted server.
func fakeEngine(t *testing.T) (string, *store.DB, *setup.Engine, *llmtest.Server) {
	t.Helper()
	dir, db, eng := setuptest.NewEngine(t)
	srv := llmtest.NewServer(t)
	if err := db.SaveProvider(context.Background(), llm.Provider{Name: "fake", Kind: catalog.KindCustom, BaseURL: srv.URL(), Local: true}); err != nil {
		t.Fatal(err)
	}
	return dir, db, eng, srv
}

// geoSuite has a case that passes on the answer "Paris" and one that
// fails on it.
func geoSuite() eval.Suite {
	return eval.Suite{Name: "geo", Models: []string{"fake/m"}, Repeat: 2, Cases: []eval.Case{
		{ID: "capital", Prompt: "Capital of {{country}}?", Vars: map[string]string{"country": "France"},
			Assert: []eval.Assert{{Contains: ptr("Paris")}, {Termination: &eval.TerminationRule{NotLimit: true}}}},
		{ID: "wrong", Prompt: "Capital of Germany?", Assert: []eval.Assert{{Contains: ptr("Berlin")}}},
	}}
}

func newRun(t *testing.T, db *store.DB, s eval.Suite, capture, from string) store.EvalRun {
	t.Helper()
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	run, err := db.CreateEvalRun(context.Background(), store.EvalRun{SuiteName: s.Name, Suite: raw, Capture: capture, FromRunID: from})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// TestRunCase: each case runs as a real turn in an evaluation session of
// its own, with its vars filled; its assertions decide passed or failed,
// with their reasons stored; running it again returns the stored result
// without a model call; and a replay run, with the server gone, serves
// each repeat's own recordings and gives the same results.
func TestRunCase(t *testing.T) {
	ctx := context.Background()
	_, db, eng := setuptest.NewEngine(t)
	srv := llmtest.NewServer(t)
	if err := db.SaveProvider(ctx, llm.Provider{Name: "fake", Kind: catalog.KindCustom, BaseURL: srv.URL(), Local: true}); err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(
		llmtest.Reply{Chunks: llmtest.Text("It is Paris.", 2)},
		llmtest.Reply{Chunks: llmtest.Text("Paris, of course.", 2)},
		llmtest.Reply{Chunks: llmtest.Text("It is Paris.", 2)},
	)
	runner := eval.NewRunner(db, eng.Runner, nil, nil)
	run := newRun(t, db, geoSuite(), "record", "")

	cells := []struct {
		in    eval.CaseInput
		state string
	}{
		{eval.CaseInput{RunID: run.ID, CaseID: "capital", Model: "fake/m", Repeat: 1}, store.EvalPassed},
		{eval.CaseInput{RunID: run.ID, CaseID: "capital", Model: "fake/m", Repeat: 2}, store.EvalPassed},
		{eval.CaseInput{RunID: run.ID, CaseID: "wrong", Model: "fake/m", Repeat: 1}, store.EvalFailedCase},
	}
	var outs []eval.CaseOutput
	for _, c := range cells {
		out, err := runner.RunCase(ctx, c.in)
		if err != nil || out.State != c.state || out.Stored || out.TurnID == "" {
			t.Fatalf("%+v: %+v %v, want %s", c.in, out, err, c.state)
		}
		outs = append(outs, out)
	}
	reqs := srv.Requests()
	if first, _ := json.Marshal(reqs[0].Body); len(reqs) != 3 || !strings.Contains(string(first), "Capital of France?") {
		t.Fatalf("the model was asked %d times; first: %s", len(reqs), first)
	}
	detail, err := db.GetTurn(ctx, outs[0].TurnID, false)
	if err != nil || detail.FinalText != "It is Paris." {
		t.Fatalf("the case's turn: %+v %v", detail.Turn, err)
	}
	sess, err := db.GetSession(ctx, outs[0].SessionID)
	if err != nil || sess.Kind != store.SessionEval || !strings.Contains(sess.Title, "capital") {
		t.Fatalf("the case's session: %+v %v", sess, err)
	}
	results, err := db.EvalResults(ctx, run.ID)
	if err != nil || len(results) != 3 {
		t.Fatalf("results: %+v %v", results, err)
	}
	var outcomes []eval.AssertOutcome
	if err := json.Unmarshal(results[2].Outcomes, &outcomes); err != nil || len(outcomes) != 1 || outcomes[0].Passed || !strings.Contains(outcomes[0].Reason, "Berlin") {
		t.Fatalf("the failing case's outcomes: %s %v", results[2].Outcomes, err)
	}

	// Again: the stored result, and no model call.
	again, err := runner.RunCase(ctx, cells[0].in)
	if err != nil || !again.Stored || again.ResultID != outs[0].ResultID || again.State != store.EvalPassed {
		t.Fatalf("running a finished case again: %+v %v", again, err)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Fatalf("a finished case asked the model again: %d requests", n)
	}

	// A replay of the run, offline: each repeat serves its own turn's recording.
	srv.Close()
	replay := newRun(t, db, geoSuite(), "replay", run.ID)
	for i, c := range cells {
		c.in.RunID = replay.ID
		out, err := runner.RunCase(ctx, c.in)
		if err != nil || out.State != c.state {
			t.Fatalf("replaying %+v: %+v %v", c.in, out, err)
		}
		d, err := db.GetTurn(ctx, out.TurnID, false)
		orig, _ := db.GetTurn(ctx, outs[i].TurnID, false)
		if err != nil || d.FinalText != orig.FinalText {
			t.Fatalf("repeat %d replayed %q, recorded %q (%v)", c.in.Repeat, d.FinalText, orig.FinalText, err)
		}
	}
}

// TestRunCaseErrors: a case that cannot run is stored as an error result
// with a reason; unknown cases and models are refused before anything is
// stored.
func TestRunCaseErrors(t *testing.T) {
	ctx := context.Background()
	_, db, eng := setuptest.NewEngine(t)
	runner := eval.NewRunner(db, eng.Runner, nil, nil)
	run := newRun(t, db, geoSuite(), "record", "")
	if _, err := runner.RunCase(ctx, eval.CaseInput{RunID: run.ID, CaseID: "nope", Model: "fake/m", Repeat: 1}); err == nil || !strings.Contains(err.Error(), "no case") {
		t.Fatalf("an unknown case: %v", err)
	}
	if _, err := runner.RunCase(ctx, eval.CaseInput{RunID: run.ID, CaseID: "capital", Model: "nomodel", Repeat: 1}); err == nil {
		t.Fatal("a model without a provider was run")
	}
	out, err := runner.RunCase(ctx, eval.CaseInput{RunID: run.ID, CaseID: "capital", Model: "absent/m", Repeat: 1})
	if err != nil || out.State != store.EvalError {
		t.Fatalf("an unknown provider: %+v %v", out, err)
	}
	results, _ := db.EvalResults(ctx, run.ID)
	if len(results) != 1 || results[0].Error == "" || !strings.Contains(results[0].Error, "absent") {
		t.Fatalf("the error result: %+v", results)
	}
	replay := newRun(t, db, geoSuite(), "replay", run.ID)
	out, err = runner.RunCase(ctx, eval.CaseInput{RunID: replay.ID, CaseID: "wrong", Model: "fake/m", Repeat: 1})
	if err != nil || out.State != store.EvalError {
		t.Fatalf("replaying a case never recorded: %+v %v", out, err)
	}
}

// TestStoppedCaseIsStoredCancelled: Stop (the context cancelled) while
// the model is answering stops the case's turn, and its result is stored
// as cancelled, linked to the turn that kept what it had.
func TestStoppedCaseIsStoredCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, db, eng, srv := fakeEngine(t)
	asked := make(chan struct{}, 1)
	srv.Respond(func(llmtest.Request) llmtest.Reply {
		asked <- struct{}{}
		return llmtest.Reply{Hang: true}
	})
	run := newRun(t, db, geoSuite(), "record", "")
	go func() {
		<-asked
		cancel()
	}()
	out, err := eval.NewRunner(db, eng.Runner, nil, nil).RunCase(ctx, eval.CaseInput{RunID: run.ID, CaseID: "capital", Model: "fake/m", Repeat: 1})
	if err != nil || out.State != store.EvalCancelled || out.TurnID == "" {
		t.Fatalf("a stopped case: %+v %v", out, err)
	}
	results, _ := db.EvalResults(context.Background(), run.ID)
	if len(results) != 1 || results[0].State != store.EvalCancelled || results[0].EndedAt == nil {
		t.Fatalf("stored: %+v", results)
	}
	d, err := db.GetTurn(context.Background(), out.TurnID, false)
	if err != nil || d.State != store.StateCancelled {
		t.Fatalf("the turn: %+v %v", d.Turn, err)
	}
}

// TestJudgeRunsAsATurn: a judge assertion's critic runs as a turn of its
// own (a stored evaluation session named after the case), its verdict
// decides the assertion, and a replay run serves the critic's recorded
// call, offline, with the same verdict.
func TestJudgeRunsAsATurn(t *testing.T) {
	ctx := context.Background()
	_, db, eng := setuptest.NewEngine(t)
	srv := llmtest.NewServer(t)
	if err := db.SaveProvider(ctx, llm.Provider{Name: "fake", Kind: catalog.KindCustom, BaseURL: srv.URL(), Local: true}); err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(
		llmtest.Reply{Chunks: llmtest.Text("Paris is the capital of France.", 2)},
		llmtest.Reply{Chunks: llmtest.Text(`{"passed": true, "score": 0.9, "feedback": "Correct and direct."}`, 3)},
	)
	s := eval.Suite{Name: "judged", Models: []string{"fake/m"}, Cases: []eval.Case{{ID: "capital", Prompt: "Capital of France?",
		Assert: []eval.Assert{{Judge: &eval.JudgeRule{Rubric: "Names Paris as the capital.", Model: "fake/critic"}}}}}}
	r := eval.NewRunner(db, eng.Runner, nil, nil)
	run := newRun(t, db, s, "record", "")
	in := eval.CaseInput{RunID: run.ID, CaseID: "capital", Model: "fake/m", Repeat: 1}
	out, err := r.RunCase(ctx, in)
	if err != nil || out.State != store.EvalPassed || out.Score != 0.9 {
		t.Fatalf("a judged case: %+v %v", out, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[1].Model != "critic" {
		t.Fatalf("the critic was not asked: %d requests", len(reqs))
	}
	critic, _ := json.Marshal(reqs[1].Body)
	if !strings.Contains(string(critic), "Names Paris as the capital.") || !strings.Contains(string(critic), "Paris is the capital of France.") {
		t.Fatalf("the critic was asked %s", critic)
	}
	page, err := db.ListSessions(ctx, store.Page{Eval: true})
	if err != nil {
		t.Fatal(err)
	}
	var judge store.Session
	for _, s := range page.Sessions {
		if strings.HasSuffix(s.Title, "· judge") && s.Turns == 1 && s.Kind == store.SessionEval {
			judge = s
		}
	}
	if judge.ID == "" {
		t.Fatalf("no judge session among %+v", page.Sessions)
	}
	// The outcome links to the critic's turn, so a reviewer can open it.
	results, err := db.EvalResults(ctx, run.ID)
	if err != nil || len(results) != 1 {
		t.Fatalf("results: %+v %v", results, err)
	}
	var outcomes []eval.AssertOutcome
	if err := json.Unmarshal(results[0].Outcomes, &outcomes); err != nil || len(outcomes) != 1 {
		t.Fatalf("outcomes %s: %v", results[0].Outcomes, err)
	}
	critTurn, err := db.GetTurn(ctx, outcomes[0].TurnID, false)
	if err != nil || outcomes[0].SessionID != judge.ID || critTurn.SessionID != judge.ID {
		t.Fatalf("the judge's outcome links to %s/%s, not the critic's turn in %s: %v", outcomes[0].SessionID, outcomes[0].TurnID, judge.ID, err)
	}

	srv.Close()
	replay := newRun(t, db, s, "replay", run.ID)
	in.RunID = replay.ID
	again, err := r.RunCase(ctx, in)
	if err != nil || again.State != store.EvalPassed || again.Score != 0.9 {
		t.Fatalf("the judged case replayed: %+v %v", again, err)
	}
}

// TestSuitePathsAreTheSuiteFolders: a case's attachments and a workflow
// file are read relative to the suite file, wherever the command runs.
func TestSuitePathsAreTheSuiteFolders(t *testing.T) {
	ctx := context.Background()
	dir, db, eng := setuptest.NewEngine(t)
	srv := llmtest.NewServer(t)
	srv.Respond(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Chunks: llmtest.Text("ok", 1)} })
	if err := db.SaveProvider(ctx, llm.Provider{Name: "fake", Kind: catalog.KindCustom, BaseURL: srv.URL(), Local: true}); err != nil {
		t.Fatal(err)
	}
	suiteDir := filepath.Join(dir, "suites")
	if err := os.MkdirAll(suiteDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(suiteDir, "sales.csv"), []byte("region,sales\\nnorth,3\\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := eval.Suite{Name: "paths", Models: []string{"fake/m"}, Cases: []eval.Case{{ID: "table", Prompt: "Sum the sales.", Attach: []string{"sales.csv"},
		Assert: []eval.Assert{{Contains: ptr("ok")}}}}}
	raw, _ := json.Marshal(s)
	run, err := db.CreateEvalRun(ctx, store.EvalRun{SuiteName: s.Name, SuiteFile: filepath.Join(suiteDir, "paths.yaml"), Suite: raw})
	if err != nil {
		t.Fatal(err)
	}
	out, err := eval.NewRunner(db, eng.Runner, nil, nil).RunCase(ctx, eval.CaseInput{RunID: run.ID, CaseID: "table", Model: "fake/m", Repeat: 1})
	if err != nil || out.State != store.EvalPassed {
		results, _ := db.EvalResults(ctx, run.ID)
		t.Fatalf("a case attaching a file beside its suite: %+v %v %+v", out, err, results)
	}
}

// TestGiveBackRetryable: a runner that gives back retryable failures
// returns a case whose model answered 503 (after the call's own retries)
// as the call's error, storing no ended result, so the next run of the
// case claims it afresh and stores what that run gets; a bad request
// ends the case (failed, with the turn's error) as before; and a runner
// that does not give back ends a 503's case the same way.
func TestGiveBackRetryable(t *testing.T) {
	ctx := context.Background()
	noRetries := func(o *setup.Options) { o.ModelCalls.MaxRetries = -1 }
	_, db, eng := setuptest.NewEngine(t, noRetries)
	srv := llmtest.NewServer(t)
	if err := db.SaveProvider(ctx, llm.Provider{Name: "fake", Kind: catalog.KindCustom, BaseURL: srv.URL(), Local: true}); err != nil {
		t.Fatal(err)
	}
	run := newRun(t, db, geoSuite(), "record", "")
	capital := eval.CaseInput{RunID: run.ID, CaseID: "capital", Model: "fake/m", Repeat: 1}
	giving := eval.NewRunner(db, eng.Runner, nil, nil).GiveBackRetryable()

	srv.Enqueue(llmtest.ErrorReply(503, "server_error", "overloaded"))
	_, err := giving.RunCase(ctx, capital)
	if kind := llm.KindOf(err); kind != llm.ErrServer || !llm.Retryable(err) {
		t.Fatalf("a 503 was not given back as retryable: %v (kind %q)", err, kind)
	}
	results, _ := db.EvalResults(ctx, run.ID)
	if len(results) != 1 || results[0].State != store.EvalRunning || results[0].EndedAt != nil {
		t.Fatalf("a given-back case was stored as ended: %+v", results)
	}

	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("It is Paris.", 2)})
	out, err := giving.RunCase(ctx, capital)
	if err != nil || out.Stored || out.State != store.EvalPassed {
		t.Fatalf("the case run again: %+v %v", out, err)
	}
	if results, _ = db.EvalResults(ctx, run.ID); len(results) != 1 || results[0].TurnID != out.TurnID {
		t.Fatalf("one result, the second run's: %+v", results)
	}

	srv.Enqueue(llmtest.ErrorReply(400, "invalid_request_error", "bad"))
	out, err = giving.RunCase(ctx, eval.CaseInput{RunID: run.ID, CaseID: "wrong", Model: "fake/m", Repeat: 1})
	if err != nil || out.State != store.EvalFailedCase {
		t.Fatalf("a bad request is a failed case, not given back: %+v %v", out, err)
	}

	srv.Enqueue(llmtest.ErrorReply(503, "server_error", "overloaded"))
	out, err = eval.NewRunner(db, eng.Runner, nil, nil).RunCase(ctx, eval.CaseInput{RunID: run.ID, CaseID: "wrong", Model: "fake/m", Repeat: 2})
	if err != nil || out.State != store.EvalFailedCase {
		t.Fatalf("a local run stores a 503 as a failed case: %+v %v", out, err)
	}
	results, _ = db.EvalResults(ctx, run.ID)
	for _, r := range results[1:] {
		if r.EndedAt == nil || !strings.Contains(r.Error, "HTTP") {
			t.Fatalf("an ended case keeps why its turn failed: %+v", r)
		}
	}
}

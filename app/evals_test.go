package app

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// TestEvalAPI: the window reads runs with how they did, a run's report,
// two runs compared, and a case made from a turn as YAML that is a valid
// suite; an unknown run is NotFound.
func TestEvalAPI(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, db, eng := setuptest.NewEngine(t)
	api := NewService(Config{DB: db, DBPath: db.Path(), Runner: eng.Runner, Secrets: eng.Secrets, Workflows: eng.Workflows}).api

	mkRun := func(states ...string) string {
		t.Helper()
		raw, _ := json.Marshal(eval.Suite{Name: "geo", Models: []string{"p/m"}, Cases: []eval.Case{{ID: "one"}, {ID: "two"}}})
		run, err := db.CreateEvalRun(ctx, store.EvalRun{SuiteName: "geo", Suite: raw})
		if err != nil {
			t.Fatal(err)
		}
		for i, st := range states {
			res, _, err := db.ClaimEvalResult(ctx, store.EvalResult{RunID: run.ID, CaseID: []string{"one", "two"}[i], Model: "p/m", Repeat: 1})
			if err != nil {
				t.Fatal(err)
			}
			if err := db.FinishEvalResult(ctx, store.EvalResult{ID: res.ID, State: st, Score: map[string]float64{store.EvalPassed: 1}[st]}); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.EndEvalRun(ctx, run.ID, store.EvalCompleted); err != nil {
			t.Fatal(err)
		}
		return run.ID
	}
	a := mkRun(store.EvalPassed, store.EvalPassed)
	b := mkRun(store.EvalPassed, store.EvalFailedCase)
	stopped := mkRun(store.EvalFailedCase) // one of its two cases ran

	runs, err := api.EvalRuns("")
	if err != nil || len(runs) != 3 || runs[0].Run.ID != stopped || runs[0].Passed != 0 || runs[0].Total != 1 || runs[0].Planned != 2 ||
		runs[1].Run.ID != b || runs[1].Passed != 1 || runs[1].Total != 2 || runs[2].Passed != 2 || runs[2].Planned != 2 {
		t.Fatalf("runs: %+v %v", runs, err)
	}
	rep, err := api.EvalReport(b)
	if err != nil || rep.Total != 2 || len(rep.Models) != 1 || rep.Models[0].PassRate != 0.5 {
		t.Fatalf("report: %+v %v", rep, err)
	}
	d, err := api.EvalDiff(a, b)
	if err != nil || len(d.Regressions) != 1 || d.Regressions[0].CaseID != "two" || d.Same != 1 {
		t.Fatalf("diff: %+v %v", d, err)
	}
	if _, err := api.EvalReport("nope"); err == nil || !strings.Contains(err.Error(), "no evaluation run") {
		t.Fatalf("an unknown run: %v", err)
	}

	sess, _ := db.CreateSession(ctx, store.Session{Title: "chat", Provider: "local"})
	tr, err := db.StartTurn(ctx, store.Turn{SessionID: sess.ID, UserMessage: "Capital of France?", Workflow: "chat", Model: "qwen3"})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.FinishTurn(ctx, tr.ID, 0, turn.Result{OK: true, Outcome: turn.OutcomeSucceeded, FinalText: "Paris.",
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "Capital of France?"}, {Role: llm.RoleAssistant, Content: "Paris."}}, Termination: turn.Termination{Kind: turn.TermNaturalCompletion}}); err != nil {
		t.Fatal(err)
	}
	y, err := api.EvalCaseFromTurn(tr.ID)
	if err != nil {
		t.Fatal(err)
	}
	s, err := eval.Parse("case.yaml", []byte(y))
	if err != nil {
		t.Fatalf("not a valid suite: %v\n%s", err, y)
	}
	if s.Models[0] != "local/qwen3" || s.Cases[0].Prompt != "Capital of France?" || s.Cases[0].Assert[0].SimilarTo.Reference != "Paris." {
		t.Fatalf("the case: %+v", s)
	}

	// A follow-up, then the first message edited: the follow-up is on a
	// branch no longer shown, and its case is the conversation it had.
	finish := func(tr store.Turn, answer string) {
		t.Helper()
		said := []llm.Message{{Role: llm.RoleUser, Content: tr.UserMessage}, {Role: llm.RoleAssistant, Content: answer}}
		if err := db.FinishTurn(ctx, tr.ID, 0, turn.Result{OK: true, Outcome: turn.OutcomeSucceeded, FinalText: answer, Messages: said, Termination: turn.Termination{Kind: turn.TermNaturalCompletion}}); err != nil {
			t.Fatal(err)
		}
	}
	follow, err := db.StartTurn(ctx, store.Turn{SessionID: sess.ID, UserMessage: "And Germany?", Workflow: "chat", Model: "qwen3"})
	if err != nil {
		t.Fatal(err)
	}
	finish(follow, "Berlin.")
	edit, err := db.StartTurn(ctx, store.Turn{SessionID: sess.ID, UserMessage: "Capital of Spain?", Workflow: "chat", Model: "qwen3"}, store.StartOptions{Follows: true})
	if err != nil {
		t.Fatal(err)
	}
	finish(edit, "Madrid.")
	if y, err = api.EvalCaseFromTurn(follow.ID); err != nil {
		t.Fatal(err)
	}
	if s, err = eval.Parse("case.yaml", []byte(y)); err != nil {
		t.Fatalf("not a valid suite: %v\n%s", err, y)
	}
	var said []string
	for _, m := range s.Cases[0].Messages {
		said = append(said, m.Role+": "+m.Content)
	}
	if got := strings.Join(said, " | "); got != "user: Capital of France? | assistant: Paris. | user: And Germany?" {
		t.Fatalf("the follow-up's case has %q", got)
	}
}

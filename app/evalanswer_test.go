package app

import (
	"context"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// TestEvalReportAnswers: a run's report carries each cell's answer, cut
// to a preview with answer_more set when it goes on, and EvalAnswer reads
// it whole; an unknown result says so.
func TestEvalReportAnswers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, db, eng := setuptest.NewEngine(t)
	api := NewService(Config{DB: db, DBPath: db.Path(), Runner: eng.Runner, Secrets: eng.Secrets, Workflows: eng.Workflows}).api

	run, err := db.CreateEvalRun(ctx, store.EvalRun{SuiteName: "answers"})
	if err != nil {
		t.Fatal(err)
	}
	sess, _ := db.CreateSession(ctx, store.Session{Title: "answers", Kind: store.SessionEval})
	long := strings.Repeat("word ", store.EvalAnswerPreview)
	for _, c := range []struct{ id, answer string }{{"short", "Paris."}, {"long", long}} {
		res, _, err := db.ClaimEvalResult(ctx, store.EvalResult{RunID: run.ID, CaseID: c.id, Model: "p/m", Repeat: 1})
		if err != nil {
			t.Fatal(err)
		}
		tr, err := db.StartTurn(ctx, store.Turn{SessionID: sess.ID, UserMessage: c.id, Workflow: "chat", Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.FinishTurn(ctx, tr.ID, 0, turn.Result{OK: true, Outcome: turn.OutcomeSucceeded, FinalText: c.answer,
			Termination: turn.Termination{Kind: turn.TermNaturalCompletion}}); err != nil {
			t.Fatal(err)
		}
		if err := db.FinishEvalResult(ctx, store.EvalResult{ID: res.ID, State: store.EvalPassed, Score: 1, SessionID: sess.ID, TurnID: tr.ID}); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := api.EvalReport(run.ID)
	if err != nil || len(rep.Results) != 2 {
		t.Fatalf("report: %+v %v", rep, err)
	}
	short, lng := rep.Results[0], rep.Results[1]
	if short.CaseID != "short" {
		short, lng = lng, short
	}
	if short.Answer != "Paris." || short.AnswerMore || len(lng.Answer) != store.EvalAnswerPreview || !lng.AnswerMore || !strings.HasPrefix(long, lng.Answer) {
		t.Fatalf("answers: %.20q %v; %d chars %v", short.Answer, short.AnswerMore, len(lng.Answer), lng.AnswerMore)
	}
	whole, err := api.EvalAnswer(lng.ID)
	if err != nil || whole != long {
		t.Fatalf("the whole answer: %d chars, %v", len(whole), err)
	}
	if _, err := api.EvalAnswer("nope"); err == nil || !strings.Contains(err.Error(), "no evaluation result") {
		t.Fatalf("an unknown result: %v", err)
	}
}

// TestEvalAgreement: the judge/human figure of a run counts the cells
// with a judge verdict and a thumb on their turn (a step's review is not
// the turn's), and how many agree.
func TestEvalAgreement(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, db, eng := setuptest.NewEngine(t)
	api := NewService(Config{DB: db, DBPath: db.Path(), Runner: eng.Runner, Secrets: eng.Secrets, Workflows: eng.Workflows}).api

	run, err := db.CreateEvalRun(ctx, store.EvalRun{SuiteName: "judged"})
	if err != nil {
		t.Fatal(err)
	}
	sess, _ := db.CreateSession(ctx, store.Session{Title: "judged", Kind: store.SessionEval})
	cells := []struct {
		id       string
		outcomes string
		thumb    int
		step     string
	}{
		{"agree-up", `[{"kind":"judge","passed":true,"score":0.9,"reason":""}]`, 1, ""},
		{"agree-down", `[{"kind":"judge","passed":false,"score":0.1,"reason":""}]`, -1, ""},
		{"disagree", `[{"kind":"judge","passed":true,"score":0.8,"reason":""}]`, -1, ""},
		{"unrated", `[{"kind":"judge","passed":true,"score":0.8,"reason":""}]`, 0, ""},
		{"step-only", `[{"kind":"judge","passed":true,"score":0.8,"reason":""}]`, -1, "call1"},
		{"no-judge", `[{"kind":"contains","passed":true,"score":1,"reason":""}]`, 1, ""},
	}
	for _, c := range cells {
		res, _, err := db.ClaimEvalResult(ctx, store.EvalResult{RunID: run.ID, CaseID: c.id, Model: "p/m", Repeat: 1})
		if err != nil {
			t.Fatal(err)
		}
		tr, err := db.StartTurn(ctx, store.Turn{SessionID: sess.ID, UserMessage: c.id, Workflow: "chat", Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.FinishTurn(ctx, tr.ID, 0, turn.Result{OK: true, Outcome: turn.OutcomeSucceeded, FinalText: c.id,
			Termination: turn.Termination{Kind: turn.TermNaturalCompletion}}); err != nil {
			t.Fatal(err)
		}
		if err := db.FinishEvalResult(ctx, store.EvalResult{ID: res.ID, State: store.EvalPassed, Score: 1, Outcomes: []byte(c.outcomes), SessionID: sess.ID, TurnID: tr.ID}); err != nil {
			t.Fatal(err)
		}
		if c.thumb != 0 {
			if _, err := api.SaveReview(turn.Review{TurnID: tr.ID, Step: c.step, Thumb: c.thumb}); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, err := api.EvalAgreement(run.ID)
	if err != nil || got.Judged != 5 || got.Rated != 3 || got.Agree != 2 || got.Share != 2.0/3 {
		t.Fatalf("agreement: %+v %v", got, err)
	}
	if _, err := api.EvalAgreement("nope"); err == nil || !strings.Contains(err.Error(), "no evaluation run") {
		t.Fatalf("an unknown run: %v", err)
	}
}

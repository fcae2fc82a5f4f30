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

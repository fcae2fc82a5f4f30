package store

import (
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// TestEvalResultAnswers: EvalResults carries each result's answer (its
// turn's final text), cut to EvalAnswerPreview characters (not bytes)
// with AnswerMore set when it goes on; EvalAnswer reads it whole. A
// result with no turn, or whose turn has no answer yet, has none.
func TestEvalResultAnswers(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	run, err := db.CreateEvalRun(ctx, EvalRun{SuiteName: "answers"})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := db.CreateSession(ctx, Session{Title: "answers", Kind: SessionEval})
	if err != nil {
		t.Fatal(err)
	}
	// "é" is two bytes: a cut by bytes would split one and differ in length.
	long := strings.Repeat("é", EvalAnswerPreview) + "<b>the end</b>"
	cases := []struct {
		id, answer string
		finish     bool // the turn ends (else it is still running)
		noTurn     bool
		want       string
		more       bool
	}{
		{id: "short", answer: "Paris", finish: true, want: "Paris"},
		{id: "exact", answer: strings.Repeat("x", EvalAnswerPreview), finish: true, want: strings.Repeat("x", EvalAnswerPreview)},
		{id: "long", answer: long, finish: true, want: strings.Repeat("é", EvalAnswerPreview), more: true},
		{id: "running", answer: "never stored", want: ""},
		{id: "no-turn", noTurn: true, want: ""},
	}
	ids := map[string]string{}
	for _, tc := range cases {
		res, _, err := db.ClaimEvalResult(ctx, EvalResult{RunID: run.ID, CaseID: tc.id, Model: "p/m", Repeat: 1})
		if err != nil {
			t.Fatal(err)
		}
		ids[tc.id] = res.ID
		if tc.noTurn {
			if err := db.FinishEvalResult(ctx, EvalResult{ID: res.ID, State: EvalError, Error: "unreachable"}); err != nil {
				t.Fatal(err)
			}
			continue
		}
		tr, err := db.StartTurn(ctx, Turn{SessionID: sess.ID, UserMessage: tc.id, Workflow: "chat", Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.SetEvalResultTurn(ctx, res.ID, sess.ID, tr.ID); err != nil {
			t.Fatal(err)
		}
		if tc.finish {
			if err := db.FinishTurn(ctx, tr.ID, 0, turn.Result{OK: true, Outcome: turn.OutcomeSucceeded, FinalText: tc.answer,
				Termination: turn.Termination{Kind: turn.TermNaturalCompletion}}); err != nil {
				t.Fatal(err)
			}
			if err := db.FinishEvalResult(ctx, EvalResult{ID: res.ID, State: EvalPassed, Score: 1}); err != nil {
				t.Fatal(err)
			}
		}
	}
	results, err := db.EvalResults(ctx, run.ID)
	if err != nil || len(results) != len(cases) {
		t.Fatalf("results: %d %v", len(results), err)
	}
	for i, tc := range cases {
		t.Run(tc.id, func(t *testing.T) {
			r := results[i]
			if r.CaseID != tc.id || r.Answer != tc.want || r.AnswerMore != tc.more {
				t.Fatalf("%s: answer %d chars, more %v; want %d chars, more %v", r.CaseID, len([]rune(r.Answer)), r.AnswerMore, len([]rune(tc.want)), tc.more)
			}
			whole, err := db.EvalAnswer(ctx, ids[tc.id])
			want := tc.answer
			if !tc.finish {
				want = ""
			}
			if err != nil || whole != want {
				t.Fatalf("EvalAnswer: %d chars, %v; want %d", len(whole), err, len(want))
			}
		})
	}
	if _, err := db.EvalAnswer(ctx, "no-such-result"); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("EvalAnswer of no result: %v", err)
	}
}

package store

import (
	"encoding/json"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

// TestCopyEvalRunAndPutResult: a worker's copy of a run keeps its id and
// suite, and copying it again changes nothing; a collected result keeps
// its id and links, and putting another result of the same cell (the
// case ran twice) leaves one result, the last put; a result naming a
// session not stored is refused and leaves what was there; bad input is
// Invalid.
func TestCopyEvalRunAndPutResult(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	orig := EvalRun{ID: "run-from-elsewhere", SuiteName: "geo", SuiteFile: "/suites/geo.yaml", Suite: json.RawMessage(`{"name":"geo"}`), Capture: "record"}
	run, err := db.CopyEvalRun(ctx, orig)
	if err != nil || run.ID != orig.ID || run.SuiteFile != orig.SuiteFile || string(run.Suite) != `{"name":"geo"}` || run.State != EvalRunning {
		t.Fatalf("the copy: %+v %v", run, err)
	}
	changed := orig
	changed.SuiteName = "renamed"
	if again, err := db.CopyEvalRun(ctx, changed); err != nil || again.SuiteName != "geo" {
		t.Fatalf("copying again replaced the run: %+v %v", again, err)
	}
	if _, err := db.CopyEvalRun(ctx, EvalRun{SuiteName: "geo"}); apperr.CodeOf(err) != apperr.Invalid {
		t.Fatalf("a copy without an id: %v", err)
	}

	sess, err := db.CreateSession(ctx, Session{Title: "geo · capital", Kind: SessionEval})
	if err != nil {
		t.Fatal(err)
	}
	first := EvalResult{ID: "res-a", RunID: run.ID, CaseID: "capital", Model: "fake/m", Repeat: 1, SessionID: sess.ID, State: EvalFailedCase, Score: 0.5}
	if err := db.PutEvalResult(ctx, first); err != nil {
		t.Fatal(err)
	}
	second := first
	second.ID, second.State, second.Score = "res-b", EvalPassed, 1
	if err := db.PutEvalResult(ctx, second); err != nil {
		t.Fatal(err)
	}
	if err := db.PutEvalResult(ctx, second); err != nil {
		t.Fatalf("putting the same result twice: %v", err)
	}
	results, err := db.EvalResults(ctx, run.ID)
	if err != nil || len(results) != 1 || results[0].ID != "res-b" || results[0].State != EvalPassed || results[0].SessionID != sess.ID || results[0].EndedAt == nil {
		t.Fatalf("one result, the last put: %+v %v", results, err)
	}

	orphan := second
	orphan.ID, orphan.SessionID = "res-c", "no-such-session"
	if err := db.PutEvalResult(ctx, orphan); err == nil {
		t.Fatal("a result naming a session that is not here was stored")
	}
	if results, _ = db.EvalResults(ctx, run.ID); len(results) != 1 || results[0].ID != "res-b" {
		t.Fatalf("a refused result changed what was stored: %+v", results)
	}
	for _, bad := range []EvalResult{
		{ID: "x", RunID: run.ID, CaseID: "capital", Model: "fake/m", Repeat: 1, State: EvalRunning},
		{ID: "x", RunID: run.ID, CaseID: "capital", Model: "fake/m", Repeat: 0, State: EvalPassed},
		{RunID: run.ID, CaseID: "capital", Model: "fake/m", Repeat: 1, State: EvalPassed},
	} {
		if err := db.PutEvalResult(ctx, bad); apperr.CodeOf(err) != apperr.Invalid {
			t.Fatalf("%+v: %v", bad, err)
		}
	}
}

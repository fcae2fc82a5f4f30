package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/scale/submit"
)

// TestExitCode: as agentdeck eval, 0 only when every planned cell passed,
// 1 when one did not (or never came home), 130 when stopped.
func TestExitCode(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "home.db")
	db, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	suite, _ := json.Marshal(map[string]any{"name": "geo", "models": []string{"fake/m"}, "repeat": 1,
		"cases": []map[string]any{{"id": "a", "prompt": "a", "assert": []any{}}, {"id": "b", "prompt": "b", "assert": []any{}}}})
	run, err := db.CreateEvalRun(ctx, store.EvalRun{SuiteName: "geo", Suite: suite})
	if err != nil {
		t.Fatal(err)
	}
	put := func(id, caseID, state string) {
		if err := db.PutEvalResult(ctx, store.EvalResult{ID: id, RunID: run.ID, CaseID: caseID, Model: "fake/m", Repeat: 1, State: state}); err != nil {
			t.Fatal(err)
		}
	}
	put("r-a", "a", store.EvalPassed)
	db.Close()
	completed := run
	completed.State = store.EvalCompleted
	if code := exitCode(run.ID, path, submit.Outcome{Run: completed}, nil); code != exitFailed {
		t.Fatalf("a case that never came home: exit %d", code)
	}

	if db, err = store.Open(ctx, path, store.Options{}); err != nil {
		t.Fatal(err)
	}
	put("r-b", "b", store.EvalFailedCase)
	db.Close()
	if code := exitCode(run.ID, path, submit.Outcome{Run: completed}, nil); code != exitFailed {
		t.Fatalf("a failed case: exit %d", code)
	}

	if db, err = store.Open(ctx, path, store.Options{}); err != nil {
		t.Fatal(err)
	}
	put("r-b2", "b", store.EvalPassed)
	db.Close()
	if code := exitCode(run.ID, path, submit.Outcome{Run: completed}, nil); code != exitOK {
		t.Fatalf("every case passed: exit %d", code)
	}
	cancelled := run
	cancelled.State = store.EvalCancelled
	if code := exitCode(run.ID, path, submit.Outcome{Run: cancelled}, nil); code != exitCancelled {
		t.Fatalf("stopped: exit %d", code)
	}
}

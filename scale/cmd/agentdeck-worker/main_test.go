package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/cli"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/scale/submit"
)

// TestReportRun: the report is printed as agentdeck eval prints it, and
// the exit code is agentdeck eval's: 0 only when every planned cell passed,
// 1 when one did not (or never came home), 130 when stopped.
func TestReportRun(t *testing.T) {
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
	var stdout, stderr bytes.Buffer
	report := func(out submit.Outcome) int {
		stdout.Reset()
		return reportRun(run.ID, path, out, nil, cli.EvalReportFormat{}, &stdout, &stderr)
	}
	completed := run
	completed.State = store.EvalCompleted
	if code := report(submit.Outcome{Run: completed}); code != exitFailed {
		t.Fatalf("a case that never came home: exit %d", code)
	}
	// The report is agentdeck eval show's.
	if got := stdout.String(); !strings.Contains(got, "Suite geo") || !strings.Contains(got, "agentdeck eval show "+run.ID) {
		t.Fatalf("the report printed:\n%s", got)
	}

	if db, err = store.Open(ctx, path, store.Options{}); err != nil {
		t.Fatal(err)
	}
	put("r-b", "b", store.EvalFailedCase)
	db.Close()
	if code := report(submit.Outcome{Run: completed}); code != exitFailed {
		t.Fatalf("a failed case: exit %d", code)
	}

	if db, err = store.Open(ctx, path, store.Options{}); err != nil {
		t.Fatal(err)
	}
	put("r-b2", "b", store.EvalPassed)
	db.Close()
	if code := report(submit.Outcome{Run: completed}); code != exitOK {
		t.Fatalf("every case passed: exit %d", code)
	}
	cancelled := run
	cancelled.State = store.EvalCancelled
	if code := report(submit.Outcome{Run: cancelled}); code != exitCancelled {
		t.Fatalf("stopped: exit %d", code)
	}
}

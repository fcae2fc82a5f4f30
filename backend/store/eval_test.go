package store

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// TestEvalRunsAndResults: a run and its results round-trip; claiming a
// result that ended returns it as stored (idempotent), one left running
// by a process that ended is claimed again, one whose turn runs is a
// Conflict; a run left running by a gone process reads as cancelled.
func TestEvalRunsAndResults(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	run, err := db.CreateEvalRun(ctx, EvalRun{SuiteName: "geo", SuiteFile: "geo.yaml", Suite: json.RawMessage(`{"name":"geo"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateEvalRun(ctx, EvalRun{SuiteName: "other"}); err != nil {
		t.Fatal(err)
	}
	key := EvalResult{RunID: run.ID, CaseID: "capital", Model: "local/qwen3", Repeat: 1}
	first, claimed, err := db.ClaimEvalResult(ctx, key)
	if err != nil || !claimed || first.State != EvalRunning {
		t.Fatalf("first claim: %+v %v %v", first, claimed, err)
	}

	// Its process ended before a turn started: claimed again, same row.
	again, claimed, err := db.ClaimEvalResult(ctx, key)
	if err != nil || !claimed || again.ID != first.ID {
		t.Fatalf("a result left running with no turn: %+v %v %v", again, claimed, err)
	}

	// Its turn runs, owned by this live process: a Conflict.
	sess, err := db.CreateSession(ctx, Session{Title: "geo · capital", Kind: SessionEval})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := db.StartTurn(ctx, Turn{SessionID: sess.ID, UserMessage: "Capital of France?", Workflow: "chat", Model: "qwen3"})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetEvalResultTurn(ctx, first.ID, sess.ID, tr.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.ClaimEvalResult(ctx, key); apperr.CodeOf(err) != apperr.Conflict {
		t.Fatalf("claiming a case whose turn runs: %v", err)
	}
	if err := db.FinishTurn(ctx, tr.ID, 0, turn.Result{OK: true, Outcome: turn.OutcomeSucceeded, FinalText: "Paris",
		Termination: turn.Termination{Kind: turn.TermNaturalCompletion}}); err != nil {
		t.Fatal(err)
	}
	cost := 0.0012
	done := EvalResult{ID: first.ID, State: EvalPassed, Score: 0.75, Outcomes: json.RawMessage(`[{"kind":"contains","passed":true,"score":1,"reason":""}]`),
		LatencyMS: 840, Tokens: 120, CostUSD: &cost}
	if err := db.FinishEvalResult(ctx, done); err != nil {
		t.Fatal(err)
	}
	stored, claimed, err := db.ClaimEvalResult(ctx, key)
	if err != nil || claimed {
		t.Fatalf("claiming a finished case: %v %v", claimed, err)
	}
	if stored.State != EvalPassed || stored.Score != 0.75 || stored.TurnID != tr.ID || stored.SessionID != sess.ID ||
		stored.CostUSD == nil || *stored.CostUSD != cost || stored.LatencyMS != 840 || stored.Tokens != 120 || stored.EndedAt == nil ||
		!strings.Contains(string(stored.Outcomes), `"contains"`) {
		t.Fatalf("the finished case as stored: %+v", stored)
	}

	// A second repeat is its own result; the run lists both in order.
	second, claimed, err := db.ClaimEvalResult(ctx, EvalResult{RunID: run.ID, CaseID: "capital", Model: "local/qwen3", Repeat: 2})
	if err != nil || !claimed || second.ID == first.ID {
		t.Fatalf("repeat 2: %+v %v %v", second, claimed, err)
	}
	if err := db.FinishEvalResult(ctx, EvalResult{ID: second.ID, State: EvalError, Error: "the model could not be reached"}); err != nil {
		t.Fatal(err)
	}
	results, err := db.EvalResults(ctx, run.ID)
	if err != nil || len(results) != 2 || results[0].ID != first.ID || results[1].State != EvalError || results[1].CostUSD != nil {
		t.Fatalf("results: %+v %v", results, err)
	}

	if err := db.EndEvalRun(ctx, run.ID, EvalCompleted); err != nil {
		t.Fatal(err)
	}
	got, err := db.EvalRun(ctx, run.ID)
	if err != nil || got.State != EvalCompleted || got.EndedAt == nil || got.SuiteFile != "geo.yaml" || string(got.Suite) != `{"name":"geo"}` || got.Capture != "record" {
		t.Fatalf("the run: %+v %v", got, err)
	}
	runs, err := db.EvalRuns(ctx, "geo", 0)
	if err != nil || len(runs) != 1 || runs[0].ID != run.ID {
		t.Fatalf("runs of geo: %+v %v", runs, err)
	}
	if all, _ := db.EvalRuns(ctx, "", 0); len(all) != 2 {
		t.Fatalf("all runs: %+v", all)
	}
	// Tallied in one query: geo has a pass and an error, other nothing.
	tallies, err := db.EvalRunTallies(ctx, "", 0)
	if err != nil || len(tallies) != 2 {
		t.Fatalf("tallies: %+v %v", tallies, err)
	}
	byName := map[string]EvalRunTally{}
	for _, tl := range tallies {
		byName[tl.Run.SuiteName] = tl
	}
	if g, o := byName["geo"], byName["other"]; g.Results != 2 || g.Passed != 1 || g.Run.ID != run.ID || g.Run.State != EvalCompleted || o.Results != 0 || o.Passed != 0 {
		t.Fatalf("tallies: geo %+v, other %+v", g, o)
	}
	if geo, _ := db.EvalRunTallies(ctx, "geo", 0); len(geo) != 1 || geo[0].Run.ID != run.ID {
		t.Fatalf("tallies of geo: %+v", geo)
	}

	// A run its process left running reads as cancelled.
	if _, err := db.writer.ExecContext(ctx, `UPDATE eval_runs SET state = 'running', ended_at = NULL, owner_pid = 2147483600 WHERE id = ?`, run.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.EvalRun(ctx, run.ID); got.State != EvalCancelled {
		t.Fatalf("a run whose process is gone reads %q", got.State)
	}
}

// TestEvalErrors: bad states and unknown ids are clear errors.
func TestEvalErrors(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	cases := []struct {
		name string
		err  error
		code apperr.Code
	}{
		{"end with a bad state", db.EndEvalRun(ctx, "x", "done"), apperr.Invalid},
		{"end an unknown run", db.EndEvalRun(ctx, "x", EvalCompleted), apperr.NotFound},
		{"finish with a bad state", db.FinishEvalResult(ctx, EvalResult{ID: "x", State: EvalRunning}), apperr.Invalid},
		{"finish an unknown result", db.FinishEvalResult(ctx, EvalResult{ID: "x", State: EvalPassed}), apperr.NotFound},
	}
	_, err := db.EvalRun(ctx, "x")
	cases = append(cases, struct {
		name string
		err  error
		code apperr.Code
	}{"an unknown run", err, apperr.NotFound})
	_, _, err = db.ClaimEvalResult(ctx, EvalResult{RunID: "r", CaseID: "c", Model: "p/m"})
	cases = append(cases, struct {
		name string
		err  error
		code apperr.Code
	}{"a claim without a repeat", err, apperr.Invalid})
	for _, c := range cases {
		if apperr.CodeOf(c.err) != c.code {
			t.Errorf("%s: %v, want code %v", c.name, c.err, c.code)
		}
	}
}

// TestEvalSessionsAreKeptApart: an evaluation session is hidden from the
// session list unless asked for, and never searched, by a person or by
// recall memory; a session of an unknown kind is refused.
func TestEvalSessionsAreKeptApart(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	chat, err := db.CreateSession(ctx, Session{Title: "Zanzibar notes"})
	if err != nil || chat.Kind != SessionChat {
		t.Fatalf("%+v %v", chat, err)
	}
	ev, err := db.CreateSession(ctx, Session{Title: "Zanzibar eval", Kind: SessionEval})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []Session{chat, ev} {
		storeCalls(t, db, s.ID, "chat", "tell me about Zanzibar", pricedCall("p", "m", nil, ev.CreatedAt, 10, 5))
	}
	ids := func(p Page) []string {
		page, err := db.ListSessions(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range page.Sessions {
			out = append(out, s.ID+":"+s.Kind)
		}
		return out
	}
	if got := ids(Page{}); len(got) != 1 || got[0] != chat.ID+":chat" {
		t.Fatalf("the default list: %v", got)
	}
	if got := ids(Page{Eval: true}); len(got) != 2 {
		t.Fatalf("the list with evaluations: %v", got)
	}
	hits, err := db.Search(ctx, "Zanzibar", 20)
	if err != nil || len(hits) == 0 {
		t.Fatalf("search: %v %v", hits, err)
	}
	for _, h := range hits {
		if h.SessionID == ev.ID {
			t.Fatalf("search found the evaluation session: %+v", h)
		}
	}
	mem, err := db.SearchMemory(ctx, "Zanzibar", 20)
	if err != nil || len(mem) == 0 {
		t.Fatalf("recall: %v %v", mem, err)
	}
	for _, m := range mem {
		if m.SessionID == ev.ID {
			t.Fatalf("recall found the evaluation session: %+v", m)
		}
	}
	if _, err := db.CreateSession(ctx, Session{Title: "x", Kind: "test"}); apperr.CodeOf(err) != apperr.Invalid {
		t.Fatalf("a session of kind test: %v", err)
	}
}

// TestEvalSessionsExportAsThemselves: an evaluation session exported and
// imported stays one, kept apart from chats; a chat's export names no kind.
func TestEvalSessionsExportAsThemselves(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	ev, err := db.CreateSession(ctx, Session{Title: "suite · case", Kind: SessionEval})
	if err != nil {
		t.Fatal(err)
	}
	chat, _ := db.CreateSession(ctx, Session{Title: "chat"})
	var evDoc, chatDoc bytes.Buffer
	if err := export.Write(ctx, db, ev.ID, export.JSON, &evDoc, export.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := export.Write(ctx, db, chat.ID, export.JSON, &chatDoc, export.Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(evDoc.String(), `"kind": "eval"`) || strings.Contains(chatDoc.String(), `"kind"`) {
		t.Fatalf("exports:\n%s\n%s", evDoc.String(), chatDoc.String())
	}
	other := mustOpen(t)
	back, err := other.Import(ctx, &evDoc)
	if err != nil || back.Kind != SessionEval {
		t.Fatalf("imported: %+v %v", back, err)
	}
	if page, _ := other.ListSessions(ctx, Page{}); len(page.Sessions) != 0 {
		t.Fatalf("the imported evaluation session is listed: %+v", page.Sessions)
	}
}

package eval_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/store"
)

// A suite whose cases start from steps of a recorded turn: each runs only
// what follows its step on the suite's model (the scripted server counts
// the calls), the steps before come from the recording with no side
// effect, its assertions pass or fail on the final answer as usual, and
// the user's session is left as it was. A case naming a turn this
// database lacks is an error of that case, saying so.
func TestRunCellFromARecordedStep(t *testing.T) {
	ctx := context.Background()
	dir, db, eng, srv := fakeEngine(t)
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(
		llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, "w1", "write_file", `{"path":"log.txt","content":"ran\n"}`, 3), "tool_calls")},
		llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, "r1", "read_file", `{"path":"log.txt"}`, 3), "tool_calls")},
		llmtest.Reply{Chunks: llmtest.Text("The log has one line.", 3)},
	)
	user, err := db.CreateSession(ctx, store.Session{Title: "log", Provider: "fake", Model: "m", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	h, err := eng.Runner.Start(ctx, runner.Request{SessionID: user.ID, Message: "Log a line, then read it.", Provider: "fake", Model: "m", Approver: agent.PolicyApprover{AllowAll: true}})
	if err != nil {
		t.Fatal(err)
	}
	if res := h.Wait(); !res.OK {
		t.Fatalf("recording the turn: %+v", res)
	}
	orig := h.TurnID
	os.Remove(filepath.Join(ws, "log.txt")) // written again only if the side effect runs again

	empty := "(empty file)"
	suite := eval.Suite{Name: "log", Models: []string{"fake/m"}, Repeat: 1, Cases: []eval.Case{
		{ID: "typed-result", From: &eval.CaseFrom{Turn: orig, Step: "tool2", Edit: &eval.CaseEdit{Kind: "tool_result", Text: &empty}},
			Assert: []eval.Assert{{Contains: ptr("empty")}}},
		{ID: "last-call-again", From: &eval.CaseFrom{Turn: orig, Step: "call3"},
			Assert: []eval.Assert{{Contains: ptr("two lines")}}},
		{ID: "gone", From: &eval.CaseFrom{Turn: "no-such-turn", Step: "start"},
			Assert: []eval.Assert{{Contains: ptr("x")}}},
	}}
	run := newRun(t, db, suite, "record", "")
	cr := eval.NewCellRunner(db, eng.Runner, nil, nil)
	tests := []struct {
		caseID string
		reply  string
		state  string
	}{
		{"typed-result", "The log is empty.", store.EvalPassed},
		{"last-call-again", "The log has one line.", store.EvalFailedCase},
	}
	for _, tt := range tests {
		t.Run(tt.caseID, func(t *testing.T) {
			before := len(srv.Requests())
			srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text(tt.reply, 2)})
			out, err := runCell(ctx, t, db, cr, eval.Cell{RunID: run.ID, CaseID: tt.caseID, Model: "fake/m", Repeat: 1})
			if err != nil || out.State != tt.state {
				t.Fatalf("%+v %v; want %s", out, err, tt.state)
			}
			if n := len(srv.Requests()) - before; n != 1 {
				t.Fatalf("the case made %d model calls; want 1, the calls before its step served from the recording", n)
			}
			tr, err := db.GetTurn(ctx, out.TurnID, false)
			if err != nil || tr.FinalText != tt.reply || tr.FromStep == "" || tr.FromTurnID == orig {
				t.Fatalf("the case's turn: %+v %v; want a re-run of the copy of the recorded turn", tr.Turn, err)
			}
			sess, err := db.GetSession(ctx, out.SessionID)
			if err != nil || sess.Kind != store.SessionEval || sess.ID == user.ID {
				t.Fatalf("the case's session: %+v %v", sess, err)
			}
		})
	}
	if first := srv.Requests()[3]; !strings.Contains(first.Messages[len(first.Messages)-1].Content, empty) {
		t.Fatalf("the model was sent %+v as the tool result; want the typed one", first.Messages[len(first.Messages)-1])
	}
	if _, err := os.Stat(filepath.Join(ws, "log.txt")); !os.IsNotExist(err) {
		t.Fatal("the side effect before the step ran again: log.txt was written")
	}
	if page, _ := db.ListTurns(ctx, user.ID, store.Page{Limit: 10}); len(page.Turns) != 1 {
		t.Fatalf("the user's session has %d turns; want its own 1", len(page.Turns))
	}

	before := len(srv.Requests())
	out, err := runCell(ctx, t, db, cr, eval.Cell{RunID: run.ID, CaseID: "gone", Model: "fake/m", Repeat: 1})
	if err != nil || out.State != store.EvalError || len(srv.Requests()) != before {
		t.Fatalf("a case from a turn not here: %+v %v", out, err)
	}
	results, _ := db.EvalResults(ctx, run.ID)
	for _, r := range results {
		if r.CaseID == "gone" && !strings.Contains(r.Error, "not in this database") {
			t.Fatalf("its error: %q", r.Error)
		}
	}
}

package runner_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

// A re-run from a tool result with a typed result: the model calls before
// it come from the recordings (the server is asked nothing for them), the
// side-effecting tool before the step never runs again (the file it
// wrote, removed since, is not written again), the model is sent exactly the typed result,
// and it runs live from there.
func TestRerunFromToolResultWithEdit(t *testing.T) {
	dir, db, eng := setuptest.NewEngine(t)
	ws := filepath.Join(dir, "ws")
	os.Mkdir(ws, 0o700)
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		toolCall("w1", "write_file", map[string]any{"path": "log.txt", "content": "ran\n"}),
		toolCall("r1", "read_file", map[string]any{"path": "log.txt"}),
		llmtest.Reply{Chunks: llmtest.Text("The log has one line.", 3)},
	)
	sess, _ := db.CreateSession(bg, store.Session{Title: "log", Model: "m", Workspace: ws})
	res, _, orig := run(t, eng.Runner, runner.Request{SessionID: sess.ID, Message: "Log a line, then read it.", BaseURL: srv.URL(), Approver: agent.PolicyApprover{AllowAll: true}})
	if !res.OK {
		t.Fatalf("original: %+v", res)
	}
	os.Remove(filepath.Join(ws, "log.txt")) // written again only if the side effect runs again
	before := len(srv.Requests())
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("The log is empty.", 3)})
	res, rec, id := run(t, eng.Runner, runner.Request{SessionID: sess.ID, BaseURL: srv.URL(), Approver: agent.PolicyApprover{AllowAll: true},
		From: &runner.From{TurnID: orig, Step: "tool2", Edit: runner.Edit{Kind: runner.EditToolResult, Text: "(empty file)"}}})
	if !res.OK || res.FinalText != "The log is empty." {
		t.Fatalf("re-run: %q (%s)", res.FinalText, res.Error)
	}
	reqs := srv.Requests()[before:]
	if len(reqs) != 1 {
		t.Fatalf("the re-run made %d model calls, want 1 (the two before the step come from the recordings)", len(reqs))
	}
	if last := reqs[0].Messages[len(reqs[0].Messages)-1]; last.Role != "tool" || last.Content != "(empty file)" {
		t.Fatalf("the model was sent %+v as the tool result, want the typed one", last)
	}
	if _, err := os.Stat(filepath.Join(ws, "log.txt")); !os.IsNotExist(err) {
		t.Fatal("the side effect before the step ran again: log.txt was written")
	}
	if n := len(rec.Of(turn.EventLiveFrom)); n != 1 {
		t.Fatalf("%d live_from events, want 1", n)
	}
	tr, err := db.GetTurn(bg, id, false)
	if err != nil || tr.FromTurnID != orig || tr.FromStep != "tool2" || tr.FromEdit != "tool_result" {
		t.Fatalf("the re-run's link: %+v %v", tr.Turn, err)
	}
	// Replaying the re-run later serves all of it from its own recordings.
	srv.Close()
	again, rrec, _ := run(t, eng.Runner, runner.Request{SessionID: sess.ID, Replay: &runner.Replay{TurnID: id}})
	if again.FinalText != "The log is empty." {
		t.Fatalf("replay of the re-run: %q (%s)", again.FinalText, again.Error)
	}
	for _, d := range divergences(t, rrec) {
		if !strings.Contains(d.Kind, "tool") {
			t.Fatalf("a replay of the re-run diverged: %+v", d)
		}
	}
}

// A typed result for a read-only built-in (update_plan, which a re-run
// otherwise runs again to draw the plan) is what the model is sent.
func TestRerunEditsABuiltinToolResult(t *testing.T) {
	_, db, eng := setuptest.NewEngine(t)
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		toolCall("p1", "update_plan", map[string]any{"steps": []map[string]any{{"title": "Look it up", "status": "running"}}}),
		llmtest.Reply{Chunks: llmtest.Text("Planned.", 2)},
	)
	sess, _ := db.CreateSession(bg, store.Session{Title: "plan", Model: "m"})
	res, _, orig := run(t, eng.Runner, runner.Request{SessionID: sess.ID, Message: "Plan it.", BaseURL: srv.URL()})
	if !res.OK {
		t.Fatalf("original: %+v", res)
	}
	before := len(srv.Requests())
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("The plan was refused.", 2)})
	res, rec, _ := run(t, eng.Runner, runner.Request{SessionID: sess.ID, BaseURL: srv.URL(),
		From: &runner.From{TurnID: orig, Step: "tool1", Edit: runner.Edit{Kind: runner.EditToolResult, Text: "PLAN REFUSED"}}})
	if !res.OK || res.FinalText != "The plan was refused." {
		t.Fatalf("re-run: %q (%s)", res.FinalText, res.Error)
	}
	reqs := srv.Requests()[before:]
	if len(reqs) != 1 {
		t.Fatalf("the re-run made %d model calls, want 1", len(reqs))
	}
	if last := reqs[0].Messages[len(reqs[0].Messages)-1]; last.Role != "tool" || last.Content != "PLAN REFUSED" {
		t.Fatalf("the model was sent %+v as update_plan's result, want the typed one", last)
	}
	var got string
	for _, e := range rec.Of(turn.EventToolResult) {
		got = turntest.Data[turn.ToolResultData](t, e).Output
	}
	if got != "PLAN REFUSED" {
		t.Fatalf("the re-run's tool card shows %q, want the typed result", got)
	}
}

// A tool call the original refused before it ran has no result to change:
// the re-run says so instead of dropping the typed result.
func TestRerunRefusesToEditAResultThatNeverWas(t *testing.T) {
	_, db, eng := setuptest.NewEngine(t)
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		toolCall("p1", "update_plan", map[string]any{"steps": "not a list"}),
		llmtest.Reply{Chunks: llmtest.Text("Sorry.", 2)},
	)
	sess, _ := db.CreateSession(bg, store.Session{Title: "plan", Model: "m"})
	_, _, orig := run(t, eng.Runner, runner.Request{SessionID: sess.ID, Message: "Plan it.", BaseURL: srv.URL()})
	_, err := eng.Runner.Start(bg, runner.Request{SessionID: sess.ID, BaseURL: srv.URL(),
		From: &runner.From{TurnID: orig, Step: "tool1", Edit: runner.Edit{Kind: runner.EditToolResult, Text: "x"}}})
	if err == nil || !strings.Contains(err.Error(), "never ran") {
		t.Fatalf("editing a result that never was: %v, want a refusal that says it never ran", err)
	}
}

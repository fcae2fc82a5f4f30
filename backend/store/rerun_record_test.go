package store_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
)

// The record of a re-run from a step stays true (issue 45): what the
// export carries, what import restores, and what delete keeps.

// rerunPair records a turn that writes a file, reads it and answers, then
// re-runs it from its second tool result with a typed result: the
// original's id and the re-run's. The scripted server is closed after,
// so any later model call fails.
func rerunPair(t *testing.T) (*store.DB, *runner.Runner, store.Session, string, string) {
	t.Helper()
	dir, db, eng := setuptest.NewEngine(t)
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		toolCallReply("w1", "write_file", `{"path":"log.txt","content":"ran\n"}`),
		toolCallReply("r1", "read_file", `{"path":"log.txt"}`),
		llmtest.Reply{Chunks: llmtest.Text("The log has one line.", 3)},
		llmtest.Reply{Chunks: llmtest.Text("The log is empty.", 3)},
	)
	sess, err := db.CreateSession(bg, store.Session{Title: "log", Model: "m", Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	allow := agent.PolicyApprover{AllowAll: true}
	orig := runTurn(t, eng.Runner, runner.Request{SessionID: sess.ID, Message: "Log a line, then read it.", BaseURL: srv.URL(), Approver: allow}, "The log has one line.")
	rerun := runTurn(t, eng.Runner, runner.Request{SessionID: sess.ID, BaseURL: srv.URL(), Approver: allow,
		From: &runner.From{TurnID: orig, Step: "tool2", Edit: runner.Edit{Kind: runner.EditToolResult, Text: "(empty file)"}}}, "The log is empty.")
	if n := len(srv.Requests()); n != 4 {
		t.Fatalf("%d model calls; want 3 for the original and 1 for the re-run", n)
	}
	srv.Close()
	return db, eng.Runner, sess, orig, rerun
}

func toolCallReply(id, name, args string) llmtest.Reply {
	return llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, id, name, args, 3), "tool_calls")}
}

// runTurn runs req to its end and checks its answer.
func runTurn(t *testing.T, r *runner.Runner, req runner.Request, want string) string {
	t.Helper()
	h, err := r.Start(bg, req)
	if err != nil {
		t.Fatal(err)
	}
	if res := h.Wait(); !res.OK || res.FinalText != want {
		t.Fatalf("the turn answered %q (%s); want %q", res.FinalText, res.Error, want)
	}
	return h.TurnID
}

// replays replays turnID offline (the server is gone) in its session and
// checks it answers as it did.
func replays(t *testing.T, db *store.DB, r *runner.Runner, turnID string) {
	t.Helper()
	tr, err := db.GetTurn(bg, turnID, false)
	if err != nil {
		t.Fatal(err)
	}
	runTurn(t, r, runner.Request{SessionID: tr.SessionID, Replay: &runner.Replay{TurnID: turnID}}, tr.FinalText)
}

// turnsBySeq are a session's turns by their number.
func turnsBySeq(t *testing.T, db *store.DB, sessionID string) map[int]store.Turn {
	t.Helper()
	page, err := db.ListTurns(bg, sessionID, store.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]store.Turn{}
	for _, tr := range page.Turns {
		out[tr.Seq] = tr
	}
	return out
}

// A session with an original and a re-run of it exports as version 9 with
// the link, and imports as a copy with the link mapped to the copy of the
// original; the imported re-run replays offline from the recordings that
// came with it. The Markdown transcript says what the re-run is.
func TestRerunExportImportRoundTrip(t *testing.T) {
	db, r, sess, orig, rerun := rerunPair(t)
	var buf bytes.Buffer
	if err := export.Write(bg, db, sess.ID, export.JSON, &buf, export.Options{Captures: true}); err != nil {
		t.Fatal(err)
	}
	doc, err := export.Decode(bg, bytes.NewReader(buf.Bytes()), store.MaxImportBytes)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Version != 9 || len(doc.Turns) != 2 {
		t.Fatalf("version %d with %d turns; want 9 with 2", doc.Version, len(doc.Turns))
	}
	if d := doc.Turns[1]; d.ID != rerun || d.FromTurnID != orig || d.FromStep != "tool2" || d.FromEdit != "tool_result" {
		t.Fatalf("the re-run in the file: %s from %q %q %q", d.ID, d.FromTurnID, d.FromStep, d.FromEdit)
	}

	// Here already: imported as a copy, every id new.
	copied, err := db.Import(bg, bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	turns := turnsBySeq(t, db, copied.ID)
	o, rr := turns[1], turns[2]
	if o.ID == orig || rr.ID == rerun || rr.FromTurnID != o.ID || rr.FromStep != "tool2" || rr.FromEdit != "tool_result" {
		t.Fatalf("imported: original %s, re-run %s from %q %q %q", o.ID, rr.ID, rr.FromTurnID, rr.FromStep, rr.FromEdit)
	}
	replays(t, db, r, rr.ID)

	// The transcript names the source, its step and the edit.
	var md bytes.Buffer
	if err := export.Write(bg, db, copied.ID, export.Markdown, &md, export.Options{}); err != nil {
		t.Fatal(err)
	}
	if want := " · Re-run of turn #1 from tool result 2, edited tool result\n"; !strings.Contains(md.String(), want) {
		t.Fatalf("no %q in\n%s", want, md.String())
	}
}

// Into another database the ids are kept, and so is the link; the
// re-run replays there, where its original never ran.
func TestRerunImportsElsewhere(t *testing.T) {
	db, _, sess, orig, rerun := rerunPair(t)
	var buf bytes.Buffer
	if err := export.Write(bg, db, sess.ID, export.JSON, &buf, export.Options{Captures: true}); err != nil {
		t.Fatal(err)
	}
	_, other, eng := setuptest.NewEngine(t)
	if _, err := other.Import(bg, &buf); err != nil {
		t.Fatal(err)
	}
	tr, err := other.GetTurn(bg, rerun, false)
	if err != nil || tr.FromTurnID != orig || tr.FromStep != "tool2" {
		t.Fatalf("the re-run elsewhere: %+v %v", tr.Turn, err)
	}
	replays(t, other, eng.Runner, rerun)
}

// A file whose re-run's source is not in it imports the re-run without
// the link, its step and edit kept: a fork from the re-run copies its
// branch, which its original (another version of the same message) is
// not on. The fork still replays.
func TestRerunWithoutItsSourceKeepsTheStep(t *testing.T) {
	db, r, _, _, rerun := rerunPair(t)
	fork, err := db.ForkSession(bg, rerun)
	if err != nil {
		t.Fatal(err)
	}
	turns := turnsBySeq(t, db, fork.ID)
	if len(turns) != 1 || turns[2].ID == "" {
		t.Fatalf("the fork has %d turns; want the re-run alone", len(turns))
	}
	for _, tr := range turns {
		if tr.FromTurnID != "" || tr.FromStep != "tool2" || tr.FromEdit != "tool_result" {
			t.Fatalf("the fork's re-run: from %q %q %q", tr.FromTurnID, tr.FromStep, tr.FromEdit)
		}
		replays(t, db, r, tr.ID)
	}

	// The same from a file edited by hand to name a turn it lacks.
	var buf bytes.Buffer
	if err := export.Write(bg, db, fork.ID, export.JSON, &buf, export.Options{Captures: true}); err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(buf.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	raw["turns"].([]any)[0].(map[string]any)["from_turn_id"] = "not-in-the-file"
	b, _ := json.Marshal(raw)
	imported, err := db.Import(bg, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	// Seq 2 is the re-run; 3 the replay of it above, a plain turn.
	if tr := turnsBySeq(t, db, imported.ID)[2]; tr.FromTurnID != "" || tr.FromStep != "tool2" || tr.FromEdit != "tool_result" {
		t.Fatalf("a link to a turn not in the file: from %q %q %q", tr.FromTurnID, tr.FromStep, tr.FromEdit)
	}
}

// Deleting the original keeps what the re-run needs: the link is cleared
// (ON DELETE SET NULL), the step and edit stay, the recordings the re-run
// used stay, and it still replays offline.
func TestDeletingTheOriginalKeepsTheRerun(t *testing.T) {
	db, r, sess, orig, rerun := rerunPair(t)
	n, err := db.DeleteTurn(bg, orig)
	if err != nil || n != 1 {
		t.Fatalf("DeleteTurn: %d turns, %v; want the original alone", n, err)
	}
	if _, err := db.GetTurn(bg, orig, false); err == nil {
		t.Fatal("the original is still there")
	}
	tr, err := db.GetTurn(bg, rerun, false)
	if err != nil || tr.FromTurnID != "" || tr.FromStep != "tool2" || tr.FromEdit != "tool_result" {
		t.Fatalf("the re-run after its original went: %+v %v", tr.Turn, err)
	}
	replays(t, db, r, rerun)

	// Its session deleted, the re-run and its recordings go too.
	if err := db.DeleteSession(bg, sess.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.GetTurn(bg, rerun, false); err == nil {
		t.Fatal("the re-run outlived its session")
	}
}

// Files written before re-runs existed (versions 5 and 6 here; 8 by
// TestGroupsRoundTrip) still import, with no turn a re-run; a session with
// none keeps the older version its file had.
func TestOlderFilesImportWithoutReruns(t *testing.T) {
	_, db, _ := setuptest.NewEngine(t)
	for _, name := range []string{"session-v5-f1a3a69.json", "session-v6-562ba66.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		s, err := db.Import(bg, bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		turns := turnsBySeq(t, db, s.ID)
		for _, tr := range turns {
			if tr.FromTurnID != "" || tr.FromStep != "" || tr.FromEdit != "" {
				t.Fatalf("%s: turn %d imported as a re-run: %+v", name, tr.Seq, tr)
			}
		}
		var buf bytes.Buffer
		if err := export.Write(bg, db, s.ID, export.JSON, &buf, export.Options{}); err != nil {
			t.Fatal(err)
		}
		var head struct{ Version int }
		if err := json.Unmarshal(buf.Bytes(), &head); err != nil || head.Version >= 9 || len(turns) == 0 {
			t.Fatalf("%s exported again as version %d (%v)", name, head.Version, err)
		}
	}
}

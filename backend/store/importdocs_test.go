package store

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export/foreign"
)

// readForeign reads a file of export/foreign's testdata (sources and
// licences in its SOURCES.md).
func readForeign(t *testing.T, name string) foreign.Result {
	t.Helper()
	data, err := os.ReadFile("../export/foreign/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	res, err := foreign.Read(context.Background(), name, data)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestImportDocumentsKeepsTheBranches: a ChatGPT conversation whose
// second message was edited (github.com/mitkury/chatgpt-export-parser's
// example, MIT) becomes one session whose tree has the two versions,
// the active branch being the one current_node ends.
func TestImportDocumentsKeepsTheBranches(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	res := readForeign(t, "chatgpt_export_parser_branch.json")
	got, err := db.ImportDocuments(ctx, res.Documents)
	if err != nil || len(got) != 1 {
		t.Fatalf("ImportDocuments: %v %v", got, err)
	}
	s := got[0]
	if s.Title != "Sample conversation with branch" || s.Turns != 3 || s.Model != "gpt-4" {
		t.Fatalf("session %+v", s)
	}
	page, err := db.ListBranch(ctx, s.ID, Page{})
	if err != nil || len(page.Turns) != 2 {
		t.Fatalf("active branch %+v %v", page.Turns, err)
	}
	active := page.Turns[0]
	if active.UserMessage != "How do I write a function in JavaScript?" || active.ID != s.ActiveTurnID || active.Model != "gpt-4" {
		t.Errorf("active turn %+v, want the branch ending at current_node", active)
	}
	if v := page.Versions[active.ID]; len(v) != 2 {
		t.Fatalf("versions of the active turn %v, want 2", v)
	}
	other := page.Versions[active.ID][1]
	if other == active.ID {
		other = page.Versions[active.ID][0]
	}
	tr, err := db.GetTurn(ctx, other, true)
	if err != nil || tr.UserMessage != "Actually, can you help me with Python instead?" {
		t.Fatalf("the other version %+v %v", tr, err)
	}
	if active.Copied != CopiedImport || tr.Copied != CopiedImport || active.StartedAt.Unix() != 1704067400 {
		t.Errorf("imported turns: copied %q %q, started %v", active.Copied, tr.Copied, active.StartedAt)
	}
	if run, _ := db.TurnRun(ctx, active.ID); string(run) != `{"imported_from":"ChatGPT"}` {
		t.Errorf("run %s", run)
	}
}

// TestImportDocumentsAllOrNone: one conversation the store cannot take
// leaves none of the file's behind.
func TestImportDocumentsAllOrNone(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	if _, err := db.ImportDocuments(ctx, readForeign(t, "openai_lines.jsonl").Documents); err != nil {
		t.Fatal(err)
	}
	before := countSessions(t, db)
	docs := readForeign(t, "openai_cookbook_toy_chat.jsonl").Documents
	docs[2].Turns[0].Seq = 0 // damaged after reading: the store refuses it
	_, err := db.ImportDocuments(ctx, docs)
	if apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(err.Error(), "Conversation 3 of the file") {
		t.Fatalf("ImportDocuments: %v, want conversation 3 refused", err)
	}
	if after := countSessions(t, db); after != before {
		t.Fatalf("%d sessions after a refused import, %d before", after, before)
	}
}

func countSessions(t *testing.T, db *DB) int {
	t.Helper()
	var n int
	if err := db.reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM sessions`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

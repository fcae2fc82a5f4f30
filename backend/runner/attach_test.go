package runner_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
)

// A file that cannot be attached refuses the message before the turn
// exists: no turn, no table store, nothing sent to the model.
func TestAFailedAttachmentLeavesNothing(t *testing.T) {
	dir, db, eng := setuptest.NewEngine(t)
	srv := llmtest.NewServer(t)
	bad := filepath.Join(dir, "photo.csv")
	os.WriteFile(bad, []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR binary"), 0o600)
	for _, tc := range []struct{ name, file, want string }{
		{"binary", bad, "photo.csv"},
		{"missing", filepath.Join(dir, "nowhere.csv"), "nowhere.csv"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sess, _ := db.CreateSession(bg, store.Session{Title: "attach", Model: "m"})
			_, err := eng.Runner.Start(bg, runner.Request{SessionID: sess.ID, Message: "chart it", BaseURL: srv.URL(), Attach: []string{tc.file}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Start: %v, want an error naming %s", err, tc.want)
			}
			if page, _ := db.ListTurns(bg, sess.ID, store.Page{}); len(page.Turns) != 0 {
				t.Fatalf("a refused attachment left %d turn(s)", len(page.Turns))
			}
			if _, err := os.Stat(store.SessionDir(db.Path(), sess.ID)); !os.IsNotExist(err) {
				t.Fatalf("a refused attachment left the session's folder (%v)", err)
			}
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests reached the model", n)
	}
}

// Deleting a session deletes the tables of the files attached to it, not
// only its rows: the attached data must not stay on disk.
func TestDeletingASessionDeletesItsAttachedData(t *testing.T) {
	dir, db, eng := setuptest.NewEngine(t)
	const secret = "ZEBRA-LEDGER-9931"
	csv := filepath.Join(dir, "ledger.csv")
	os.WriteFile(csv, []byte("account,note\n1,"+secret+"\n"), 0o600)
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("Attached.", 2)})
	sess, _ := db.CreateSession(bg, store.Session{Title: "ledger", Model: "m"})
	res, _, _ := run(t, eng.Runner, runner.Request{SessionID: sess.ID, Message: "look", BaseURL: srv.URL(), Attach: []string{csv}})
	if !res.OK {
		t.Fatalf("turn: %+v", res)
	}
	os.Remove(csv)
	folder := store.SessionDir(db.Path(), sess.ID)
	if _, err := os.Stat(filepath.Join(folder, "data.db")); err != nil {
		t.Fatalf("the attached table should be in the session's folder: %v", err)
	}
	if err := db.DeleteSession(bg, sess.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(folder); !os.IsNotExist(err) {
		t.Fatalf("the session's folder is still there (%v)", err)
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s still holds the deleted session's attached data", p)
			}
		}
		return nil
	})
}

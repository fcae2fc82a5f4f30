package cli_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/store/storetest"
)

// TestDamagedDatabaseJourney is what a person goes through with the built
// command after a page of the events table was overwritten with zeros:
// db check names it, run refuses to write into the file (exit 1, nothing
// written) until --force, and db salvage makes a new file that passes db
// check and holds every session, with the forced turn.
func TestDamagedDatabaseJourney(t *testing.T) {
	srv := llmtest.NewServer(t)
	env := newCmdEnv(t, srv.URL())
	ctx := context.Background()
	db, err := store.Open(ctx, env.db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := storetest.BuildHistory(t, db, 60, 2)
	db.Close()
	storetest.Checkpoint(t, env.db)
	clean := filepath.Join(t.TempDir(), "clean.db")
	storetest.CopyFile(t, env.db, clean)

	// A page holding some session's latest turn's events, which a run
	// into that session reads before it writes.
	victim := ""
	for after := 0; victim == "" && after < 4; after++ {
		storetest.CopyFile(t, clean, env.db)
		storetest.ZeroLeafPage(t, env.db, "events", after)
		victim = latestTurnUnreadable(t, env.db, h)
	}
	if victim == "" {
		t.Fatal("no session's latest turn is on the damaged pages")
	}

	check := env.run("db", "check")
	if check.code != 1 || !strings.Contains(check.stdout, "events unreadable in part") || !strings.Contains(check.stdout, "120 turns") {
		t.Fatalf("db check: %d\n%s", check.code, check.stdout)
	}

	before := storetest.Files(t, env.db)
	refused := env.run("run", "--session", victim, "And then?")
	if refused.code != 1 || !strings.Contains(refused.stderr, "did not start the turn") || strings.Count(refused.stderr, "agentdeck db salvage") != 1 {
		t.Fatalf("run into the damaged file: %d\n%s", refused.code, refused.stderr)
	}
	if !slices.Equal(before, storetest.Files(t, env.db)) {
		t.Fatal("the refused run wrote into the file")
	}

	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("Then it rained.", 3)})
	forced := env.run("run", "--force", "--session", victim, "And then?")
	if forced.code != 0 || strings.TrimSpace(forced.stdout) != "Then it rained." {
		t.Fatalf("run --force: %d\n%s\n%s", forced.code, forced.stdout, forced.stderr)
	}

	out := filepath.Join(t.TempDir(), "rescued.db")
	salvage := env.run("db", "salvage", out)
	if salvage.code != 0 || !strings.Contains(salvage.stdout, "events of these turns may be incomplete") {
		t.Fatalf("db salvage: %d\n%s\n%s", salvage.code, salvage.stdout, salvage.stderr)
	}
	if again := env.run("db", "check", "--db", out); again.code != 0 || !strings.Contains(again.stdout, "integrity: ok") || !strings.Contains(again.stdout, "121 turns") {
		t.Fatalf("db check of the salvage: %d\n%s", again.code, again.stdout)
	}
	list := env.run("sessions", "list", "--db", out)
	if list.code != 0 || strings.Count(list.stdout, "\n") != len(h.Sessions) {
		t.Fatalf("sessions of the salvage: %d\n%s", list.code, list.stderr)
	}
	show := env.run("sessions", "show", victim, "--db", out)
	if show.code != 0 || !strings.Contains(show.stdout, "Then it rained.") {
		t.Fatalf("the forced turn in the salvage: %d\n%s\n%s", show.code, show.stdout, show.stderr)
	}
}

// latestTurnUnreadable returns a session whose latest turn's events cannot
// all be read, "" if none.
func latestTurnUnreadable(t *testing.T, path string, h storetest.History) string {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	latest := map[string]string{}
	for _, tr := range h.Turns {
		latest[tr.SessionID] = tr.ID
	}
	for _, s := range h.Sessions {
		var n int64
		if raw.QueryRow(`SELECT COUNT(*) FROM events WHERE turn_id = ?`, latest[s.ID]).Scan(&n) != nil {
			return s.ID
		}
	}
	return ""
}

package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/store/storetest"
)

// Damage found by one command is known to the next ones: a run into a new
// session, which would touch only intact pages, still refuses to write
// into the damaged file until --force. A db check that finds the file
// sound again lifts it.
func TestDamageFoundOnceIsKnownToLaterCommands(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	sound := filepath.Join(dir, "sound.db")
	db, err := store.Open(ctx, sound, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	storetest.BuildHistory(t, db, 40, 2)
	db.Close()
	storetest.Checkpoint(t, sound)
	path := filepath.Join(dir, "agentdeck.db")
	storetest.CopyFile(t, sound, path)
	storetest.ZeroLeafPage(t, path, "events", 0)

	srv := llmtest.NewServer(t)
	srv.Respond(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Chunks: llmtest.Text("ok", 1)} })
	sessions := func() int {
		r := agentdeck(t, path, srv.URL(), nil, nil, "sessions", "list")
		return strings.Count(r.stdout, "\n")
	}

	if r := agentdeck(t, path, srv.URL(), nil, nil, "db", "check"); r.code != ExitFailed {
		t.Fatalf("db check should find the damage: %d %s", r.code, r.stdout)
	}
	if _, err := os.Stat(store.DamageMark(path)); err != nil {
		t.Fatalf("the damage was not remembered beside the file: %v", err)
	}
	before := sessions()
	r := agentdeck(t, path, srv.URL(), nil, nil, "run", "a new question")
	if r.code != ExitFailed || !strings.Contains(r.stderr, "is damaged") || !strings.Contains(r.stderr, "--force") || strings.Count(r.stderr, salvageAdvice) != 1 {
		t.Fatalf("a run into a new session must refuse, saying why once: %d %q", r.code, r.stderr)
	}
	if after := sessions(); after != before {
		t.Fatalf("the refused run wrote a session (%d, were %d)", after, before)
	}
	if r := agentdeck(t, path, srv.URL(), nil, nil, "run", "--force", "a new question"); r.code != ExitOK {
		t.Fatalf("--force writes anyway: %d %s", r.code, r.stderr)
	}

	// The file is replaced by a sound copy: the check says so and lifts it.
	os.Remove(path + "-wal")
	storetest.CopyFile(t, sound, path)
	check := agentdeck(t, path, srv.URL(), nil, nil, "db", "check")
	if check.code != ExitOK || !strings.Contains(check.stderr, "damage found earlier") {
		t.Fatalf("a sound file checks ok and the earlier damage is lifted: %d %q %q", check.code, check.stdout, check.stderr)
	}
	if _, err := os.Stat(store.DamageMark(path)); !os.IsNotExist(err) {
		t.Fatalf("the mark is still there (%v)", err)
	}
	if r := agentdeck(t, path, srv.URL(), nil, nil, "run", "and now"); r.code != ExitOK || strings.Contains(r.stderr, "damaged") {
		t.Fatalf("after a sound check runs write again: %d %q", r.code, r.stderr)
	}
}

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/store/storetest"
)

// TestEveryWriteRefusesADamagedDatabase: in a database known to be
// damaged (the mark an earlier command left beside it), every command that
// writes refuses without --force, saying what it did not do, why and how to
// go on (the advice once), and the file's bytes are as they were; with
// --force it writes. The list is write.go's.
func TestEveryWriteRefusesADamagedDatabase(t *testing.T) {
	t.Parallel()
	srv := geoServer(t)
	base, suite, dir := evalSetup(t, srv, geoSuite)
	sess, tr, file := runAndExport(t, base, srv.URL(), "hello")

	tests := []struct {
		name string
		args []string
		what string
		// forced is the exit code with --force; -1: not run (the worker
		// of --temporal is not here, see TestHandOverFlags).
		forced int
	}{
		{"run", []string{"run", "a new question"}, "start the turn", ExitOK},
		{"run in a session", []string{"run", "--session", sess, "and then?"}, "start the turn", ExitOK},
		{"replay", []string{"replay", tr}, "start the replay", ExitOK},
		{"sessions import", []string{"sessions", "import", file}, "import the session", ExitOK},
		{"sessions delete", []string{"sessions", "delete", sess}, "delete the session", ExitOK},
		{"sessions fork", []string{"sessions", "fork", tr}, "fork the session", ExitOK},
		{"providers add", []string{"providers", "add", "other", "--base-url", srv.URL(), "--model", "m", "--default"}, "save the provider", ExitOK},
		{"providers add with a key", []string{"providers", "add", "keyed", "--base-url", srv.URL(), "--api-key-env", "OPENAI_API_KEY"}, "save the provider", -1},
		{"providers remove", []string{"providers", "remove", "fake"}, "remove the provider", ExitOK},
		{"eval", []string{"eval", suite, "--filter", "^capital$", "--repeat", "1"}, "run the suite", ExitOK},
		{"eval on Temporal", []string{"eval", suite, "--temporal", "127.0.0.1:1", "--share", dir}, "run the suite", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "agentdeck.db")
			storetest.CopyFile(t, base, path)
			if err := os.WriteFile(store.DamageMark(path), []byte("the events table has a damaged page\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			before := storetest.Files(t, path)
			r := agentdeck(t, path, srv.URL(), nil, nil, tt.args...)
			if r.code != ExitFailed || !strings.Contains(r.stderr, "Agentdeck did not "+tt.what+": the database is damaged (the events table has a damaged page)") ||
				!strings.Contains(r.stderr, "--force") || strings.Count(r.stderr, salvageAdvice) != 1 {
				t.Fatalf("not refused as a write into a damaged file: %d\n%s", r.code, r.stderr)
			}
			if !bytes.Equal(before, storetest.Files(t, path)) {
				t.Fatal("the refused command changed the database's bytes")
			}
			if leftovers := dirNames(t, filepath.Dir(path)); !slices.Equal(leftovers, []string{"agentdeck.db", "agentdeck.db.damaged"}) {
				t.Fatalf("the refused command left %v beside the database", leftovers)
			}
			if tt.forced < 0 {
				return
			}
			r = agentdeck(t, path, srv.URL(), nil, nil, append(tt.args, "--force")...)
			if r.code != tt.forced || strings.Contains(r.stderr, "did not "+tt.what) {
				t.Fatalf("with --force: %d\n%s", r.code, r.stderr)
			}
			if bytes.Equal(before, storetest.Files(t, path)) {
				t.Fatal("with --force the command wrote nothing")
			}
		})
	}
}

// TestHandOverFlags: eval --temporal finds the database it would write
// into, and hands the worker its args without --force, which only this
// command line takes.
func TestHandOverFlags(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args  []string
		db    string
		force bool
		rest  []string
	}{
		{[]string{"s.yaml", "--temporal", "h:1"}, "", false, []string{"s.yaml", "--temporal", "h:1"}},
		{[]string{"s.yaml", "--db", "x.db", "--force", "--temporal", "h:1"}, "x.db", true, []string{"s.yaml", "--db", "x.db", "--temporal", "h:1"}},
		{[]string{"-db=x.db", "-force=true", "s.yaml"}, "x.db", true, []string{"-db=x.db", "s.yaml"}},
		{[]string{"--force=false", "s.yaml"}, "", false, []string{"s.yaml"}},
		{[]string{"s.yaml", "--", "--force", "--db", "y.db"}, "", false, []string{"s.yaml", "--", "--force", "--db", "y.db"}},
	} {
		db, force, rest := handOverFlags(tt.args)
		if db != tt.db || force != tt.force || !slices.Equal(rest, tt.rest) {
			t.Errorf("handOverFlags(%q) = %q %v %q, want %q %v %q", tt.args, db, force, rest, tt.db, tt.force, tt.rest)
		}
	}
}

// dirNames lists a folder's files, but the logs and the SQLite's shared
// memory file, which a command that only reads leaves too.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if n := e.Name(); !strings.HasSuffix(n, "-shm") && !strings.HasSuffix(n, "-wal") && !strings.HasPrefix(n, "agentdeck.log") {
			out = append(out, n)
		}
	}
	return out
}

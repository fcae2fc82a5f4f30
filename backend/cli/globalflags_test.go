package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
)

// The global flags work before the command, as git's and docker's do, and
// after it: `agentdeck --db X run` opens X, as `agentdeck run --db X` does,
// never the default database (AGENTDECK_DB here).
func TestGlobalFlagsBeforeOrAfterTheCommand(t *testing.T) {
	t.Parallel()
	commands := []struct {
		name string
		cmd  []string // the command's words
		args []string // its arguments, after the flags
	}{
		{"run", []string{"run"}, []string{"Say hi"}},
		{"sessions list", []string{"sessions", "list"}, nil},
		{"turns show", []string{"turns", "show"}, []string{"no-such-turn"}},
		{"replay", []string{"replay"}, []string{"no-such-turn"}},
		{"db check", []string{"db", "check"}, nil},
		{"providers list", []string{"providers", "list"}, nil},
		{"usage", []string{"usage"}, nil},
		{"eval runs", []string{"eval", "runs"}, nil},
		{"arena board", []string{"arena", "board"}, nil},
	}
	flags := []struct {
		name  string
		flags func(db string) []string
	}{
		{"--db PATH", func(db string) []string { return []string{"--db", db} }},
		{"-db=PATH", func(db string) []string { return []string{"-db=" + db} }},
		{"--verbose --db PATH", func(db string) []string { return []string{"--verbose", "--db", db} }},
	}
	for _, c := range commands {
		for _, fl := range flags {
			for _, before := range []bool{true, false} {
				where := "after"
				if before {
					where = "before"
				}
				t.Run(c.name+"/"+fl.name+" "+where, func(t *testing.T) {
					srv := llmtest.NewServer(t)
					srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("Hi.", 2)})
					dir := t.TempDir()
					db, other := filepath.Join(dir, "chosen.db"), filepath.Join(dir, "default.db")
					if r := agentdeck(t, db, srv.URL(), nil, nil, "sessions", "list"); r.code != ExitOK {
						t.Fatalf("making %s: %d %s", db, r.code, r.stderr)
					}
					var args []string
					if before {
						args = append(append(append(args, fl.flags(db)...), c.cmd...), c.args...)
					} else {
						args = append(append(append(args, c.cmd...), fl.flags(db)...), c.args...)
					}
					r := agentdeck(t, other, srv.URL(), nil, nil, args...)
					if r.code == ExitUsage || strings.Contains(r.stderr, "unexpected argument") || strings.Contains(r.stderr, "not defined") {
						t.Fatalf("agentdeck %s: a usage error (%d): %s", strings.Join(args, " "), r.code, r.stderr)
					}
					if _, err := os.Stat(other); err == nil {
						t.Fatalf("agentdeck %s opened the default database, not --db", strings.Join(args, " "))
					}
					if c.name == "run" {
						if r.code != ExitOK {
							t.Fatalf("run: %d %s", r.code, r.stderr)
						}
						list := agentdeck(t, db, srv.URL(), nil, nil, "sessions", "list", "--json")
						if !strings.Contains(list.stdout, "Say hi") {
							t.Fatalf("the turn is not in %s: %s", db, list.stdout)
						}
					}
				})
			}
		}
	}
}

// A --db before the command without its value is a usage error that says so.
func TestGlobalDBWithoutAValue(t *testing.T) {
	t.Parallel()
	r := runMain(t, t.TempDir(), "--db")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "--db needs a database file") || r.desktop != nil {
		t.Fatalf("exit %d, stderr %q, desktop %v", r.code, r.stderr, r.desktop)
	}
}

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
)

// The messages a person gets for the common faults: each names what went
// wrong and what to do, on one line of stderr, with the right exit code,
// and none is a bare "… failed" or a log line.
func TestMessagesForCommonFaults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("fine", 1)})
	first := agentdeck(t, db, srv.URL(), nil, nil, "run", "--capture", "off", "hello")
	if first.code != ExitOK {
		t.Fatalf("setup run: %d %s", first.code, first.stderr)
	}
	sess, tr := idsOf(t, first.stderr)

	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	badWorkflow := write("bad.yaml", "name: bad\nkind: chat\nagent: writer\nagents:\n  writer:\n    max_stepz: 3\n")
	badImport := write("bad.json", `{"format":"agentdeck-session","version":2,"session":{"id":"s"},"turns":{"seq":1}}`)
	exists := write("exists.md", "keep me")
	garbage := write("garbage.db", strings.Repeat("not a database ", 400))
	notDir := write("file.txt", "x")
	photo := write("photo.csv", "\x89PNG\r\n\x1a\n\x00\x00binary")

	tests := []struct {
		name  string
		args  []string
		code  int
		wants []string
	}{
		{"show a missing session", []string{"sessions", "show", "nope"}, ExitFailed, []string{"no session nope"}},
		{"show a missing turn", []string{"turns", "show", "nope"}, ExitFailed, []string{"no turn nope"}},
		{"delete a missing session", []string{"sessions", "delete", "nope"}, ExitFailed, []string{"no session nope"}},
		{"replay a missing turn", []string{"replay", "nope"}, ExitFailed, []string{"no turn nope"}},
		{"replay an unrecorded turn", []string{"replay", tr}, ExitUsage, []string{"no recorded model calls", "Re-run it"}},
		{"a workflow that does not exist", []string{"run", "--workflow", "nosuch", "hi"}, ExitUsage, []string{`no workflow named "nosuch"`}},
		{"a workflow file with a typo", []string{"run", "--workflow", badWorkflow, "hi"}, ExitUsage, []string{"bad.yaml", "max_stepz"}},
		{"a model server that is down", []string{"run", "--base-url", "http://127.0.0.1:1/v1", "hi"}, ExitFailed, []string{"Cannot connect to http://127.0.0.1:1/v1", "Is the server running?"}},
		{"an attachment that is not a table", []string{"run", "--attach", photo, "hi"}, ExitUsage, []string{"photo.csv"}},
		{"an attachment that is not there", []string{"run", "--attach", filepath.Join(dir, "gone.csv"), "hi"}, ExitFailed, []string{"gone.csv"}},
		{"import a file that is not there", []string{"sessions", "import", filepath.Join(dir, "gone.json")}, ExitFailed, []string{"cannot open", "gone.json"}},
		{"import a damaged file", []string{"sessions", "import", badImport}, ExitUsage, []string{"turns holds an object where a list belongs"}},
		{"export over a file", []string{"sessions", "export", sess, "--format", "md", "-o", exists}, ExitFailed, []string{"exists.md", "must not exist yet"}},
		{"back up over a file", []string{"db", "backup", exists}, ExitFailed, []string{"exists.md"}},
		{"a database that is not one", []string{"sessions", "list", "--db", garbage}, ExitFailed, []string{"garbage.db", "not an Agentdeck database"}},
		{"a database under a file", []string{"sessions", "list", "--db", filepath.Join(notDir, "a.db")}, ExitFailed, []string{"file.txt", "--db"}},
	}
	bare := regexp.MustCompile(`(?i)failed\.?\s*$`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := agentdeck(t, db, srv.URL(), nil, nil, tt.args...)
			msg := strings.TrimSpace(r.stderr)
			if r.code != tt.code {
				t.Errorf("exit %d, want %d; stderr %q", r.code, tt.code, msg)
			}
			for _, w := range tt.wants {
				if !strings.Contains(msg, w) {
					t.Errorf("stderr %q lacks %q", msg, w)
				}
			}
			if bare.MatchString(msg) || strings.Contains(msg, "level=") || strings.Contains(msg, "goroutine") {
				t.Errorf("a message without its cause, or a log line: %q", msg)
			}
		})
	}
	// Only the turn that reached a model (the server that was down) is a
	// session; the messages refused before that left none.
	list := agentdeck(t, db, srv.URL(), nil, nil, "sessions", "list")
	if n := strings.Count(list.stdout, "  hi\n"); n != 1 {
		t.Errorf("%d sessions titled hi, want the dead server's only:\n%s", n, list.stdout)
	}
	if b, _ := os.ReadFile(exists); !bytes.Equal(b, []byte("keep me")) {
		t.Error("an export or backup overwrote a file")
	}
}

// idsOf reads the session and turn ids from run's closing line.
func idsOf(t *testing.T, stderr string) (session, tr string) {
	t.Helper()
	for _, l := range strings.Split(stderr, "\n") {
		if f := strings.Fields(l); len(f) == 4 && f[0] == "session" && f[2] == "turn" {
			return f[1], f[3]
		}
	}
	t.Fatalf("no session/turn line in %q", stderr)
	return "", ""
}

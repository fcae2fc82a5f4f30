package workspace_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/workspace"
)

// fixture is a workspace folder and a sibling folder outside it.
type fixture struct {
	ws      string // the workspace folder
	outside string // holds secret.txt
	w       *workspace.Workspace
}

// newFixture builds this tree in a temp dir:
//
//	ws/a.txt             alpha, beta, gamma
//	ws/dir/b.txt         b
//	ws/dir/sub/c.go      package c
//	ws/.git/HEAD
//	ws/bin.dat           has NUL bytes
//	ws/latin1.txt        not UTF-8
//	ws/etc     -> /etc                 absolute, outside
//	ws/up      -> ../outside           relative folder, outside
//	ws/upfile  -> ../outside/secret.txt
//	ws/c1 -> c2 -> c3 -> up            a chain that ends outside
//	ws/good1 -> good2 -> dir/b.txt     a chain that stays inside
//	ws/indir   -> dir
//	ws/loop1 <-> ws/loop2
//	ws/absin   -> <ws>/a.txt           absolute, inside
//	ws/dir/esc -> ../../outside
//	ws/dangling -> nothing.txt
//	ws/odd     -> missing/../a.txt     .. after a missing folder
//	outside/secret.txt
func newFixture(t testing.TB, lim workspace.Limits) *fixture {
	t.Helper()
	base := t.TempDir()
	f := &fixture{ws: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside")}
	files := map[string]string{
		"ws/a.txt":           "alpha\nbeta\ngamma\n",
		"ws/dir/b.txt":       "b\n",
		"ws/dir/sub/c.go":    "package c\n",
		"ws/.git/HEAD":       "ref: refs/heads/main\n",
		"ws/bin.dat":         "PK\x03\x04\x00\x00binary",
		"ws/latin1.txt":      "caf\xe9\n",
		"outside/secret.txt": "secret\n",
	}
	for name, content := range files {
		writeFile(t, filepath.Join(base, name), content)
	}
	links := [][2]string{
		{"etc", "/etc"},
		{"up", "../outside"},
		{"upfile", "../outside/secret.txt"},
		{"c1", "c2"}, {"c2", "c3"}, {"c3", "up"},
		{"good1", "good2"}, {"good2", "dir/b.txt"},
		{"indir", "dir"},
		{"loop1", "loop2"}, {"loop2", "loop1"},
		{"absin", filepath.Join(f.ws, "a.txt")},
		{"dir/esc", "../../outside"},
		{"dangling", "nothing.txt"},
		{"odd", "missing/../a.txt"},
	}
	for _, l := range links {
		if err := os.Symlink(l[1], filepath.Join(f.ws, l[0])); err != nil {
			t.Skipf("symlinks are not available: %v", err)
		}
	}
	w, err := workspace.New(f.ws, lim)
	if err != nil {
		t.Fatal(err)
	}
	f.w = w
	return f
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// call runs a tool the way the engine does: arguments checked against the
// schema first. A schema rejection fails the test.
func call(t *testing.T, w *workspace.Workspace, name, args string) (string, error) {
	t.Helper()
	ts, err := tool.NewSet(w.Tools()...)
	if err != nil {
		t.Fatal(err)
	}
	valid, err := ts.Validate(name, args)
	if err != nil {
		t.Fatalf("%s %s: schema rejected the arguments: %v", name, args, err)
	}
	tool, _ := ts.Get(name)
	return tool.Execute(context.Background(), valid)
}

// wantErr fails unless err's text has every part.
func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one with %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}

// wantRefused fails unless err is a *RefusedError for path whose text names
// the path and contains reason.
func wantRefused(t *testing.T, err error, path, reason string) {
	t.Helper()
	var r *workspace.RefusedError
	if !errors.As(err, &r) {
		t.Fatalf("error %v (%T) is not a *RefusedError", err, err)
	}
	if r.Path != path {
		t.Errorf("Path = %q, want %q", r.Path, path)
	}
	wantErr(t, err, strconv.Quote(path), reason)
}

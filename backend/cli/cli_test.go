package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/buildinfo"
	"github.com/agentdeck/agentdeck/backend/paths"
)

type run struct {
	code           int
	stdout, stderr string
	desktop        *DesktopStart
}

func runMain(t *testing.T, home string, args ...string) run {
	t.Helper()
	var out, errb bytes.Buffer
	var got *DesktopStart
	env := Env{
		Stdout: &out,
		Stderr: &errb,
		Paths:  paths.Env{GOOS: "linux", Home: home, Getenv: func(string) string { return "" }},
		Getenv: func(string) string { return "" },
		Info:   buildinfo.Info{Version: "1.4.2", Commit: "f3138d48c6c1"},
		Desktop: func(ctx context.Context, s DesktopStart) error {
			got = &s
			return nil
		},
	}
	code := Main(context.Background(), args, env)
	return run{code, out.String(), errb.String(), got}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	r := runMain(t, t.TempDir(), "version")
	if r.code != ExitOK || r.stdout != "agentdeck 1.4.2 (commit f3138d48c6c1)\n" {
		t.Fatalf("version: code %d, out %q", r.code, r.stdout)
	}
	if r.desktop != nil {
		t.Fatal("version opened the window")
	}
	r = runMain(t, t.TempDir(), "version", "--json")
	var info buildinfo.Info
	if err := json.Unmarshal([]byte(r.stdout), &info); err != nil || info.Version != "1.4.2" || info.Commit != "f3138d48c6c1" {
		t.Fatalf("version --json: %q, %v", r.stdout, err)
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"frobnicate"}, {"--nope"}, {"version", "--nope"}, {"--db", "x.db", "extra"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := runMain(t, t.TempDir(), args...)
			if r.code != ExitUsage {
				t.Fatalf("exit %d, want %d", r.code, ExitUsage)
			}
			if r.stderr == "" {
				t.Fatal("no message on stderr")
			}
			if r.desktop != nil {
				t.Fatal("a usage error opened the window")
			}
		})
	}
}

func TestDesktopOpensTheDatabaseInTheDataDir(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	r := runMain(t, home)
	if r.code != ExitOK || r.desktop == nil {
		t.Fatalf("exit %d, desktop %v, stderr %s", r.code, r.desktop, r.stderr)
	}
	want := filepath.Join(home, ".local", "share", "agentdeck", "agentdeck.db")
	if r.desktop.DBPath != want || r.desktop.DBErr != nil {
		t.Fatalf("db %q err %v, want %q", r.desktop.DBPath, r.desktop.DBErr, want)
	}
	if _, err := os.Stat(want); err != nil {
		t.Fatalf("database file not created: %v", err)
	}
}

func TestDesktopStartsEvenWhenTheDatabaseCannotOpen(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "bad.db")
	os.WriteFile(bad, bytes.Repeat([]byte("garbage!"), 1000), 0o600)
	r := runMain(t, t.TempDir(), "--db", bad)
	// DB must be the nil interface, not the failed Open's nil *store.DB
	// in one, or app.Open would take it for a database.
	if r.desktop == nil || r.desktop.DBErr == nil || r.desktop.DB != nil {
		t.Fatalf("want the window to open with the error, got %+v", r.desktop)
	}
	if !strings.Contains(r.stderr, "not an Agentdeck database") || strings.Contains(r.stderr, "goroutine") {
		t.Fatalf("stderr should explain the problem plainly: %q", r.stderr)
	}
}

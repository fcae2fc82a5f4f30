//go:build !windows

package cli

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/buildinfo"
	"github.com/agentdeck/agentdeck/backend/paths"
)

// fakeWorker is a script standing in for agentdeck-worker: it says its
// arguments, then waits for SIGINT and exits 130, saying so.
func fakeWorker(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agentdeck-worker")
	script := "#!/bin/sh\ntrap 'echo interrupted; exit 130' INT\necho \"args: $*\"\nwhile :; do sleep 1 & wait $!; done\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestEvalHandsOverToTheWorker: eval --temporal runs agentdeck-worker eval
// with the same arguments, passes on its output, one signal per signal
// this process gets, and its exit code; without agentdeck-worker it says
// how to build it; an eval without --temporal runs here as before.
func TestEvalHandsOverToTheWorker(t *testing.T) {
	t.Parallel()
	bin := fakeWorker(t)
	pr, pw := io.Pipe()
	signals := make(chan os.Signal, 1)
	var stderr syncBuffer
	noVars := func(string) string { return "" }
	env := Env{Stdout: pw, Stderr: &stderr, Signals: signals, Info: buildinfo.Info{Version: "test"}, Paths: paths.Env{GOOS: "linux", Home: t.TempDir(), Getenv: noVars},
		Getenv: noVars, FindWorker: func() (string, error) { return bin, nil }}
	codes := make(chan int, 1)
	go func() {
		codes <- Main(context.Background(), []string{"eval", "suite.yaml", "--temporal=127.0.0.1:7233", "--share", "/x", "--repeat", "2"}, env)
		pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	if !lines.Scan() || lines.Text() != "args: eval suite.yaml --temporal=127.0.0.1:7233 --share /x --repeat 2" {
		t.Fatalf("the worker was given %q", lines.Text())
	}
	signals <- os.Interrupt
	if !lines.Scan() || lines.Text() != "interrupted" {
		t.Fatalf("the worker said %q after the signal", lines.Text())
	}
	if code := <-codes; code != ExitCancelled {
		t.Fatalf("exit %d, want the worker's 130: %s", code, stderr.String())
	}
	for lines.Scan() {
	}

	env.FindWorker = func() (string, error) { return "", errors.New("not found") }
	env.Stdout = io.Discard
	if code := Main(context.Background(), []string{"eval", "suite.yaml", "--temporal", "h:1"}, env); code != ExitFailed || !strings.Contains(stderr.String(), "make worker") {
		t.Fatalf("no worker: exit %d, %q", code, stderr.String())
	}

	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"s.yaml", "--temporal", "h:1"}, true},
		{[]string{"--temporal=h:1", "s.yaml"}, true},
		{[]string{"-temporal", "h:1", "s.yaml"}, true},
		{[]string{"s.yaml", "--models", "a/b"}, false},
		{[]string{"--", "--temporal"}, false},
		{[]string{"s.yaml", "--temporality"}, false},
	} {
		if got := wantsTemporal(c.args); got != c.want {
			t.Errorf("wantsTemporal(%q) = %v", c.args, got)
		}
	}
}

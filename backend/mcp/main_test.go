package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/tool"
	"go.uber.org/goleak"
)

// testServer is the path of internal/testserver, built once for all tests.
var testServer string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcp-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testServer = filepath.Join(dir, "testserver")
	if runtime.GOOS == "windows" {
		testServer += ".exe"
	}
	build := exec.Command("go", "build", "-o", testServer, "./internal/testserver")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the test server: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	// Every Manager in these tests is closed, and Close waits for what it
	// started, so no goroutine may be left: not the SDK's, not ours.
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		os.RemoveAll(dir)
		os.Exit(code)
	}))
}

// newManager returns a Manager that logs to the test and is closed with it.
func newManager(t *testing.T, opts Options) *Manager {
	t.Helper()
	m := NewManager(slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug})), opts)
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return m
}

// testWriter sends log lines to t.Log, and drops them once the test is over
// (a goroutine may still log during Cleanup).
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// stdio is a config for the test server.
func stdio(name string, args ...string) ServerConfig {
	return ServerConfig{Name: name, Type: TransportStdio, Command: testServer, Args: args}
}

// pids records the PID of every stdio server a Manager starts.
type pids struct {
	mu sync.Mutex
	m  map[string]int
}

func watchPIDs(m *Manager) *pids {
	p := &pids{m: map[string]int{}}
	m.onStart = func(name string, pid int) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.m[name] = pid
	}
	return p
}

func (p *pids) get(t *testing.T, name string) int {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	pid, ok := p.m[name]
	if !ok {
		t.Fatalf("server %q was never started", name)
	}
	return pid
}

// findTool returns the tool with the given exposed name.
func findTool(t *testing.T, tools []tool.Tool, name string) tool.Tool {
	t.Helper()
	var names []string
	for _, tl := range tools {
		if tl.Spec().Name == name {
			return tl
		}
		names = append(names, tl.Spec().Name)
	}
	t.Fatalf("no tool %q; have %v", name, names)
	return nil
}

func call(t *testing.T, tl tool.Tool, args string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return tl.Execute(ctx, json.RawMessage(args))
}

func connectOK(t *testing.T, m *Manager, servers ...ServerConfig) []ServerStatus {
	t.Helper()
	sts := m.Connect(context.Background(), servers)
	for _, st := range sts {
		if !st.Disabled && !st.Connected {
			t.Fatalf("server %q did not connect: %s", st.Name, st.Error)
		}
	}
	return sts
}

func statusOf(t *testing.T, m *Manager, name string) ServerStatus {
	t.Helper()
	for _, st := range m.Status() {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("no status for %q", name)
	return ServerStatus{}
}

//go:build unix

package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/tool"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"
)

// gone reports whether pid no longer exists: exited and reaped. A zombie
// still answers kill(pid, 0), so this also catches a child nobody waited for.
func gone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// waitExit blocks until pid has exited (a zombie counts), woken by the
// kernel through a pidfd rather than by polling; only the test's own
// timeout bounds it. That the manager also reaps its children is checked
// after Close, which waits for them (TestStdioCloseLeavesNoProcess).
func waitExit(t *testing.T, what string, pid int) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return // already exited and reaped
	}
	if err != nil {
		t.Fatalf("watching %s (pid %d): %v", what, pid, err)
	}
	defer unix.Close(fd)
	for {
		_, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, -1)
		if err == nil {
			return
		}
		if !errors.Is(err, unix.EINTR) {
			t.Fatalf("waiting for %s (pid %d) to exit: %v", what, pid, err)
		}
	}
}

func TestStdioListsToolsWithPrefix(t *testing.T) {
	m := newManager(t, Options{})
	sts := connectOK(t, m, stdio("alpha"))

	want := []string{"add", "crash", "cwd", "echo", "env", "fail", "image", "slow"}
	if st := sts[0]; st.Transport != TransportStdio || !slices.Equal(st.Tools, want) {
		t.Fatalf("status = %+v, want transport stdio and tools %v", st, want)
	}
	tools := m.Tools()
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Spec().Name)
	}
	if wantNames := []string{"alpha__add", "alpha__crash", "alpha__cwd", "alpha__echo", "alpha__env", "alpha__fail", "alpha__image", "alpha__slow"}; !slices.Equal(names, wantNames) {
		t.Fatalf("tool names = %v, want %v", names, wantNames)
	}

	tests := []struct {
		tool        string
		description string
		sideEffects bool
		schemaHas   string
	}{
		{"alpha__echo", "[alpha] Echo the text back.", false, `"text"`},
		{"alpha__add", "[alpha] Add two numbers.", false, `"b"`},
		{"alpha__slow", "[alpha] Take a while.", true, `"ms"`},
		{"alpha__crash", "[alpha] Exit in the middle of the call.", true, `"object"`},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			spec := findTool(t, tools, tt.tool).Spec()
			if spec.Description != tt.description {
				t.Errorf("description = %q, want %q", spec.Description, tt.description)
			}
			if spec.SideEffects != tt.sideEffects {
				t.Errorf("SideEffects = %v, want %v (read-only hint)", spec.SideEffects, tt.sideEffects)
			}
			if !strings.Contains(string(spec.Parameters), tt.schemaHas) {
				t.Errorf("schema %s does not mention %s", spec.Parameters, tt.schemaHas)
			}
		})
	}
	// The agent must accept every tool as it is.
	if _, err := tool.NewSet(tools...); err != nil {
		t.Fatalf("tool.NewSet: %v", err)
	}
}

func TestStdioCalls(t *testing.T) {
	m := newManager(t, Options{})
	cfg := stdio("alpha")
	cfg.Env = map[string]string{"MCP_TEST_GREETING": "hello from the config"}
	cfg.Cwd = t.TempDir()
	connectOK(t, m, cfg)
	tools := m.Tools()

	tests := []struct {
		tool string
		args string
		want string
	}{
		{"alpha__echo", `{"text":"hi there"}`, "hi there"},
		{"alpha__add", `{"a":2,"b":3.5}`, "5.5"},
		{"alpha__image", `{"bytes":12288}`, "a grey square\n[image 12 KB]"},
		{"alpha__env", `{"name":"MCP_TEST_GREETING"}`, "hello from the config"},
		{"alpha__cwd", ``, cfg.Cwd},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			got, err := call(t, findTool(t, tools, tt.tool), tt.args)
			if err != nil || got != tt.want {
				t.Fatalf("Execute = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestStdioToolErrorResult(t *testing.T) {
	m := newManager(t, Options{})
	connectOK(t, m, stdio("alpha"))

	_, err := call(t, findTool(t, m.Tools(), "alpha__fail"), `{}`)
	var te *ToolError
	if !errors.As(err, &te) || err.Error() != "the disk is full" || te.Server != "alpha" || te.Tool != "fail" {
		t.Fatalf("err = %#v, want a *ToolError with the tool's text", err)
	}
	if !statusOf(t, m, "alpha").Connected {
		t.Fatal("a tool's own error must not disconnect its server")
	}
	if got, err := call(t, findTool(t, m.Tools(), "alpha__echo"), `{"text":"still here"}`); err != nil || got != "still here" {
		t.Fatalf("echo after fail = %q, %v", got, err)
	}
}

func TestStdioBadArguments(t *testing.T) {
	m := newManager(t, Options{})
	connectOK(t, m, stdio("alpha"))

	// go-sdk servers check arguments against the schema and answer with an
	// isError result, so the model can fix its call.
	_, err := call(t, findTool(t, m.Tools(), "alpha__add"), `{"a":"two"}`)
	if _, ok := errors.AsType[*ToolError](err); !ok || !strings.Contains(err.Error(), "validating") {
		t.Fatalf("err = %v, want a *ToolError about the arguments", err)
	}
	if !statusOf(t, m, "alpha").Connected {
		t.Fatal("bad arguments must not disconnect the server")
	}
}

func TestStdioRefusedCall(t *testing.T) {
	m := newManager(t, Options{})
	connectOK(t, m, stdio("alpha"))

	// A tool the server does not know: a JSON-RPC error, not a dead server.
	echo := findTool(t, m.Tools(), "alpha__echo").(*serverTool)
	missing := &serverTool{m: m, srv: echo.srv, def: &sdk.Tool{Name: "missing"}, spec: echo.spec}
	_, err := call(t, missing, `{}`)
	if err == nil || !strings.HasPrefix(err.Error(), `MCP server "alpha" refused the call to "missing": `) {
		t.Fatalf("err = %v, want a refused-call error", err)
	}
	if !statusOf(t, m, "alpha").Connected {
		t.Fatal("a refused call must not disconnect the server")
	}
}

func TestStdioCrashMidCall(t *testing.T) {
	m := newManager(t, Options{})
	p := watchPIDs(m)
	connectOK(t, m, stdio("a"), stdio("b"))
	tools := m.Tools()

	_, err := call(t, findTool(t, tools, "a__crash"), `{}`)
	if err == nil {
		t.Fatal("a crashed server returned no error")
	}
	for _, want := range []string{`MCP server "a" exited during the call to "crash"`, "exit status 3", "crashing on purpose", "unavailable until it is reconnected"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	st := statusOf(t, m, "a")
	if st.Connected || !strings.Contains(st.Error, `server "a" exited (exit status 3`) || len(st.Tools) != 0 {
		t.Errorf("status of a = %+v, want disconnected with the exit status", st)
	}
	waitExit(t, "the crashed server", p.get(t, "a"))

	// Its tools answer at once without calling anything.
	if _, err := call(t, findTool(t, tools, "a__echo"), `{"text":"x"}`); err == nil || !strings.HasPrefix(err.Error(), `MCP server "a" exited (exit status 3`) || !strings.HasSuffix(err.Error(), `so "echo" cannot be used until it is reconnected`) {
		t.Errorf("call to a lost server = %v, want a not-connected error", err)
	}
	// The other server keeps working, and is all that Tools lists now.
	if got, err := call(t, findTool(t, tools, "b__echo"), `{"text":"fine"}`); err != nil || got != "fine" {
		t.Errorf("b__echo = %q, %v", got, err)
	}
	for _, tl := range m.Tools() {
		if !strings.HasPrefix(tl.Spec().Name, "b__") {
			t.Errorf("Tools still lists %s", tl.Spec().Name)
		}
	}
}

func TestStdioCallTimeout(t *testing.T) {
	m := newManager(t, Options{CallTimeout: 300 * time.Millisecond})
	p := watchPIDs(m)
	connectOK(t, m, stdio("a"), stdio("b"))
	tools := m.Tools()

	start := time.Now()
	_, err := call(t, findTool(t, tools, "a__slow"), `{"ms":20000}`)
	if err == nil || !strings.HasPrefix(err.Error(), `MCP server "a" stopped responding during the call to "slow" (a call to "slow" got no answer within 300ms); its tools are unavailable`) {
		t.Fatalf("err = %v, want a stopped-responding error", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the call took %s to give up", d)
	}
	if st := statusOf(t, m, "a"); st.Connected || st.Error != `server "a" stopped responding (a call to "slow" got no answer within 300ms)` {
		t.Errorf("status of a = %+v", st)
	}
	waitExit(t, "the hung server", p.get(t, "a"))
	if got, err := call(t, findTool(t, tools, "b__slow"), `{"ms":1}`); err != nil || got != "done" {
		t.Errorf("b__slow = %q, %v", got, err)
	}
}

func TestStdioCloseDuringCall(t *testing.T) {
	m := newManager(t, Options{})
	p := watchPIDs(m)
	connectOK(t, m, stdio("a"))
	slow := findTool(t, m.Tools(), "a__slow")

	started := filepath.Join(t.TempDir(), "started")
	if err := unix.Mkfifo(started, 0o600); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := slow.Execute(context.Background(), fmt.Appendf(nil, `{"ms":20000,"started":%q}`, started))
		errc <- err
	}()
	// The server opens the pipe once the call reaches it: reading blocks
	// until then.
	if _, err := os.ReadFile(started); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	if err := m.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	// The call in flight is cancelled instead of holding Close up.
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %s", d)
	}
	if err := <-errc; err == nil || !strings.HasPrefix(err.Error(), `MCP server "a" was disconnected during the call to "slow" (the MCP servers were closed)`) {
		t.Errorf("err = %v", err)
	}
	if !gone(p.get(t, "a")) {
		t.Error("the server is still running after Close")
	}
}

func TestStdioCallCancelledByCaller(t *testing.T) {
	m := newManager(t, Options{})
	connectOK(t, m, stdio("a"))
	slow := findTool(t, m.Tools(), "a__slow")

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := slow.Execute(ctx, []byte(`{"ms":20000}`)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the caller's context error", err)
	}
	// Stop is the user's doing, not the server's fault.
	if !statusOf(t, m, "a").Connected {
		t.Fatal("cancelling a call disconnected the server")
	}
	if got, err := call(t, findTool(t, m.Tools(), "a__echo"), `{"text":"ok"}`); err != nil || got != "ok" {
		t.Fatalf("echo after a cancelled call = %q, %v", got, err)
	}
}

func TestStdioStartFailures(t *testing.T) {
	tests := []struct {
		name string
		cfg  ServerConfig
		want string
	}{
		{"not on PATH", ServerConfig{Command: "npx-that-is-not-installed"}, `failed to start: exec: "npx-that-is-not-installed": executable file not found in $PATH`},
		{"no such file", ServerConfig{Command: "/nonexistent/mcp-server"}, "failed to start: fork/exec /nonexistent/mcp-server: no such file or directory"},
		{"bad cwd", ServerConfig{Command: testServer, Cwd: "/nonexistent/dir"}, `failed to start: its working directory "/nonexistent/dir" does not exist`},
		{"logs to stdout", ServerConfig{Command: testServer, Args: []string{"-noise"}}, `failed to start: it wrote something that is not MCP to stdout (invalid character 'S' looking for beginning of value); a stdio server must log to stderr`},
		{"exits at once", ServerConfig{Command: testServer, Args: []string{"-exit", "2"}}, `failed to start: it exited (exit status 2) (its last output: "testserver: refusing to start: bad configuration")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newManager(t, Options{})
			tt.cfg.Name = "broken"
			start := time.Now()
			sts := m.Connect(context.Background(), []ServerConfig{tt.cfg, stdio("good")})
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("Connect took %s", d)
			}
			if sts[0].Name != "broken" || sts[0].Connected || !strings.Contains(sts[0].Error, `server "broken" `+tt.want) {
				t.Errorf("status = %+v, want error containing %q", sts[0], tt.want)
			}
			if !sts[1].Connected {
				t.Errorf("the good server did not connect: %+v", sts[1])
			}
		})
	}
}

func TestStdioHangingStart(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep command")
	}
	m := newManager(t, Options{StartTimeout: 500 * time.Millisecond})
	p := watchPIDs(m)

	start := time.Now()
	sts := m.Connect(context.Background(), []ServerConfig{{Name: "mute", Command: sleep, Args: []string{"30"}}, stdio("good")})
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Connect took %s with a 500ms start timeout", d)
	}
	if st := sts[1]; st.Name != "mute" || st.Connected || st.Error != `server "mute" did not answer within 500ms; it was stopped` {
		t.Errorf("status = %+v", st)
	}
	if !sts[0].Connected {
		t.Errorf("the good server did not connect: %+v", sts[0])
	}
	waitExit(t, "the mute server", p.get(t, "mute"))
}

func TestStdioCloseLeavesNoProcess(t *testing.T) {
	m := newManager(t, Options{})
	p := watchPIDs(m)
	connectOK(t, m, stdio("a"), stdio("b"))
	tools := m.Tools()
	a, b := p.get(t, "a"), p.get(t, "b")
	if gone(a) || gone(b) {
		t.Fatal("the servers are not running")
	}

	if err := m.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	// Close waits: no polling here.
	if !gone(a) || !gone(b) {
		t.Fatalf("after Close: a gone %v, b gone %v", gone(a), gone(b))
	}
	if len(m.Tools()) != 0 {
		t.Error("Tools lists tools after Close")
	}
	if _, err := call(t, findTool(t, tools, "a__echo"), `{"text":"x"}`); err == nil {
		t.Error("a tool still works after Close")
	}
	if sts := m.Connect(context.Background(), []ServerConfig{stdio("c")}); sts[0].Connected || sts[0].Error != "the MCP manager is closed" {
		t.Errorf("Connect after Close = %+v", sts[0])
	}
}

func TestStdioCloseEscalates(t *testing.T) {
	m := newManager(t, Options{})
	// Each step of the escalation (stdin closed, SIGTERM, SIGKILL) waits
	// this long for the exit. At 200 ms a loaded machine had not yet reaped
	// the killed server, and the SDK called it unresponsive.
	m.stopGrace = time.Second
	p := watchPIDs(m)
	// This server ignores the end of its stdin and SIGTERM, and has a child.
	connectOK(t, m, stdio("stubborn", "-linger", "-child"))
	out, err := call(t, findTool(t, m.Tools(), "stubborn__child"), `{}`)
	if err != nil {
		t.Fatal(err)
	}
	child, err := strconv.Atoi(out)
	if err != nil {
		t.Fatalf("child PID %q: %v", out, err)
	}

	// Close escalates to SIGKILL and returns: it does not hang on a server
	// that ignores the polite ways to stop.
	if err := m.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if !gone(p.get(t, "stubborn")) {
		t.Error("the server survived Close")
	}
	waitExit(t, "the server's own child", child)
}

func TestStdioDisabledAndReconnect(t *testing.T) {
	m := newManager(t, Options{})
	p := watchPIDs(m)
	off := stdio("off")
	off.Disabled = true
	sts := connectOK(t, m, off, stdio("on"))
	if st := sts[0]; st.Name != "off" || !st.Disabled || st.Connected || st.Error != "" {
		t.Errorf("disabled status = %+v", st)
	}
	p.mu.Lock()
	_, started := p.m["off"]
	p.mu.Unlock()
	if started {
		t.Error("a disabled server was started")
	}

	// Connecting again replaces the previous connections.
	first := p.get(t, "on")
	connectOK(t, m, stdio("on"))
	if !gone(first) {
		t.Error("the previous process of a reconnected server is still there")
	}
	if p.get(t, "on") == first {
		t.Error("the server was not restarted")
	}
	if got, err := call(t, findTool(t, m.Tools(), "on__echo"), `{"text":"again"}`); err != nil || got != "again" {
		t.Errorf("echo after reconnect = %q, %v", got, err)
	}
}

package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// protocolVersion is pinned to the last version negotiated with the classic
// initialize handshake. Left to itself, go-sdk v1.8 first tries the
// 2026-07-28 "server/discover" request, which servers on older SDKs may
// reject before initialize (or worse); every server in use today speaks
// initialize, and negotiates down from here if it needs to.
const protocolVersion = "2025-11-25"

// defaultStopGrace is how long a stdio server gets to exit after its stdin
// is closed, and again after SIGTERM, before it is killed.
const defaultStopGrace = 2 * time.Second

// server is one live connection.
type server struct {
	cfg     ServerConfig
	index   int // of its status in Manager.statuses
	session *sdk.ClientSession
	proc    *os.Process // stdio only
	cmd     *exec.Cmd   // stdio only
	stderr  *stderrTail // stdio only
	tools   []remoteTool

	done   chan struct{} // closed when the session has ended, for any reason
	endErr error         // why it ended; read after done

	// life ends when the server is stopped; it cancels calls in flight, so
	// that closing the session does not wait for them.
	life context.Context
	end  context.CancelFunc

	// Why the server was lost, once it is; guarded by Manager.mu.
	lostWhat, lostDetail string

	stopOnce sync.Once
	stopErr  error
}

// connect starts or dials one server and lists its tools. On success it
// registers the server and starts watching it. Either way it records the
// outcome in m.statuses[index].
func (m *Manager) connect(ctx context.Context, sc ServerConfig, index int) {
	st := ServerStatus{Name: sc.Name, Transport: sc.Type}
	s := &server{cfg: sc, index: index, done: make(chan struct{})}
	s.life, s.end = context.WithCancel(context.Background())
	startCtx, cancel := context.WithTimeout(ctx, m.opts.StartTimeout)
	defer cancel()

	var err error
	switch sc.Type {
	case TransportStdio:
		err = m.startStdio(startCtx, s)
	case TransportHTTP:
		err = m.dialHTTP(startCtx, s)
	default:
		err = fmt.Errorf("unknown transport %q; expected %q or %q", sc.Type, TransportStdio, TransportHTTP)
	}
	if err != nil {
		s.end()
		st.Error = m.startError(ctx, startCtx, s, err)
		m.log.Warn("MCP server did not connect", "server", sc.Name, "error", st.Error)
		m.mu.Lock()
		m.statuses[index] = st
		m.mu.Unlock()
		return
	}

	st.Connected = true
	for _, t := range s.tools {
		st.Tools = append(st.Tools, t.def.Name)
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		_ = s.stop(false)
		st.Connected, st.Tools, st.Error = false, nil, "the MCP manager is closed"
		m.mu.Lock()
		m.statuses[index] = st
		m.mu.Unlock()
		return
	}
	m.servers[sc.Name] = s
	m.statuses[index] = st
	m.watchers.Add(1)
	m.mu.Unlock()
	go m.watch(s)
	m.log.Info("MCP server connected", "server", sc.Name, "transport", sc.Type, "tools", len(s.tools))
}

// watch waits for the session to end on its own (a crash, a dropped
// connection) and marks the server lost, so its status is right even when
// nobody was calling it.
func (m *Manager) watch(s *server) {
	defer m.watchers.Done()
	s.endErr = s.session.Wait()
	close(s.done)
	what, detail := s.endState()
	m.lost(s, what, detail)
}

// startStdio starts the command and does the handshake. If startCtx ends
// first, the whole process group is killed at once: that unblocks the SDK,
// which otherwise waits for the child to exit, and leaves nothing behind.
func (m *Manager) startStdio(startCtx context.Context, s *server) error {
	sc := s.cfg
	if sc.Cwd != "" {
		// exec reports a missing directory as a missing command.
		if fi, err := os.Stat(sc.Cwd); err != nil || !fi.IsDir() {
			return fmt.Errorf("its working directory %q does not exist", sc.Cwd)
		}
	}
	cmd := exec.Command(sc.Command, sc.Args...)
	cmd.Dir = sc.Cwd
	if len(sc.Env) > 0 {
		cmd.Env = os.Environ()
		for _, k := range slices.Sorted(maps.Keys(sc.Env)) {
			cmd.Env = append(cmd.Env, k+"="+sc.Env[k])
		}
	}
	s.stderr = &stderrTail{log: m.log.With("server", sc.Name)}
	cmd.Stderr = s.stderr
	// Wait also waits for stderr to be drained; a grandchild that keeps it
	// open must not hold Close up.
	cmd.WaitDelay = m.stopGrace
	ownProcessGroup(cmd)
	s.cmd = cmd

	disarm := func() bool { return true }
	tr := &stdioTransport{
		CommandTransport: sdk.CommandTransport{Command: cmd, TerminateDuration: m.stopGrace},
		started: func(p *os.Process) {
			s.proc = p
			disarm = context.AfterFunc(startCtx, func() { killProcessGroup(p) })
			if m.onStart != nil {
				m.onStart(sc.Name, p.Pid)
			}
		},
	}
	err := m.handshake(startCtx, s, tr)
	if !disarm() && err == nil {
		// The deadline hit just as the handshake finished: the kill is on
		// its way, so this start failed.
		err = startCtx.Err()
	}
	if err != nil && s.proc != nil {
		killProcessGroup(s.proc)
		if s.session != nil {
			_ = s.session.Close() // reaps the child
		}
	}
	return err
}

// stdioTransport is the SDK's CommandTransport, plus a hook that sees the
// process as soon as it is started.
type stdioTransport struct {
	sdk.CommandTransport
	started func(*os.Process)
}

func (t *stdioTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	conn, err := t.CommandTransport.Connect(ctx)
	if err == nil {
		t.started(t.Command.Process)
	}
	return conn, err
}

// dialHTTP connects to a streamable HTTP server.
func (m *Manager) dialHTTP(startCtx context.Context, s *server) error {
	hc := &http.Client{Transport: m.transport}
	if len(s.cfg.Headers) > 0 {
		hc.Transport = headerTransport{base: m.transport, headers: s.cfg.Headers}
	}
	tr := &sdk.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: hc}
	err := m.handshake(startCtx, s, tr)
	if err != nil && s.session != nil {
		_ = s.session.Close()
	}
	return err
}

// handshake connects over tr and lists the server's tools.
func (m *Manager) handshake(ctx context.Context, s *server, tr sdk.Transport) error {
	cs, err := m.client.Connect(ctx, tr, &sdk.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		return err
	}
	s.session = cs
	tools, err := listTools(ctx, cs)
	if err != nil {
		return fmt.Errorf("listing its tools: %w", err)
	}
	s.tools = m.usableTools(s.cfg.Name, tools)
	return nil
}

// listTools reads every page of tools/list.
func listTools(ctx context.Context, cs *sdk.ClientSession) ([]*sdk.Tool, error) {
	var out []*sdk.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// startError explains why a server did not connect, in words a user can act on.
func (m *Manager) startError(ctx, startCtx context.Context, s *server, err error) string {
	name := s.cfg.Name
	var msg string
	switch {
	case ctx.Err() != nil:
		msg = fmt.Sprintf("connecting to server %q was cancelled", name)
	case errors.Is(startCtx.Err(), context.DeadlineExceeded):
		msg = fmt.Sprintf("server %q did not answer within %s", name, m.opts.StartTimeout)
		if s.proc != nil {
			msg += "; it was stopped"
		}
	case s.cfg.Type == TransportHTTP:
		if ue, ok := errors.AsType[*url.Error](err); ok {
			msg = fmt.Sprintf("server %q could not be reached at %s: %v", name, s.cfg.URL, ue.Err)
		} else {
			msg = fmt.Sprintf("server %q at %s did not accept the connection: %v", name, s.cfg.URL, err)
		}
	case s.proc == nil:
		msg = fmt.Sprintf("server %q failed to start: %v", name, err)
	case s.session != nil:
		msg = fmt.Sprintf("server %q started, but %v", name, err)
	case isNoise(err):
		msg = fmt.Sprintf("server %q failed to start: %s", name, noiseText(err))
	case exitedEarly(s.cmd, err):
		msg = fmt.Sprintf("server %q failed to start: it exited (%s)", name, s.cmd.ProcessState)
	default:
		msg = fmt.Sprintf("server %q failed to start: %v", name, err)
	}
	if s.stderr != nil {
		if line := s.stderr.last(); line != "" {
			msg += fmt.Sprintf(" (its last output: %q)", line)
		}
	}
	return msg
}

// exitedEarly reports whether a stdio server failed the handshake because
// it exited. The SDK has reaped the child by the time Connect returns an
// error, so ProcessState is safe to read.
func exitedEarly(cmd *exec.Cmd, err error) bool {
	ps := cmd.ProcessState
	return ps != nil && (!ps.Success() || errors.Is(err, io.EOF) || errors.Is(err, sdk.ErrConnectionClosed))
}

// isNoise reports whether a stdio server wrote something that is not
// JSON-RPC to stdout: the SDK gives up on the session at the first such line.
func isNoise(err error) bool {
	_, ok := errors.AsType[*json.SyntaxError](err)
	return ok
}

func noiseText(err error) string {
	syn, _ := errors.AsType[*json.SyntaxError](err)
	return fmt.Sprintf("it wrote something that is not MCP to stdout (%v); a stdio server must log to stderr", syn)
}

// endState says how the session ended on its own: what happened, and the
// detail (exit status, error, last output). Call it after done is closed.
func (s *server) endState() (what, detail string) {
	if s.cfg.Type == TransportHTTP {
		if s.endErr != nil {
			return "closed the connection", s.endErr.Error()
		}
		return "closed the connection", "no reason given"
	}
	what, detail = "exited", "exit status 0"
	if ee, ok := errors.AsType[*exec.ExitError](s.endErr); ok {
		detail = ee.ProcessState.String()
	} else if isNoise(s.endErr) {
		what, detail = "stopped", noiseText(s.endErr)
	} else if s.endErr != nil {
		what, detail = "stopped", s.endErr.Error()
	}
	if line := s.stderr.last(); line != "" {
		detail += fmt.Sprintf("; its last output: %q", line)
	}
	return what, detail
}

// stop closes the session and, for a stdio server, makes sure its process
// group is gone and the child reaped. With kill, the server is not given the
// chance to exit on its own: it already failed us. stop is idempotent.
func (s *server) stop(kill bool) error {
	s.stopOnce.Do(func() {
		s.end()
		if kill && s.proc != nil {
			killProcessGroup(s.proc)
		}
		// For stdio the SDK closes stdin, waits stopGrace, sends SIGTERM,
		// waits again, then SIGKILLs; and it reaps the child.
		s.stopErr = s.session.Close()
		if s.proc != nil {
			killProcessGroup(s.proc) // what the server itself started
		}
	})
	return s.stopErr
}

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	return t.base.RoundTrip(req)
}

// stderrTail logs what a stdio server writes to stderr, line by line at
// debug level, and keeps the last lines for error messages.
type stderrTail struct {
	log     *slog.Logger
	mu      sync.Mutex
	partial []byte
	lines   []string
}

const (
	tailLines   = 8
	maxLineSize = 300
)

func (t *stderrTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.partial = append(t.partial, p...)
	for {
		i := bytes.IndexByte(t.partial, '\n')
		if i < 0 {
			break
		}
		t.add(string(t.partial[:i]))
		t.partial = t.partial[i+1:]
	}
	if len(t.partial) > 4*maxLineSize { // a very long line without a newline
		t.add(string(t.partial))
		t.partial = t.partial[:0]
	}
	return len(p), nil
}

func (t *stderrTail) add(line string) {
	line = strings.TrimSpace(line)
	if line == "" {
		return
	}
	t.log.Debug("MCP server stderr", "line", line)
	if len(line) > maxLineSize {
		line = line[:maxLineSize] + "…"
	}
	t.lines = append(t.lines, line)
	if len(t.lines) > tailLines {
		t.lines = t.lines[len(t.lines)-tailLines:]
	}
}

// last returns the last non-empty line written, including one that has no
// newline yet.
func (t *stderrTail) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if p := strings.TrimSpace(string(t.partial)); p != "" {
		if len(p) > maxLineSize {
			p = p[:maxLineSize] + "…"
		}
		return p
	}
	if len(t.lines) == 0 {
		return ""
	}
	return t.lines[len(t.lines)-1]
}

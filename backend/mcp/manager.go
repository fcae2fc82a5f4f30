package mcp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os/exec"
	"slices"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentdeck/agentdeck/backend/buildinfo"
	"github.com/agentdeck/agentdeck/backend/tool"
)

// Default timeouts; see Options.
const (
	DefaultStartTimeout = 10 * time.Second
	DefaultCallTimeout  = 60 * time.Second
)

// Options tunes a Manager. Zero values take the defaults.
type Options struct {
	// StartTimeout bounds starting a server, the MCP handshake and listing
	// its tools. A server that takes longer is stopped and reported.
	StartTimeout time.Duration
	// CallTimeout bounds one tool call. A call that takes longer marks its
	// server as stopped responding; the server is stopped.
	CallTimeout time.Duration
}

// ServerStatus is what the user sees about one configured server.
type ServerStatus struct {
	Name      string   `json:"name"`
	Transport string   `json:"transport"` // TransportStdio or TransportHTTP
	Connected bool     `json:"connected"`
	Disabled  bool     `json:"disabled,omitempty"`
	Tools     []string `json:"tools"` // the server's own tool names, while connected
	Error     string   `json:"error,omitempty"`
}

// Manager owns the connections to the configured MCP servers and the
// processes of the stdio ones. It is safe for concurrent use.
type Manager struct {
	log    *slog.Logger
	opts   Options
	client *sdk.Client
	// One transport for every HTTP server, so Close can drop its idle
	// connections instead of leaving them to http.DefaultTransport.
	transport *http.Transport

	// life ends when Close starts; it aborts connects in progress.
	life     context.Context
	shutdown context.CancelFunc

	connectMu sync.Mutex // one Connect or Close at a time

	mu       sync.Mutex
	closed   bool
	servers  map[string]*server // connected now
	statuses []ServerStatus     // every server of the last Connect, by name

	watchers sync.WaitGroup // one goroutine per connected server, see watch

	// stopGrace is defaultStopGrace; tests shorten it.
	stopGrace time.Duration
	// onStart, when set (by tests), is told the PID of each stdio server
	// as soon as it is started.
	onStart func(name string, pid int)
}

// NewManager returns a Manager with nothing connected. log may be nil.
func NewManager(log *slog.Logger, opts Options) *Manager {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	impl := &sdk.Implementation{Name: "agentdeck", Version: buildinfo.Version}
	client := sdk.NewClient(impl, &sdk.ClientOptions{
		Logger: log.With("component", "mcp-sdk"),
		// The SDK advertises "roots" unless told otherwise, and would answer
		// roots/list with nothing; some servers then narrow what they serve
		// to that nothing. We offer no client features.
		Capabilities: &sdk.ClientCapabilities{},
	})
	life, shutdown := context.WithCancel(context.Background())
	return &Manager{
		log:       log,
		opts:      opts,
		client:    client,
		transport: http.DefaultTransport.(*http.Transport).Clone(),
		life:      life,
		shutdown:  shutdown,
		servers:   map[string]*server{},
		stopGrace: defaultStopGrace,
	}
}

// Connect connects every enabled server concurrently and returns one status
// per server, sorted by name. It never fails as a whole: a server that does
// not start, or does not answer within StartTimeout, gets an Error and the
// others carry on. Calling Connect again first closes what the previous call
// connected, so it doubles as "reload the configuration".
func (m *Manager) Connect(ctx context.Context, servers []ServerConfig) []ServerStatus {
	m.connectMu.Lock()
	defer m.connectMu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(m.life, cancel)()

	m.mu.Lock()
	closed := m.closed
	m.mu.Unlock()
	if !closed {
		_ = m.disconnectAll("the MCP servers were reconnected")
	}

	servers = slices.Clone(servers)
	slices.SortStableFunc(servers, func(a, b ServerConfig) int { return cmp.Compare(a.Name, b.Name) })
	statuses := make([]ServerStatus, len(servers))
	var pending []int
	for i := range servers {
		sc := &servers[i]
		sc.Type = inferType(*sc)
		st := &statuses[i]
		*st = ServerStatus{Name: sc.Name, Transport: sc.Type, Disabled: sc.Disabled}
		switch {
		case closed:
			st.Error = "the MCP manager is closed"
		case sc.Disabled:
		case i > 0 && servers[i-1].Name == sc.Name:
			st.Error = fmt.Sprintf("server %q is configured twice", sc.Name)
		case sc.Type == "":
			st.Error = fmt.Sprintf(`server %q has neither "command" nor "url"`, sc.Name)
		default:
			pending = append(pending, i)
		}
	}
	// Statuses are in place before anything connects: a server may be lost
	// before the others are done, and its status must say so.
	m.mu.Lock()
	m.statuses = statuses
	m.mu.Unlock()

	var wg sync.WaitGroup
	for _, i := range pending {
		wg.Go(func() { m.connect(ctx, servers[i], i) })
	}
	wg.Wait()
	return m.Status()
}

// Status returns the current status of every server of the last Connect,
// including servers that have since crashed or stopped responding.
func (m *Manager) Status() []ServerStatus {
	m.mu.Lock()
	defer m.mu.Unlock()
	return cloneStatuses(m.statuses)
}

// cloneStatuses copies statuses for a caller, with Tools never nil so the
// JSON always has a list.
func cloneStatuses(in []ServerStatus) []ServerStatus {
	out := slices.Clone(in)
	for i := range out {
		out[i].Tools = append([]string{}, out[i].Tools...)
	}
	return out
}

// Tools returns every tool of every connected server, sorted by name. A tool
// keeps pointing at its server: after the server is lost, it answers with an
// error instead of calling anything.
func (m *Manager) Tools() []tool.Tool {
	m.mu.Lock()
	servers := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		servers = append(servers, s)
	}
	m.mu.Unlock()
	return m.toolsOf(servers)
}

// Close closes every session and stops every stdio server (stdin closed,
// then SIGTERM, then SIGKILL to its process group) and waits for them, so
// no child process or zombie is left. The Manager cannot be used after.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.shutdown() // a Connect in progress gives up now...
	m.connectMu.Lock()
	defer m.connectMu.Unlock()
	// ...and anything it registered is closed here.
	err := m.disconnectAll("the MCP servers were closed")
	m.watchers.Wait()
	m.transport.CloseIdleConnections()
	return err
}

// disconnectAll stops every connected server concurrently; calls still
// running on them fail with why.
func (m *Manager) disconnectAll(why string) error {
	m.mu.Lock()
	servers := m.servers
	m.servers = map[string]*server{}
	for _, s := range servers {
		s.lostWhat, s.lostDetail = "was disconnected", why
	}
	for i := range m.statuses {
		if m.statuses[i].Connected {
			m.statuses[i].Connected, m.statuses[i].Tools = false, nil
		}
	}
	m.mu.Unlock()

	errs := make([]error, 0, len(servers))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(func() {
			err := s.stop(false)
			if err == nil {
				return
			}
			// A stdio server that exits non-zero, or on SIGTERM, once its stdin
			// is closed has still been stopped; an HTTP session is over even
			// when the server cannot be told so.
			if _, exited := errors.AsType[*exec.ExitError](err); exited || s.cfg.Type == TransportHTTP {
				m.log.Debug("MCP server stopped", "server", s.cfg.Name, "error", err)
				return
			}
			mu.Lock()
			errs = append(errs, fmt.Errorf("stopping MCP server %q: %w", s.cfg.Name, err))
			mu.Unlock()
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// lost marks s as no longer usable and stops it. what and detail say why,
// as in `server "x" exited (exit status 3)`. The first caller wins: a server
// is lost once.
func (m *Manager) lost(s *server, what, detail string) {
	m.mu.Lock()
	current := m.servers[s.cfg.Name] == s
	if current {
		delete(m.servers, s.cfg.Name)
		s.lostWhat, s.lostDetail = what, detail
		// s is current, so m.statuses is from the Connect that started it.
		st := &m.statuses[s.index]
		st.Connected, st.Tools = false, nil
		st.Error = fmt.Sprintf("server %q %s (%s)", s.cfg.Name, what, detail)
	}
	m.mu.Unlock()
	if current {
		m.log.Warn("MCP server lost", "server", s.cfg.Name, "what", what, "detail", detail)
	}
	_ = s.stop(true)
}

// connected reports whether s is still the live connection for its name.
func (m *Manager) connected(s *server) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.servers[s.cfg.Name] == s
}

// whyLost returns what happened to a server that is no longer connected.
func (m *Manager) whyLost(s *server) (what, detail string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return cmp.Or(s.lostWhat, "was disconnected"), cmp.Or(s.lostDetail, "no reason recorded")
}

func inferType(sc ServerConfig) string {
	switch {
	case sc.Type != "":
		return sc.Type
	case sc.Command != "":
		return TransportStdio
	case sc.URL != "":
		return TransportHTTP
	}
	return ""
}

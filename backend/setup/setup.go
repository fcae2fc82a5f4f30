// Package setup builds the engine's long-lived parts from the data
// directory: the secret store, the chart validator, the workflows (built in
// and the user's files), the MCP servers and the turn runner. The desktop
// app, the browser mode and the CLI share it, so they behave the same.
//
// Nothing here fails the start of the app because of a user file: bad
// workflow files and MCP servers that do not start are reported, and the
// rest works.
//
// The engine takes the database as Store, and the app (window, browser
// mode) as AppStore, both interfaces that *store.DB meets: the command
// line opens the database and hands it on as an AppStore, so main and app
// never name *store.DB.
package setup

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/agentdeck/agentdeck/backend/chart"
	"github.com/agentdeck/agentdeck/backend/knowledge"
	"github.com/agentdeck/agentdeck/backend/knowledge/extract"
	"github.com/agentdeck/agentdeck/backend/llm/openai"
	"github.com/agentdeck/agentdeck/backend/mcp"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/sandbox"
	"github.com/agentdeck/agentdeck/backend/secrets"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/traces"
	"github.com/agentdeck/agentdeck/backend/web"
	"github.com/agentdeck/agentdeck/backend/workflow"
)

// Options tune Build.
type Options struct {
	// DataDir holds workflows/, mcp.json and secrets.json. (A session's
	// own files live beside the database: store.SessionDir.)
	DataDir string
	// MCPConfig is the MCP configuration file; "" is mcp.json in DataDir.
	MCPConfig string
	// ConnectMCP starts the configured MCP servers in the background, for
	// a window or serve that is usable before they are up. A command that
	// runs one turn leaves it off and calls Engine.ConnectMCP, which waits.
	ConnectMCP bool
	// MCP tunes the MCP manager (start and call timeouts); zero: defaults.
	MCP        mcp.Options
	Logger     *slog.Logger
	HTTPClient *http.Client
	// ModelCalls tunes model calls (idle timeout, retries); zero: defaults.
	ModelCalls openai.Config
	// WaitNotice is how long a model call may receive nothing before the
	// turn says it is waiting for the model; zero: agent.DefaultWaitNotice.
	WaitNotice time.Duration
	// Sandbox are run_code's limits: steps, output, time and memory (zero
	// fields: sandbox.DefaultLimits). Every engine offers run_code.
	Sandbox sandbox.Limits
}

// Store is the database as the engine uses it: what its runner reads and
// writes. *store.DB is one (checked in setup_test.go); a second store (on
// PostgreSQL) is planned, and the engine takes either.
type Store interface {
	runner.Store
	// AppSettings holds the user's setting for web pages at private
	// addresses (NewFetcher).
	AppSettings(ctx context.Context) (store.AppSettings, error)
}

// Engine is the built engine.
type Engine struct {
	Runner  *runner.Runner
	Secrets secrets.Store
	Charts  *chart.Validator // its schema compiles on the first chart
	MCP     *mcp.Manager
	// Library holds the documents of sessions and projects.
	Library *knowledge.Library
	// Web reads web pages: fetch_url's and those added by their URL.
	Web *web.Fetcher
	// Traces is where each turn goes once stored, to be sent to an
	// OpenTelemetry collector: off until an exporter is set (Live.Set).
	Traces  *traces.Live
	dataDir string
	mcpPath string
	log     *slog.Logger

	mu        sync.Mutex
	mcpStatus []mcp.ServerStatus
	mcpErr    error
}

// Build assembles the engine over an open database.
func Build(ctx context.Context, db Store, opts Options) (*Engine, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	e := &Engine{dataDir: opts.DataDir, mcpPath: opts.MCPConfig, log: log}
	if e.mcpPath == "" {
		e.mcpPath = filepath.Join(opts.DataDir, "mcp.json")
	}
	sec, backend := secrets.Open(ctx, "agentdeck", filepath.Join(opts.DataDir, "secrets.json"), log)
	log.Info("secrets", "backend", backend)
	e.Secrets = sec
	// The Vega-Lite schema compiles in the first render_chart call, not
	// here: the window's first screen draws no chart, and a process that
	// never does keeps neither the ~160 ms nor the memory it takes.
	e.Charts = chart.NewValidator()
	e.MCP = mcp.NewManager(log, opts.MCP)
	if opts.ConnectMCP {
		go e.ReloadMCP(context.WithoutCancel(ctx))
	}
	e.Library = &knowledge.Library{Store: db, Extract: extract.Read}
	e.Web = NewFetcher(db)
	e.Traces = &traces.Live{}
	e.Runner = runner.New(runner.Config{
		DB:         db,
		Knowledge:  e.Library,
		Web:        e.Web,
		Secrets:    sec,
		Charts:     e.Charts,
		Workflows:  func() []*workflow.Definition { defs, _ := e.Workflows(); return defs },
		MCP:        e.MCP,
		HTTPClient: opts.HTTPClient,
		ModelCalls: opts.ModelCalls,
		WaitNotice: opts.WaitNotice,
		Sandbox:    &opts.Sandbox,
		Logger:     log,
		Ended:      e.Traces.TurnEnded,
	})
	e.Library.Embedding, e.Library.Logger = e.Runner.Embedding, log
	// Turns left running by a dead process are not recovered here: the
	// command line does it whenever it opens the database, and a window or
	// serve keeps doing it while it runs (app.Service), so that the engine
	// never blocks a session on a dead turn.
	return e, nil
}

// NewFetcher reads web pages with the package's limits and the user's
// setting for private addresses, read at each fetch so a change in
// Settings applies to the next page.
func NewFetcher(db interface {
	AppSettings(ctx context.Context) (store.AppSettings, error)
}) *web.Fetcher {
	return web.New(web.Options{AllowPrivate: func(ctx context.Context) bool {
		st, err := db.AppSettings(ctx)
		return err == nil && st.AllowPrivateURLs
	}})
}

// Workflows returns the built-in workflows and the user's files, which may
// override a built-in of the same name, with the problems of bad files.
func (e *Engine) Workflows() ([]*workflow.Definition, []workflow.Problem) {
	defs := workflow.Builtins()
	user, problems := workflow.LoadDir(filepath.Join(e.dataDir, "workflows"))
	for _, u := range user {
		replaced := false
		for i, d := range defs {
			if d.Name == u.Name {
				defs[i], replaced = u, true
			}
		}
		if !replaced {
			defs = append(defs, u)
		}
	}
	return defs, problems
}

// MCPConfigPath is where the user's MCP servers are configured: mcp.json
// beside the database unless Options.MCPConfig named another file.
func (e *Engine) MCPConfigPath() string { return e.mcpPath }

// ConnectMCP (re)connects the servers configured in MCPConfigPath and
// returns once each one has connected or failed, with their statuses: a
// turn started after it is offered every tool that came up. It cannot hang:
// a server that does not answer within the start timeout
// (mcp.DefaultStartTimeout unless Options.MCP says otherwise) is stopped
// and reported, and the servers start concurrently. err says why the file
// could not be read; then nothing is connected or disconnected. With no
// file there are no servers, and it returns at once.
func (e *Engine) ConnectMCP(ctx context.Context) ([]mcp.ServerStatus, error) {
	servers, err := mcp.LoadConfig(e.MCPConfigPath())
	if err != nil {
		e.mu.Lock()
		e.mcpErr = err
		e.mu.Unlock()
		return nil, err
	}
	st := e.MCP.Connect(ctx, servers)
	e.mu.Lock()
	e.mcpStatus, e.mcpErr = st, nil
	e.mu.Unlock()
	return st, nil
}

// ReloadMCP (re)connects the configured MCP servers, as ConnectMCP, and
// logs a configuration error (MCPStatus reports it).
func (e *Engine) ReloadMCP(ctx context.Context) []mcp.ServerStatus {
	st, err := e.ConnectMCP(ctx)
	if err != nil {
		e.log.Error("MCP configuration", "err", err)
	}
	return st
}

// MCPStatus returns the MCP servers' state and the configuration error, if any.
func (e *Engine) MCPStatus() ([]mcp.ServerStatus, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.MCP != nil && e.mcpErr == nil {
		return e.MCP.Status(), nil
	}
	return e.mcpStatus, e.mcpErr
}

// TracesFlush bounds how long Close waits for the OpenTelemetry export
// to send what it holds: a healthy collector takes a few milliseconds; a
// dead one is not waited for at all once the exporter has seen it fail
// (traces.Exporter.Shutdown), and at most this long otherwise.
const TracesFlush = time.Second

// Close stops running turns and MCP servers, sends the traces still
// queued (at most TracesFlush), and unloads the PDF reader.
func (e *Engine) Close() error {
	if e.Traces != nil {
		e.Traces.Close(TracesFlush)
	}
	var err error
	if e.MCP != nil {
		err = e.MCP.Close()
	}
	return errors.Join(err, extract.ClosePDF())
}

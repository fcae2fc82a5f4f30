package app

import (
	"context"
	"log/slog"
	"path/filepath"

	"github.com/agentdeck/agentdeck/backend/buildinfo"
	"github.com/agentdeck/agentdeck/backend/setup"
	"github.com/agentdeck/agentdeck/backend/traces"
)

// OpenConfig is what Open needs: the database as the command line opened it.
type OpenConfig struct {
	Logger *slog.Logger
	Info   buildinfo.Info
	// DB is the open database; nil when opening failed with DBErr. (A
	// caller converts only a store that opened: an interface holding a
	// nil *store.DB is not nil.)
	DB        setup.AppStore
	DBPath    string
	DBErr     error
	ReadyFile string
	// OTLP, from serve's --otlp-endpoint, sends each turn to that
	// collector instead of the one the settings name.
	OTLP *traces.Config
}

// Open builds the engine beside the database (workflows, MCP servers,
// secrets and session data live in the database's folder) and the Service
// over it. A failure to open or to build leaves a Service that reports the
// problem; the window still opens. DBErr wins over DB: with DBErr set, no
// engine is built, whatever DB holds. close releases what was started.
func Open(ctx context.Context, cfg OpenConfig) (svc *Service, close func()) {
	sc := Config{Logger: cfg.Logger, Info: cfg.Info, DBPath: cfg.DBPath, DBErr: cfg.DBErr, ReadyFile: cfg.ReadyFile}
	close = func() {}
	var live *traces.Live
	// sc.DB is set only with an engine: the Service takes a non-nil DB
	// as one it can use.
	if cfg.DB != nil && cfg.DBErr == nil {
		eng, err := setup.Build(ctx, cfg.DB, setup.Options{DataDir: filepath.Dir(cfg.DBPath), ConnectMCP: true, Logger: cfg.Logger})
		if err != nil {
			sc.DBErr = err
		} else {
			sc.DB, sc.Runner, sc.Secrets, sc.Workflows, sc.Charts, sc.Library = cfg.DB, eng.Runner, eng.Secrets, eng.Workflows, eng.Charts, eng.Library
			sc.Web = eng.Web
			live = eng.Traces
			close = func() { _ = eng.Close() }
		}
	}
	svc = NewService(sc)
	svc.initTraces(ctx, live, cfg.OTLP)
	return svc, close
}

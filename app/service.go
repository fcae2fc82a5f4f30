package app

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentdeck/agentdeck/backend/knowledge"
	"github.com/agentdeck/agentdeck/backend/knowledge/extract"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/buildinfo"
	"github.com/agentdeck/agentdeck/backend/chart"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/secrets"
	"github.com/agentdeck/agentdeck/backend/setup"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/web"
	"github.com/agentdeck/agentdeck/backend/workflow"
)

// Service is the app behind a UI: the engine's parts, the bus of what goes
// out to the UIs, the event hub, the approvals and the watcher of dead
// processes' turns. A UI reaches it
// through its API (api.go), never directly.
type Service struct {
	api       *API
	log       *slog.Logger
	info      buildinfo.Info
	db        setup.AppStore
	dbPath    string
	dbErr     error
	readyFile string
	runner    *runner.Runner
	charts    *chart.Validator
	library   *knowledge.Library // documents; nil without a database
	web       *web.Fetcher       // reads pages added by their URL; nil without a database
	bus       *Bus               // everything pushed to the UIs
	hub       *Hub
	secrets   secrets.Store
	// tracing is the OpenTelemetry export (observability.go).
	tracing   tracing
	approvals *approvals
	evals     *evalRuns // runs started from a UI
	workflows func() ([]*workflow.Definition, []workflow.Problem)
	maxUpload int       // the largest upload; zero: MaxUploadBytes (tests set less)
	clipboard Clipboard // the window's, where its web view cannot paste images; else nil

	mu      sync.Mutex
	baseCtx context.Context
	// trimmed: the memory the start used is handed back once, at the UI's
	// first ready report (trimAfterStart).
	trimmed sync.Once

	// The watcher of turns whose process died (see watchOrphans).
	orphanEvery time.Duration
	stopWatch   context.CancelFunc
	watchDone   chan struct{}
}

// OrphanCheckInterval is how often a running window or serve looks for
// turns whose process died (a killed `agentdeck run`): such a turn shows
// as running and blocks its session until someone marks it interrupted.
// Under 5 s, so a person never waits long for it.
const OrphanCheckInterval = 2 * time.Second

// Config holds what a Service is built from.
type Config struct {
	Logger *slog.Logger
	Info   buildinfo.Info
	// DB is the open database, or nil when opening failed with DBErr.
	DB     setup.AppStore
	DBPath string
	DBErr  error
	// Runner runs turns; nil when the database is unavailable.
	Runner  *runner.Runner
	Secrets secrets.Store
	// Charts checks the Usage page's charts (nil: a new Validator).
	Charts *chart.Validator
	// Library holds documents (nil: one over DB, reading with extract.Read).
	Library *knowledge.Library
	// Web reads pages added by their URL (nil: one under DB's settings).
	Web *web.Fetcher
	// Workflows lists the workflows and the problems of files that did not load.
	Workflows func() ([]*workflow.Definition, []workflow.Problem)
	// ReadyFile, if set, receives the UI's ready report as JSON. The window
	// smoke test uses it to learn that the page rendered and called Go.
	ReadyFile string
	// OrphanCheck is how often to look for turns of dead processes; zero:
	// OrphanCheckInterval.
	OrphanCheck time.Duration
}

// NewService returns a Service over its dependencies.
func NewService(cfg Config) *Service {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	wf := cfg.Workflows
	if wf == nil {
		wf = func() ([]*workflow.Definition, []workflow.Problem) { return workflow.Builtins(), nil }
	}
	s := &Service{log: log, info: cfg.Info, db: cfg.DB, dbPath: cfg.DBPath, dbErr: cfg.DBErr, readyFile: cfg.ReadyFile,
		runner: cfg.Runner, secrets: cfg.Secrets, workflows: wf, baseCtx: context.Background(), orphanEvery: cfg.OrphanCheck}
	s.charts = cfg.Charts
	if s.charts == nil {
		s.charts = chart.NewValidator()
	}
	if s.orphanEvery <= 0 {
		s.orphanEvery = OrphanCheckInterval
	}
	s.library = cfg.Library
	if s.library == nil && cfg.DB != nil {
		s.library = &knowledge.Library{Store: cfg.DB, Extract: extract.Read}
	}
	s.web = cfg.Web
	if s.web == nil && cfg.DB != nil {
		s.web = setup.NewFetcher(cfg.DB)
	}
	s.bus = NewBus()
	if cfg.DB != nil {
		s.hub = NewHub(cfg.DB)
		// Once for all UIs: the hub's events go out on the bus in batches.
		co := eventBatches(s.bus)
		s.hub.Subscribe(func(e turn.Event) { _ = co.Emit(e) })
	}
	var columns columnReader
	if cfg.DB != nil {
		columns = cfg.DB
	}
	s.approvals = newApprovals(s.bus, columns, log)
	s.evals = newEvalRuns()
	s.api = &API{s: s}
	return s
}

// eventHub returns the hub of running turns' events.
func (s *Service) eventHub() *Hub { return s.hub }

// startup is called once the UI runtime exists; ctx lives until Shutdown.
// It removes the uploads no message attached within a day, and starts the
// watcher of dead processes' turns.
func (s *Service) startup(ctx context.Context) {
	if s.db != nil {
		s.sweepUploads(time.Now())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.baseCtx = ctx
	if s.db == nil || s.hub == nil || s.watchDone != nil {
		return
	}
	wctx, cancel := context.WithCancel(ctx)
	s.stopWatch, s.watchDone = cancel, make(chan struct{})
	go s.watchOrphans(wctx, s.watchDone)
}

// quitGrace is how long quitting waits for running turns and evaluation
// runs, together, to stop and be stored, so that quitting takes under
// 2 s. One that takes longer is left: the next start marks its turn
// interrupted, and a run of a process that ended reads as cancelled.
const quitGrace = 1500 * time.Millisecond

// shutdown stops the watcher, then stops evaluation runs and running turns
// as if Stop had been pressed and waits for them to be stored, at most
// quitGrace in all.
func (s *Service) shutdown() {
	s.mu.Lock()
	stop, done := s.stopWatch, s.watchDone
	s.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
	// A run stops its own turns as it is stopped; StopAll then waits for
	// them, and the runs store how they ended as the turns do. One
	// deadline serves both waits: a turn that ignores Stop uses it up, and
	// the runs waiting on it are not waited for again.
	deadline := time.Now().Add(quitGrace)
	s.evals.stopAll(0)
	if s.runner != nil {
		s.runner.StopAll(time.Until(deadline))
	}
	if !s.evals.stopAll(time.Until(deadline)) {
		s.log.Warn("evaluation runs still stopping at quit", "grace", quitGrace)
	}
}

// watchOrphans marks interrupted, now and every orphanEvery, the turns
// whose process died, and tells the UIs. Another window, serve or run
// using the same database is alive: its turns are left alone.
func (s *Service) watchOrphans(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	tick := time.NewTicker(s.orphanEvery)
	defer tick.Stop()
	for {
		s.recoverOrphans(ctx, "")
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// recoverOrphans marks interrupted the turns of dead processes (in one
// session, or all when sessionID is empty) and tells the UIs.
func (s *Service) recoverOrphans(ctx context.Context, sessionID string) {
	got, err := s.db.RecoverOrphans(ctx, sessionID)
	if err != nil && ctx.Err() == nil {
		s.log.Warn("marking the turns of stopped processes interrupted", "err", err)
	}
	s.announce(got)
}

// TurnChange says that a turn's stored state changed with no event of its
// own: its process died (kill -9, a crash) and this process marked it
// interrupted. A UI that shows the turn or its session reloads them.
type TurnChange struct {
	TurnID    string          `json:"turn_id"`
	SessionID string          `json:"session_id"`
	State     store.TurnState `json:"state"`
}

// TurnsChanged is the bus's message of turns that changed together; never
// empty.
type TurnsChanged []TurnChange

// Kind implements Message.
func (TurnsChanged) Kind() MessageKind { return KindTurnsChanged }

// announce tells the UIs that these turns are now interrupted.
func (s *Service) announce(orphans []store.Orphan) {
	if len(orphans) == 0 {
		return
	}
	changes := make(TurnsChanged, len(orphans))
	for i, o := range orphans {
		changes[i] = TurnChange{TurnID: o.TurnID, SessionID: o.SessionID, State: store.StateInterrupted}
		s.log.Info("turn interrupted: its process is gone", "turn", o.TurnID, "session", o.SessionID, "pid", o.OwnerPID)
	}
	s.bus.Publish(TurnsChanged(changes))
}

func (s *Service) ctx() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.baseCtx
}

// ready reports why the backend cannot serve history, if it cannot.
func (s *Service) ready() error {
	if s.db == nil || s.runner == nil {
		if s.dbErr != nil {
			return safe(s.dbErr)
		}
		return apperr.New(apperr.Unavailable, "The database is not open.")
	}
	return nil
}

// settings returns the preferences, or their defaults when they cannot be read.
func (s *Service) settings() Settings {
	if s.db == nil {
		return Settings{DefaultWorkflow: "chat", Capture: "record", Theme: "system"}
	}
	st, err := s.db.AppSettings(s.ctx())
	if err != nil {
		s.log.Warn("reading settings", "err", err)
	}
	return st
}

// ErrorReply maps any error to the {code, message} the frontend shows: the
// window's ErrorFormatter. API methods already return such errors; this
// keeps anything else from reaching the page with its cause.
func ErrorReply(err error) any { return safe(err) }

// safe is err's code and user-facing message, without its cause.
func safe(err error) *apperr.Error {
	return &apperr.Error{Code: apperr.CodeOf(err), Message: apperr.MessageOf(err)}
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

func itoa(n int) string { return strconv.Itoa(n) }

// fileSafe makes a title usable as a file name.
func fileSafe(s string) string {
	s = strings.TrimSpace(unsafeName.ReplaceAllString(s, "_"))
	if s == "" {
		return "session"
	}
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}

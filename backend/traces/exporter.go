package traces

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
)

// The exporter's states (Status.State).
const (
	StateOff     = "off"
	StateOK      = "ok"
	StateFailing = "failing"
)

// ExporterStatus is what the window shows of the live export.
type ExporterStatus struct {
	State    string `json:"state"`
	Endpoint string `json:"endpoint,omitempty"`
	Protocol string `json:"protocol,omitempty"`
	Content  bool   `json:"content"`
	// Sent and Dropped count spans: those the collector accepted, and
	// those lost because it failed. A turn dropped because the queue of
	// turns was full (its spans never built) counts as one.
	Sent    int64 `json:"sent"`
	Dropped int64 `json:"dropped"`
	// LastError is the last failure, safe to show (no header, no key).
	LastError   string     `json:"last_error,omitempty"`
	LastSuccess *time.Time `json:"last_success,omitempty"`
}

// QueueSize is how many ended turns may wait to be sent; a turn that
// finds the queue full is dropped (Status.Dropped), never waited for.
const QueueSize = 256

// batchTurns is how many waiting turns one request carries at most.
const batchTurns = 32

// Exporter sends each turn, once it ends, to an OTLP collector, off the
// turn's path: TurnEnded only queues the turn's id; a worker reads the
// stored record, builds its trace (Build) and sends it with the SDK's
// OTLP exporter. A dead collector costs the turn nothing: its spans are
// dropped, counted, and the failure logged once until it answers again.
// A nil *Exporter is off.
type Exporter struct {
	cfg     Config
	src     export.Source
	log     *slog.Logger
	version string
	exp     *otlptrace.Exporter

	queue  chan job
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	st      ExporterStatus
	failing bool // logged as failing, not yet recovered
	closed  bool
	watch   func(ExporterStatus)
}

type job struct{ session, turn string }

// New starts an exporter over the store's records (src). cfg.Endpoint
// must be set. log may be nil.
func New(ctx context.Context, cfg Config, src export.Source, log *slog.Logger, version string) (*Exporter, error) {
	client, err := NewClient(cfg)
	if err != nil {
		return nil, err
	}
	return NewWithClient(ctx, cfg, client, src, log, version)
}

// NewWithClient is New with the OTLP client given (tests, files).
func NewWithClient(ctx context.Context, cfg Config, client otlptrace.Client, src export.Source, log *slog.Logger, version string) (*Exporter, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	exp := otlptrace.NewUnstarted(client)
	if err := exp.Start(ctx); err != nil {
		return nil, apperr.Wrap(err, apperr.Unavailable, "Cannot start the OpenTelemetry export to %s.", cfg.Endpoint)
	}
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	e := &Exporter{cfg: cfg, src: src, log: log, version: version, exp: exp, queue: make(chan job, QueueSize), ctx: wctx, cancel: cancel, done: make(chan struct{}),
		st: ExporterStatus{State: StateOK, Endpoint: cfg.Endpoint, Protocol: firstOf(cfg.Protocol, ProtocolHTTP), Content: cfg.Content}}
	go e.run()
	return e, nil
}

// Watch has fn told of every change of the status (from the worker; it
// must not block). One watcher; nil stops.
func (e *Exporter) Watch(fn func(ExporterStatus)) {
	if e == nil {
		return
	}
	e.mu.Lock()
	e.watch = fn
	e.mu.Unlock()
}

// Status is the exporter's state now.
func (e *Exporter) Status() ExporterStatus {
	if e == nil {
		return ExporterStatus{State: StateOff}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.st
}

// TurnEnded queues a stored turn to be sent. It never blocks: with the
// queue full the turn is dropped.
func (e *Exporter) TurnEnded(sessionID, turnID string) {
	if e == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	select {
	case e.queue <- job{sessionID, turnID}:
	default:
		e.failLocked(1, apperr.New(apperr.Unavailable, "Too many turns were waiting to be sent to the collector; this one was dropped."))
	}
}

// Shutdown sends what is queued, waiting at most until ctx ends, then
// stops; what is left is dropped. An exporter already failing (its last
// request found no collector) waits for nothing: what is queued is
// dropped and counted at once, and a request in flight is cancelled.
func (e *Exporter) Shutdown(ctx context.Context) error {
	if e == nil {
		return nil
	}
	e.mu.Lock()
	if !e.closed {
		e.closed = true
		close(e.queue)
	}
	failing := e.st.State == StateFailing
	e.mu.Unlock()
	if failing {
		e.cancel()
	}
	select {
	case <-e.done:
	case <-ctx.Done():
		e.cancel()
		<-e.done
	}
	e.cancel()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	return e.exp.Shutdown(sctx)
}

func (e *Exporter) run() {
	defer close(e.done)
	for j := range e.queue {
		batch := []job{j}
	more:
		for len(batch) < batchTurns {
			select {
			case j, ok := <-e.queue:
				if !ok {
					break more
				}
				batch = append(batch, j)
			default:
				break more
			}
		}
		e.send(batch)
	}
}

// send reads, builds and sends the batch's turns in one request.
func (e *Exporter) send(batch []job) {
	if e.ctx.Err() != nil {
		e.fail(len(batch), e.ctx.Err()) // shut down before it could go
		return
	}
	var spans []sdktrace.ReadOnlySpan
	for _, j := range batch {
		sess, t, err := ReadTurn(e.ctx, e.src, j.session, j.turn)
		if err != nil {
			e.log.Warn("reading a turn to export", "turn", j.turn, "err", apperr.MessageOf(err))
			continue
		}
		spans = append(spans, Build(sess, t, Options{Content: e.cfg.Content, Version: e.version})...)
	}
	if len(spans) == 0 {
		return
	}
	if err := e.exp.ExportSpans(e.ctx, spans); err != nil {
		e.fail(len(spans), err)
		return
	}
	e.mu.Lock()
	now := time.Now()
	e.st.Sent += int64(len(spans))
	e.st.LastSuccess = &now
	if e.failing {
		e.failing = false
		e.log.Info("OpenTelemetry export recovered", "endpoint", e.cfg.Endpoint, "dropped", e.st.Dropped)
	}
	e.st.State = StateOK
	e.notifyLocked()
	e.mu.Unlock()
}

func (e *Exporter) fail(n int, err error) {
	e.mu.Lock()
	e.failLocked(n, err)
	e.mu.Unlock()
}

// failLocked counts n dropped spans (or turns) and logs the failure
// once, the first time after a success. A drop because the exporter is
// shutting down keeps the error that made it fail, if any.
func (e *Exporter) failLocked(n int, err error) {
	e.st.Dropped += int64(n)
	if !(e.failing && errors.Is(err, context.Canceled)) {
		e.st.LastError = describe(e.cfg, err)
	}
	e.st.State = StateFailing
	if !e.failing {
		e.failing = true
		e.log.Warn("OpenTelemetry export failing; traces are dropped until the collector answers", "endpoint", e.cfg.Endpoint, "err", e.st.LastError)
	}
	e.notifyLocked()
}

func (e *Exporter) notifyLocked() {
	if e.watch != nil {
		e.watch(e.st)
	}
}

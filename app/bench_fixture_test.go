package app

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm/recording"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/workflow"
)

// benchRig is the desktop app's turn path without the window: a real
// database, the runner, and the live sinks the app puts behind it (the Hub,
// and the Coalescer that publishes on the bus), and the window's
// subscription, whose envelopes are encoded as EventsEmit would encode
// them. The runner adds the store's EventLog itself.
type benchRig struct {
	db      *store.DB
	runner  *runner.Runner
	hub     *Hub
	co      *Coalescer
	sub     *Subscription // the window's
	pumped  chan struct{} // closed when the window's pump has returned
	emitted atomic.Int64  // bytes of the envelopes handed to the "UI"
	// ended, if set, is told of each ended turn, as the runner's Ended
	// tells the app's live OpenTelemetry export (bench_otlp_test.go).
	ended atomic.Pointer[func(sessionID, turnID string)]
}

func newBenchRig(b *testing.B) *benchRig {
	b.Helper()
	dir := b.TempDir()
	db, err := store.Open(context.Background(), filepath.Join(dir, "agentdeck.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	r := &benchRig{db: db, hub: NewHub(db)}
	r.runner = runner.New(runner.Config{
		DB:         db,
		Workflows:  workflow.Builtins,
		HTTPClient: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}},
		Ended: func(sessionID, turnID string) {
			if fn := r.ended.Load(); fn != nil {
				(*fn)(sessionID, turnID)
			}
		},
	})
	// What NewService and desktop.go do: the hub feeds the coalescer,
	// which publishes on the bus, whose envelopes the window's pump
	// marshals (Wails' EventsEmit JSON-encodes its arguments).
	bus := NewBus()
	r.co = eventBatches(bus)
	unsub := r.hub.Subscribe(func(e turn.Event) { _ = r.co.Emit(e) })
	r.sub, r.pumped = bus.Subscribe(uiQueue), make(chan struct{})
	go func() {
		defer close(r.pumped)
		r.sub.Pump(r.emit)
	}()
	b.Cleanup(func() { unsub(); r.settle() })
	return r
}

// emit is EventsEmit's cost: the envelope encoded.
func (r *benchRig) emit(env Envelope) {
	data, err := json.Marshal(env)
	if err != nil {
		panic(err)
	}
	r.emitted.Add(int64(len(data)))
}

// settle stops the window's pump once every message published so far is
// emitted.
func (r *benchRig) settle() {
	for _, env := range r.sub.Drain() {
		r.emit(env)
	}
	r.sub.Close()
	<-r.pumped
}

// newSession returns a new empty session: each measured turn gets its own,
// so no turn carries an earlier one's history (a long history would be
// summarized first, a second model call).
func (r *benchRig) newSession(b *testing.B) string {
	b.Helper()
	s, err := r.db.CreateSession(context.Background(), store.Session{Title: "bench", Model: "m"})
	if err != nil {
		b.Fatal(err)
	}
	return s.ID
}

// start starts a turn as Service.start does, with the hub as a live sink.
// extra sinks run before the hub.
func (r *benchRig) start(b *testing.B, req runner.Request, extra ...turn.Sink) *runner.Handle {
	b.Helper()
	req.Sinks = append(req.Sinks, extra...)
	req.TurnSinks = func(turnID string) []turn.Sink { return []turn.Sink{r.hub.Sink(turnID)} }
	if req.SessionID == "" {
		req.SessionID = r.newSession(b)
	}
	if req.Model == "" {
		req.Model = "m"
	}
	if req.Capture == "" {
		req.Capture = recording.Record // the app's default setting
	}
	h, err := r.runner.Start(context.Background(), req)
	if err != nil {
		b.Fatal(err)
	}
	return h
}

// end is what the app does after a turn: the hub forgets it and the
// coalescer's last batch goes out.
func (r *benchRig) end(h *runner.Handle) {
	r.hub.Ended(h.TurnID)
	r.co.Flush()
}

func benchMedianDur(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// benchPercentile is the p-th percentile (0..1) by nearest rank.
func benchPercentile(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(p*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func benchMS(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

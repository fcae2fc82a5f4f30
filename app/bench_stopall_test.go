package app

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

const benchGroupStops = 100

// BenchmarkStopAll sends one message side by side to four models, all
// streaming from the scripted server (a token a millisecond each), and
// presses Stop all as the UI does (API.StopGroup) at a random point 5-50
// ms after every column has its first token. It measures, over 100
// groups, from the StopGroup call to
//
//   - last-disconnect: the scripted server noticing the LAST of the four
//     clients go away (every upstream stream closed), and
//   - stored: every column's turn_completed, which goes out once the turn
//     is committed as cancelled with its partial answer.
//
// It reports p50 and p99 of each. Target: p99 ≤ 20 ms to the last
// disconnect.
func BenchmarkStopAll(b *testing.B) {
	_, db, eng := setuptest.NewEngine(b)
	svc := NewService(Config{DB: db, DBPath: db.Path(), Runner: eng.Runner, Secrets: eng.Secrets, Workflows: eng.Workflows})
	srv := llmtest.NewServer(b)
	tokens := llmtest.Tokens(100_000) // shared by every reply, read only
	srv.Respond(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Chunks: tokens, Delay: time.Millisecond} })
	if err := db.SaveProvider(context.Background(), llm.Provider{Name: "local", Kind: catalog.KindCustom, BaseURL: srv.URL(), Local: true}); err != nil {
		b.Fatal(err)
	}
	w := newColumnWatch()
	b.Cleanup(svc.eventHub().Subscribe(w.see))
	rng := rand.New(rand.NewPCG(21, 22))
	var disconnect, stored []time.Duration
	n := 0 // disconnects the server has seen
	for b.Loop() {
		for range benchGroupStops {
			wait := 5*time.Millisecond + time.Duration(rng.Int64N(int64(45*time.Millisecond)))
			d, s := benchStopAllOnce(b, svc, srv, w, n, wait)
			disconnect, stored = append(disconnect, d), append(stored, s)
			n += 4
		}
	}
	b.StopTimer()
	for _, m := range []struct {
		name string
		d    []time.Duration
	}{{"last-disconnect", disconnect}, {"stored", stored}} {
		b.ReportMetric(benchMS(benchPercentile(m.d, 0.5)), m.name+"-p50-ms")
		b.ReportMetric(benchMS(benchPercentile(m.d, 0.99)), m.name+"-p99-ms")
	}
	b.ReportMetric(float64(len(disconnect)), "stops")
}

// benchStopAllOnce sends to four columns in a new session, presses Stop all
// wait after every column's first token, and returns the times from the
// call to the server's last disconnect and to the last column stored. seen
// is the number of disconnects before.
func benchStopAllOnce(b *testing.B, svc *Service, srv *llmtest.Server, w *columnWatch, seen int, wait time.Duration) (disconnect, stored time.Duration) {
	ctx := context.Background()
	s, err := svc.db.CreateSession(ctx, store.Session{Title: "bench", Provider: "local", Model: "m"})
	if err != nil {
		b.Fatal(err)
	}
	targets := []store.GroupTarget{{Provider: "local", Model: "m1"}, {Provider: "local", Model: "m2"}, {Provider: "local", Model: "m3"}, {Provider: "local", Model: "m4"}}
	ref, err := svc.api.SendSideBySide(GroupSendRequest{Send: SendRequest{SessionID: s.ID, Message: "go"}, Targets: targets})
	if err != nil {
		b.Fatal(err)
	}
	for _, t := range ref.Turns {
		select {
		case <-w.of(t.TurnID).first:
		case <-w.of(t.TurnID).ended:
			b.Fatalf("column %s ended before its first token", t.TurnID)
		}
	}
	time.Sleep(wait)
	stop := time.Now()
	if _, err := svc.api.StopGroup(ref.GroupID); err != nil {
		b.Fatal(err)
	}
	for _, t := range ref.Turns {
		<-w.of(t.TurnID).ended
	}
	stored = time.Since(stop)
	at, ok := srv.WaitDisconnects(seen+4, 5*time.Second)
	if !ok {
		b.Fatalf("Stop all: the server saw %d of 4 disconnects", len(at)-seen)
	}
	last := at[seen]
	for _, t := range at[seen : seen+4] {
		if t.After(last) {
			last = t
		}
	}
	for _, t := range ref.Turns {
		w.forget(t.TurnID)
		if d, err := svc.db.GetTurn(ctx, t.TurnID, false); err != nil || d.State != store.StateCancelled {
			b.Fatalf("Stop all: column %s is %s (%v)", t.TurnID, d.State, err)
		}
	}
	return last.Sub(stop), stored
}

// columnWatch tells, per turn, when its first token and its
// turn_completed went out through the hub.
type columnWatch struct {
	mu    sync.Mutex
	turns map[string]*columnSeen
}

type columnSeen struct {
	first, ended       chan struct{}
	hadFirst, hadEnded bool
}

func newColumnWatch() *columnWatch { return &columnWatch{turns: map[string]*columnSeen{}} }

func (w *columnWatch) of(turnID string) *columnSeen {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.turns[turnID]
	if c == nil {
		c = &columnSeen{first: make(chan struct{}), ended: make(chan struct{})}
		w.turns[turnID] = c
	}
	return c
}

func (w *columnWatch) forget(turnID string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.turns, turnID)
}

func (w *columnWatch) see(e turn.Event) {
	if e.Type != turn.EventToken && e.Type != turn.EventTurnCompleted {
		return
	}
	c := w.of(e.TurnID)
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case e.Type == turn.EventToken && !c.hadFirst:
		c.hadFirst = true
		close(c.first)
	case e.Type == turn.EventTurnCompleted && !c.hadEnded:
		c.hadEnded = true
		close(c.ended)
	}
}

package app

import (
	"net/http"
	"testing"

	"go.uber.org/goleak"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

// No goroutine a test started (a turn, the orphan watcher, a server, an
// event stream) may outlive the tests.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fixture is a Service over a real database and engine, with a scripted
// model server as its only provider, reached through its API as a UI does.
type fixture struct {
	svc *Service
	api *API
	srv *llmtest.Server
	db  *store.DB
	rec *turntest.Recorder // every live event, from before the first turn
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	_, db, eng := setuptest.NewEngine(t)
	svc := NewService(Config{DB: db, DBPath: db.Path(), Runner: eng.Runner, Secrets: eng.Secrets, Workflows: eng.Workflows})
	f := &fixture{svc: svc, api: svc.api, srv: llmtest.NewServer(t), db: db, rec: record(t, svc)}
	f.addProvider(t)
	return f
}

// addProvider saves the scripted server as the provider "local".
func (f *fixture) addProvider(t *testing.T) {
	t.Helper()
	if _, err := f.api.SaveProvider(ProviderInput{Provider: llm.Provider{Name: "local", Kind: catalog.KindCustom, BaseURL: f.srv.URL(), Local: true}}); err != nil {
		t.Fatal(err)
	}
}

// record keeps every live event of svc's turns until the test ends.
func record(t *testing.T, svc *Service) *turntest.Recorder {
	rec := &turntest.Recorder{}
	t.Cleanup(svc.eventHub().Subscribe(func(e turn.Event) { _ = rec.Emit(e) }))
	return rec
}

func (f *fixture) session(t *testing.T, title string) store.Session {
	t.Helper()
	s, err := f.api.CreateSession(NewSession{Title: title, Provider: "local", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// waitTurn waits for a turn's turn_completed, which goes out after its
// result is stored, and returns the stored turn.
func (f *fixture) waitTurn(t *testing.T, turnID string) store.TurnDetail {
	t.Helper()
	turntest.Check(t, f.rec.UntilEnded(t, turnID))
	d, err := f.api.GetTurn(turnID, false)
	if err != nil || d.State == store.StateRunning {
		t.Fatalf("turn %s after turn_completed: %+v %v", turnID, d.Turn, err)
	}
	return d
}

// httpClient is a client whose idle connections close with the test, so
// their goroutines end with it.
func httpClient(t *testing.T) *http.Client {
	c := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// busWatch holds a subscription of the bus for a test, and hands out the
// messages of type T published on it (the others are dropped), the way
// eventbustest's Expect does: with no goroutine, so a message published
// before a call returned is there at once.
type busWatch[T Message] struct {
	sub  *Subscription
	held []T
}

// watchBus subscribes to b until the test ends.
func watchBus[T Message](t testing.TB, b *Bus) *busWatch[T] {
	w := &busWatch[T]{sub: b.Subscribe(1 << 16)}
	t.Cleanup(w.sub.Close)
	return w
}

// Taken returns, without waiting, the messages not yet handed out.
func (w *busWatch[T]) Taken() []T {
	w.take()
	out := w.held
	w.held = nil
	return out
}

// Next waits for the next message.
func (w *busWatch[T]) Next() T {
	for {
		w.take()
		if len(w.held) > 0 {
			m := w.held[0]
			w.held = w.held[1:]
			return m
		}
		<-w.sub.Ready()
	}
}

func (w *busWatch[T]) take() {
	for _, env := range w.sub.Drain() {
		if m, ok := env.Data.(T); ok {
			w.held = append(w.held, m)
		}
	}
}

package app

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
)

// fixture is a Service over a real database and engine, with a scripted
// model server as its only provider.
type fixture struct {
	svc *Service
	srv *llmtest.Server
	db  *store.DB
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	_, db, eng := setuptest.NewEngine(t)
	srv := llmtest.NewServer(t)
	svc := NewService(Config{DB: db, DBPath: db.Path(), Runner: eng.Runner, Secrets: eng.Secrets, Workflows: eng.Workflows})
	if err := svc.SaveProvider(ProviderInput{Provider: llm.Provider{Name: "local", Kind: llm.KindCustom, BaseURL: srv.URL(), Local: true}}); err != nil {
		t.Fatal(err)
	}
	return &fixture{svc: svc, srv: srv, db: db}
}

func (f *fixture) session(t *testing.T, title string) store.Session {
	t.Helper()
	s, err := f.svc.CreateSession(NewSession{Title: title, Provider: "local", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// waitTurn waits until a turn is stored in a final state.
func (f *fixture) waitTurn(t *testing.T, turnID string) store.TurnDetail {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		d, err := f.svc.GetTurn(turnID, true)
		if err == nil && d.State != store.StateRunning {
			return d
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("turn %s did not finish", turnID)
	return store.TurnDetail{}
}

// collector gathers delivered events per turn, as a UI would.
type collector struct {
	mu     sync.Mutex
	byTurn map[string][]agent.Event
}

func (c *collector) add(e agent.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byTurn[e.TurnID] = append(c.byTurn[e.TurnID], e)
}

func (c *collector) get(turn string) []agent.Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]agent.Event(nil), c.byTurn[turn]...)
}

func TestConcurrentTurnsDoNotCrossTalk(t *testing.T) {
	f := newFixture(t)
	f.srv.Respond(func(r llmtest.Request) llmtest.Reply {
		last := r.Messages[len(r.Messages)-1].Content
		return llmtest.Reply{Chunks: llmtest.Text("answer to "+last, 20), Delay: 10 * time.Millisecond}
	})
	col := &collector{byTurn: map[string][]agent.Event{}}
	unsub := f.svc.eventHub().Subscribe(col.add)
	defer unsub()
	a, b := f.session(t, "A"), f.session(t, "B")
	ra, err := f.svc.SendMessage(SendRequest{SessionID: a.ID, Message: "alpha"})
	if err != nil {
		t.Fatal(err)
	}
	rb, err := f.svc.SendMessage(SendRequest{SessionID: b.ID, Message: "beta"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.SendMessage(SendRequest{SessionID: a.ID, Message: "again"}); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Fatalf("a second message to a busy session must be refused: %v", err)
	}
	da, db := f.waitTurn(t, ra.TurnID), f.waitTurn(t, rb.TurnID)
	if da.FinalText != "answer to alpha" || db.FinalText != "answer to beta" {
		t.Fatalf("final texts %q / %q", da.FinalText, db.FinalText)
	}
	for _, ref := range []TurnRef{ra, rb} {
		// The result is stored before the ending events go out; wait for them.
		evs := waitEnded(t, func() []agent.Event { return col.get(ref.TurnID) })
		for i, e := range evs {
			if e.SessionID != ref.SessionID || e.Seq != int64(i+1) {
				t.Fatalf("turn %s event %d: session %s seq %d", ref.TurnID, i, e.SessionID, e.Seq)
			}
		}
		if len(evs) == 0 || evs[len(evs)-1].Type != agent.EventTurnCompleted {
			t.Fatal("the live stream did not end with turn_completed")
		}
	}
}

func TestStopByIDKeepsThePartialAnswer(t *testing.T) {
	f := newFixture(t)
	ref := f.startStreaming(t, 5000, 20)
	if err := f.svc.StopTurn(ref.TurnID); err != nil {
		t.Fatal(err)
	}
	d := f.waitTurn(t, ref.TurnID)
	if d.State != store.StateCancelled || !strings.HasPrefix(d.FinalText, "tok0 ") {
		t.Fatalf("state %s final %q", d.State, d.FinalText)
	}
	if _, ok := f.srv.WaitDisconnect(2 * time.Second); !ok {
		t.Fatal("the model server did not see the disconnect")
	}
}

// A UI that reconnects mid-turn subscribes, then asks for everything after
// the last seq it had; with dedupe by seq it sees every event exactly once.
func TestReconnectMidTurnIsGapFreeAndDuplicateFree(t *testing.T) {
	f := newFixture(t)
	f.srv.Enqueue(llmtest.Reply{Chunks: llmtest.Tokens(400), Delay: time.Millisecond})
	s := f.session(t, "S")
	ref, err := f.svc.SendMessage(SendRequest{SessionID: s.ID, Message: "go"})
	if err != nil {
		t.Fatal(err)
	}
	// First connection: sees some events, then drops.
	first := waitEvents(t, f.svc, ref.TurnID, 30)
	lastSeq := first[len(first)-1].Seq

	var mu sync.Mutex
	seen := map[int64]int{}
	var order []int64
	apply := func(e agent.Event) {
		mu.Lock()
		defer mu.Unlock()
		if e.TurnID != ref.TurnID || e.Seq <= lastSeq || seen[e.Seq] > 0 {
			if e.Seq > lastSeq {
				seen[e.Seq]++
			}
			return
		}
		seen[e.Seq]++
		order = append(order, e.Seq)
	}
	unsub := f.svc.eventHub().Subscribe(apply)
	defer unsub()
	backfill, err := f.svc.EventsAfter(ref.TurnID, lastSeq)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range backfill {
		apply(e)
	}
	f.waitTurn(t, ref.TurnID)
	// The ending events follow the stored result: wait until they are out.
	all := waitEnded(t, func() []agent.Event { evs, _ := f.svc.EventsAfter(ref.TurnID, 0); return evs })
	time.Sleep(20 * time.Millisecond)

	mu.Lock()
	defer mu.Unlock()
	want := all[len(all)-1].Seq - lastSeq
	if int64(len(order)) != want {
		t.Fatalf("after reconnect got %d distinct events, want %d", len(order), want)
	}
	for i, seq := range order {
		if seq != lastSeq+int64(i)+1 {
			t.Fatalf("event %d has seq %d: a gap or a reorder", i, seq)
		}
	}
}

func TestQuitDuringATurnStoresItCancelled(t *testing.T) {
	f := newFixture(t)
	ref := f.startStreaming(t, 5000, 20)
	start := time.Now()
	f.svc.shutdown()
	t.Logf("shutdown took %v", time.Since(start))
	d, err := f.svc.GetTurn(ref.TurnID, false)
	if err != nil {
		t.Fatal(err)
	}
	if d.State != store.StateCancelled || d.FinalText == "" {
		t.Fatalf("after quit: state %s, final %q", d.State, d.FinalText)
	}
}

func TestErrorsReachTheUIAsCodeAndMessage(t *testing.T) {
	f := newFixture(t)
	_, err := f.svc.SendMessage(SendRequest{SessionID: "missing", Message: "hi"})
	reply := ErrorReply(err).(interface{ Error() string })
	b, _ := json.Marshal(reply)
	if !strings.Contains(string(b), `"code":"not_found"`) {
		t.Fatalf("reply %s", b)
	}
}

// waitEvents waits until the turn has at least n events and returns them.
func waitEvents(t *testing.T, svc *Service, turnID string, n int) []agent.Event {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		evs, err := svc.EventsAfter(turnID, 0)
		if err == nil && len(evs) >= n {
			return evs
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("turn %s never reached %d events", turnID, n)
	return nil
}

// waitEnded polls get until its events end with turn_completed and
// returns them.
func waitEnded(t *testing.T, get func() []agent.Event) []agent.Event {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if evs := get(); len(evs) > 0 && evs[len(evs)-1].Type == agent.EventTurnCompleted {
			return evs
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatal("the turn's events never ended with turn_completed")
	return nil
}

// startStreaming starts a turn that streams n tokens a millisecond apart
// and returns once the first `seen` events are out.
func (f *fixture) startStreaming(t *testing.T, n, seen int) TurnRef {
	t.Helper()
	f.srv.Enqueue(llmtest.Reply{Chunks: llmtest.Tokens(n), Delay: time.Millisecond})
	s := f.session(t, "S")
	ref, err := f.svc.SendMessage(SendRequest{SessionID: s.ID, Message: "long"})
	if err != nil {
		t.Fatal(err)
	}
	waitEvents(t, f.svc, ref.TurnID, seen)
	return ref
}

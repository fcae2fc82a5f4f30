package app

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// fixture is a Service over a real database and engine, with a scripted
// model server as its only provider.
type fixture struct {
	svc   *Service
	srv   *llmtest.Server
	db    *store.DB
	watch *watch // every live event, from before the first turn
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	_, db, eng := setuptest.NewEngine(t)
	srv := llmtest.NewServer(t)
	svc := NewService(Config{DB: db, DBPath: db.Path(), Runner: eng.Runner, Secrets: eng.Secrets, Workflows: eng.Workflows})
	if err := svc.SaveProvider(ProviderInput{Provider: llm.Provider{Name: "local", Kind: llm.KindCustom, BaseURL: srv.URL(), Local: true}}); err != nil {
		t.Fatal(err)
	}
	w := newWatch()
	t.Cleanup(svc.eventHub().Subscribe(w.add))
	return &fixture{svc: svc, srv: srv, db: db, watch: w}
}

// waitTimeout bounds one wait for an event; it only catches a hang.
const waitTimeout = 2 * time.Minute

// watch keeps the live events of every turn and wakes whoever waits on
// them at each new one: tests wait for the event, never poll a clock.
type watch struct {
	mu      sync.Mutex
	byTurn  map[string][]turn.Event
	changed chan struct{} // closed and replaced at every event
}

func newWatch() *watch {
	return &watch{byTurn: map[string][]turn.Event{}, changed: make(chan struct{})}
}

func (w *watch) add(e turn.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.byTurn[e.TurnID] = append(w.byTurn[e.TurnID], e)
	close(w.changed)
	w.changed = make(chan struct{})
}

func (w *watch) get(tr string) []turn.Event {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]turn.Event(nil), w.byTurn[tr]...)
}

// until waits until cond holds for the turn's events and returns them.
func (w *watch) until(t *testing.T, tr, what string, cond func([]turn.Event) bool) []turn.Event {
	t.Helper()
	timeout := time.After(waitTimeout)
	for {
		w.mu.Lock()
		evs, ch := append([]turn.Event(nil), w.byTurn[tr]...), w.changed
		w.mu.Unlock()
		if cond(evs) {
			return evs
		}
		select {
		case <-ch:
		case <-timeout:
			t.Fatalf("turn %s: %s never happened", tr, what)
		}
	}
}

func ended(evs []turn.Event) bool {
	return len(evs) > 0 && evs[len(evs)-1].Type == turn.EventTurnCompleted
}

func (f *fixture) session(t *testing.T, title string) store.Session {
	t.Helper()
	s, err := f.svc.CreateSession(NewSession{Title: title, Provider: "local", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// waitTurn waits for a turn's turn_completed, which goes out after its
// result is stored, and returns the stored turn.
func (f *fixture) waitTurn(t *testing.T, turnID string) store.TurnDetail {
	t.Helper()
	f.watch.until(t, turnID, "turn_completed", ended)
	d, err := f.svc.GetTurn(turnID, false)
	if err != nil || d.State == store.StateRunning {
		t.Fatalf("turn %s after turn_completed: %+v %v", turnID, d.Turn, err)
	}
	return d
}

func TestConcurrentTurnsDoNotCrossTalk(t *testing.T) {
	f := newFixture(t)
	f.srv.Respond(func(r llmtest.Request) llmtest.Reply {
		last := r.Messages[len(r.Messages)-1].Content
		return llmtest.Reply{Chunks: llmtest.Text("answer to "+last, 20), Delay: 10 * time.Millisecond}
	})
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
		evs := f.watch.get(ref.TurnID)
		for i, e := range evs {
			if e.SessionID != ref.SessionID || e.Seq != int64(i+1) {
				t.Fatalf("turn %s event %d: session %s seq %d", ref.TurnID, i, e.SessionID, e.Seq)
			}
		}
		if len(evs) == 0 || evs[len(evs)-1].Type != turn.EventTurnCompleted {
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
	first := f.watch.until(t, ref.TurnID, "30 events", func(evs []turn.Event) bool { return len(evs) >= 30 })
	lastSeq := first[29].Seq

	// The second connection, as a UI does it: subscribe, back-fill, drop
	// what it has by seq. It keeps what it applied in its own watch.
	var mu sync.Mutex
	seen := map[int64]int{}
	got := newWatch()
	apply := func(e turn.Event) {
		mu.Lock()
		defer mu.Unlock()
		if e.TurnID != ref.TurnID || e.Seq <= lastSeq {
			return
		}
		seen[e.Seq]++
		if seen[e.Seq] == 1 {
			got.add(e)
		}
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
	all := f.watch.until(t, ref.TurnID, "turn_completed", ended)
	order := got.until(t, ref.TurnID, "the reconnected UI's turn_completed", ended)
	f.waitTurn(t, ref.TurnID)

	want := all[len(all)-1].Seq - lastSeq
	if int64(len(order)) != want {
		t.Fatalf("after reconnect got %d distinct events, want %d", len(order), want)
	}
	for i, e := range order {
		if e.Seq != lastSeq+int64(i)+1 {
			t.Fatalf("event %d has seq %d: a gap or a reorder", i, e.Seq)
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
	f.watch.until(t, ref.TurnID, "the first events", func(evs []turn.Event) bool { return len(evs) >= seen })
	return ref
}

package app

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

func TestConcurrentTurnsDoNotCrossTalk(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// A's answer waits until the third message has been refused, so A is
	// still running then however slow the machine is.
	release := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(release) }) }
	t.Cleanup(open)
	f.srv.Respond(func(r llmtest.Request) llmtest.Reply {
		last := r.Messages[len(r.Messages)-1].Content
		if last == "alpha" {
			<-release
		}
		return llmtest.Reply{Chunks: llmtest.Text("answer to "+last, 20), Delay: 10 * time.Millisecond}
	})
	a, b := f.session(t, "A"), f.session(t, "B")
	ra, err := f.api.SendMessage(SendRequest{SessionID: a.ID, Message: "alpha"})
	if err != nil {
		t.Fatal(err)
	}
	rb, err := f.api.SendMessage(SendRequest{SessionID: b.ID, Message: "beta"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.api.SendMessage(SendRequest{SessionID: a.ID, Message: "again"}); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Fatalf("a second message to a busy session must be refused: %v", err)
	}
	open()
	da, db := f.waitTurn(t, ra.TurnID), f.waitTurn(t, rb.TurnID)
	if da.FinalText != "answer to alpha" || db.FinalText != "answer to beta" {
		t.Fatalf("final texts %q / %q", da.FinalText, db.FinalText)
	}
	for _, ref := range []TurnRef{ra, rb} {
		evs := f.rec.Turn(ref.TurnID)
		turntest.Check(t, evs)
		if evs[0].SessionID != ref.SessionID {
			t.Fatalf("turn %s has events of session %s, want %s", ref.TurnID, evs[0].SessionID, ref.SessionID)
		}
	}
}

func TestStopByIDKeepsThePartialAnswer(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ref := f.startStreaming(t, 5000, 20)
	if _, err := f.api.StopTurn(ref.TurnID); err != nil {
		t.Fatal(err)
	}
	d := f.waitTurn(t, ref.TurnID)
	if d.State != store.StateCancelled || !strings.HasPrefix(d.FinalText, "tok0 ") {
		t.Fatalf("state %s final %q", d.State, d.FinalText)
	}
	if _, ok := f.srv.WaitDisconnect(turntest.WaitTimeout); !ok {
		t.Fatal("the model server did not see the disconnect")
	}
}

// A UI that reconnects mid-turn subscribes, then asks for everything after
// the last seq it had; with dedupe by seq it sees every event exactly once.
func TestReconnectMidTurnIsGapFreeAndDuplicateFree(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.Enqueue(llmtest.Reply{Chunks: llmtest.Tokens(400), Delay: time.Millisecond})
	s := f.session(t, "S")
	ref, err := f.api.SendMessage(SendRequest{SessionID: s.ID, Message: "go"})
	if err != nil {
		t.Fatal(err)
	}
	// First connection: sees some events, then drops.
	f.rec.UntilCount(t, ref.TurnID, 30)
	lastSeq := f.rec.Turn(ref.TurnID)[29].Seq

	// The second connection, as a UI does it: subscribe, back-fill, drop
	// what it has by seq. It keeps what it applied in its own recorder.
	var mu sync.Mutex
	seen := map[int64]int{}
	got := &turntest.Recorder{}
	apply := func(e turn.Event) {
		mu.Lock()
		defer mu.Unlock()
		if e.TurnID != ref.TurnID || e.Seq <= lastSeq {
			return
		}
		seen[e.Seq]++
		if seen[e.Seq] == 1 {
			_ = got.Emit(e)
		}
	}
	unsub := f.svc.eventHub().Subscribe(apply)
	defer unsub()
	backfill, err := f.api.EventsAfter(ref.TurnID, lastSeq)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range backfill {
		apply(e)
	}
	all := f.rec.UntilEnded(t, ref.TurnID)
	order := got.UntilEnded(t, ref.TurnID)
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
	t.Parallel()
	f := newFixture(t)
	ref := f.startStreaming(t, 5000, 20)
	start := time.Now()
	f.svc.shutdown()
	t.Logf("shutdown took %v", time.Since(start))
	d, err := f.api.GetTurn(ref.TurnID, false)
	if err != nil {
		t.Fatal(err)
	}
	if d.State != store.StateCancelled || d.FinalText == "" {
		t.Fatalf("after quit: state %s, final %q", d.State, d.FinalText)
	}
}

func TestErrorsReachTheUIAsCodeAndMessage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, err := f.api.SendMessage(SendRequest{SessionID: "missing", Message: "hi"})
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
	ref, err := f.api.SendMessage(SendRequest{SessionID: s.ID, Message: "long"})
	if err != nil {
		t.Fatal(err)
	}
	f.rec.UntilCount(t, ref.TurnID, seen)
	return ref
}

// A session exports in each format under a file name made from its
// title; an unknown format is the person's mistake, said as such.
func TestExportSession(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("Forty-two.", 2)})
	s := f.session(t, "Big: questions?")
	ref, err := f.api.SendMessage(SendRequest{SessionID: s.ID, Message: "The answer?"})
	if err != nil {
		t.Fatal(err)
	}
	f.waitTurn(t, ref.TurnID)
	tests := []struct {
		format   export.Format
		filename string
		code     apperr.Code
	}{
		{format: export.Markdown, filename: "Big_ questions_.md"},
		{format: export.JSON, filename: "Big_ questions_.json"},
		{format: export.JSONL, filename: "Big_ questions_.jsonl"},
		{format: "markdown", filename: "Big_ questions_.md"},
		{format: "pdf", code: apperr.Invalid},
	}
	for _, tt := range tests {
		t.Run(string(tt.format), func(t *testing.T) {
			got, err := f.api.ExportSession(s.ID, tt.format, ExportOptions{})
			if tt.code != "" {
				if apperr.CodeOf(err) != tt.code {
					t.Fatalf("ExportSession(%q) = %v, want %s", tt.format, err, tt.code)
				}
				return
			}
			if err != nil || got.Filename != tt.filename || !strings.Contains(got.Content, "Forty-two.") {
				t.Fatalf("ExportSession(%q) = %q, %d bytes, %v", tt.format, got.Filename, len(got.Content), err)
			}
		})
	}
}

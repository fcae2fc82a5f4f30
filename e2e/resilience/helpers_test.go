package resilience_test

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/setup"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

var ctx = context.Background()

// rig is a real engine over a fresh database, with its own HTTP transport
// (so a test can tune it and close its idle connections) and a scripted
// model server.
type rig struct {
	dir string
	db  *store.DB
	eng *setup.Engine
	tr  *http.Transport
	srv *llmtest.Server
}

// newRig builds the engine as the app does, in t.TempDir(). mods adjust the
// engine's HTTP transport before it is used.
func newRig(t *testing.T, mods ...func(*http.Transport)) *rig {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(ctx, filepath.Join(dir, "agentdeck.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	for _, m := range mods {
		m(tr)
	}
	eng, err := setup.Build(ctx, db, setup.Options{DataDir: dir, HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	// Registered before the server's own cleanup, so it runs after it.
	t.Cleanup(func() {
		eng.Runner.StopAll(10 * time.Second)
		eng.Close()
		db.Close()
		tr.CloseIdleConnections()
	})
	return &rig{dir: dir, db: db, eng: eng, tr: tr, srv: llmtest.NewServer(t)}
}

func (r *rig) session(t *testing.T, title string) store.Session {
	t.Helper()
	s, err := r.db.CreateSession(ctx, store.Session{Title: title, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// turnRun is one finished turn: what the runner returned, what a UI saw, and
// what the store kept.
type turnRun struct {
	id      string
	session string
	res     turn.Result
	live    []turn.Event
	stored  store.TurnDetail
}

// run starts a turn against the rig's server and waits for it to end.
func (r *rig) run(t *testing.T, sessionID, message string, mods ...func(*runner.Request)) turnRun {
	t.Helper()
	rec := &turntest.Recorder{}
	req := runner.Request{SessionID: sessionID, Message: message, BaseURL: r.srv.URL(), Sinks: []turn.Sink{rec}}
	for _, m := range mods {
		m(&req)
	}
	h, err := r.eng.Runner.Start(ctx, req)
	if err != nil {
		t.Fatalf("starting the turn %q: %v", message, err)
	}
	return r.wait(t, h, rec)
}

// wait waits for a started turn and loads it back from the store. It has
// no deadline of its own: on a loaded 2-core machine a 10 MB delta under
// -race took over three minutes. A hang is ended by go test's -timeout,
// which prints every goroutine's stack.
func (r *rig) wait(t *testing.T, h *runner.Handle, rec *turntest.Recorder) turnRun {
	t.Helper()
	<-h.Done()
	d, err := r.db.GetTurn(ctx, h.TurnID, true)
	if err != nil {
		t.Fatalf("loading turn %s: %v", h.TurnID, err)
	}
	return turnRun{id: h.TurnID, session: h.SessionID, res: h.Wait(), live: rec.Events(), stored: d}
}

func (tn turnRun) of(typ turn.EventType) []turn.Event {
	var out []turn.Event
	for _, e := range tn.live {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// tokens is the text streamed to the UI as token events.
func (tn turnRun) tokens() string {
	var b strings.Builder
	for _, e := range tn.of(turn.EventToken) {
		var d turn.TokenData
		_ = json.Unmarshal(e.Data, &d)
		b.WriteString(d.Text)
	}
	return b.String()
}

// errorMessage is the message of the turn's error event, "" when none.
func (tn turnRun) errorMessage(t *testing.T) string {
	t.Helper()
	errs := tn.of(turn.EventError)
	if len(errs) == 0 {
		return ""
	}
	var d turn.ErrorData
	if err := json.Unmarshal(errs[0].Data, &d); err != nil {
		t.Fatalf("error event data %s: %v", errs[0].Data, err)
	}
	return d.Message
}

// checkEnvelope checks the rules every turn's events follow: its own
// session and turn ids, seq 1..N without gaps, exactly one terminal event
// right before the final turn_completed, and the stored log equal to what
// was delivered live.
func (tn turnRun) checkEnvelope(t *testing.T) {
	t.Helper()
	turntest.Check(t, tn.live)
	if e := tn.live[0]; e.SessionID != tn.session || e.TurnID != tn.id {
		t.Fatalf("turn %s carries session %s turn %s", tn.id, e.SessionID, e.TurnID)
	}
	n := len(tn.live)
	if len(tn.stored.Events) != n {
		t.Fatalf("turn %s: %d events delivered, %d stored", tn.id, n, len(tn.stored.Events))
	}
	for i, e := range tn.stored.Events {
		if l := tn.live[i]; e.ID != l.ID || e.Seq != l.Seq || e.Type != l.Type || e.SessionID != tn.session {
			t.Fatalf("turn %s: stored event %d is %s/%d/%s, delivered %s/%d/%s", tn.id, i, e.ID, e.Seq, e.Type, l.ID, l.Seq, l.Type)
		}
	}
}

// via points a turn at another scripted server than the rig's.
func via(srv *llmtest.Server) func(*runner.Request) {
	return func(req *runner.Request) { req.BaseURL = srv.URL() }
}

// toolCall is a model reply that calls one tool with raw argument text.
func toolCall(id, name, args string) llmtest.Reply {
	return llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, id, name, args, 3), "tool_calls")}
}

// toolCalls is a model reply that calls several tools at once.
func toolCalls(calls ...[3]string) llmtest.Reply {
	var chunks []llmtest.Chunk
	for i, c := range calls {
		chunks = append(chunks, llmtest.ToolCallChunks(i, c[0], c[1], c[2], 2)...)
	}
	return llmtest.Reply{Chunks: llmtest.WithFinish(chunks, "tool_calls")}
}

func text(s string) llmtest.Reply { return llmtest.Reply{Chunks: llmtest.Text(s, 3)} }

// lastContent is the content of a request's last message.
func lastContent(req llmtest.Request) string {
	if len(req.Messages) == 0 {
		return ""
	}
	return req.Messages[len(req.Messages)-1].Content
}

// toolMessage finds the tool message answering callID in a request.
func toolMessage(req llmtest.Request, callID string) (llmtest.Message, bool) {
	for _, m := range req.Messages {
		if m.Role == "tool" && m.ToolCallID == callID {
			return m, true
		}
	}
	return llmtest.Message{}, false
}

func containsAll(s string, phrases ...string) (missing string, ok bool) {
	for _, p := range phrases {
		if !strings.Contains(s, p) {
			return p, false
		}
	}
	return "", true
}

package runner_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

// TestContinueAfterStop stops an answer mid-stream, continues it, and
// checks what the model was sent and what the store keeps, for a server
// that continues a trailing assistant message (llama.cpp: the partial
// answer is the prefix) and for one that does not (LM Studio: an
// instruction): the continuation follows the stopped turn and is marked
// so, has its own events with one terminal event, and the next message's
// request holds the answer as one assistant message. A second Continue of
// the same turn is refused.
func TestContinueAfterStop(t *testing.T) {
	// fakellm (the browser tests' model) knows a continuation by this.
	if !strings.HasPrefix(strings.ToLower(runner.ContinueInstruction), "continue your previous answer") {
		t.Fatalf("fakellm's isContinuation no longer recognises %q", runner.ContinueInstruction)
	}
	for _, tt := range []struct {
		kind   string
		prefix bool
	}{
		{catalog.KindLlamaCpp, true},
		{catalog.KindLMStudio, false},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			_, db, eng := setuptest.NewEngine(t)
			ctx := context.Background()
			srv := llmtest.NewServer(t)
			// The first answer sends "One, two," and then nothing until it is stopped.
			srv.Enqueue(
				llmtest.Reply{Chunks: []llmtest.Chunk{{Content: "One, two,"}, {Content: " never sent"}}, Delay: time.Hour},
				llmtest.Reply{Chunks: llmtest.Text(" three, four.", 2)},
				llmtest.Reply{Chunks: llmtest.Text("Five.", 1)},
			)
			if err := db.SaveProvider(ctx, llm.Provider{Name: "p", Kind: tt.kind, BaseURL: srv.URL()}); err != nil {
				t.Fatal(err)
			}
			sess, _ := db.CreateSession(ctx, store.Session{Title: "count", Model: "m", Provider: "p"})

			rec := &turntest.Recorder{}
			h, err := eng.Runner.Start(ctx, runner.Request{SessionID: sess.ID, Message: "Count to five", Sinks: []turn.Sink{rec}})
			if err != nil {
				t.Fatal(err)
			}
			rec.Until(t, "the first token", func(evs []turn.Event) bool { return len(eventsOf(evs, turn.EventToken)) > 0 })
			if err := eng.Runner.Stop(h.TurnID); err != nil {
				t.Fatal(err)
			}
			if res := h.Wait(); res.Termination.Kind != turn.TermCancelled || res.FinalText != "One, two," {
				t.Fatalf("stopped: %+v %q", res.Termination, res.FinalText)
			}

			crec := &turntest.Recorder{}
			ch, err := eng.Runner.Start(ctx, runner.Request{SessionID: sess.ID, Continue: h.TurnID, Sinks: []turn.Sink{crec}})
			if err != nil {
				t.Fatal(err)
			}
			if res := ch.Wait(); !res.OK || res.FinalText != " three, four." {
				t.Fatalf("continuation: ok %v %q %s", res.OK, res.FinalText, res.Error)
			}
			turntest.Check(t, crec.UntilEnded(t, ch.TurnID))

			sent := srv.Requests()[1].Messages
			last := sent[len(sent)-1]
			if tt.prefix {
				if last.Role != "assistant" || last.Content != "One, two," {
					t.Errorf("the prefix server was sent %+v last, want the partial answer", last)
				}
			} else if last.Role != "user" || last.Content != runner.ContinueInstruction || sent[len(sent)-2].Content != "One, two," {
				t.Errorf("the other server was sent %+v, want the partial answer then the instruction", sent)
			}
			d, err := db.GetTurn(ctx, ch.TurnID, false)
			if err != nil || d.ParentTurnID != h.TurnID || !d.Continues || d.State != store.StateCompleted {
				t.Fatalf("stored continuation: parent %q continues %v state %q %v", d.ParentTurnID, d.Continues, d.State, err)
			}
			if tt.prefix != (d.UserMessage == "") {
				t.Errorf("the continuation's message is %q", d.UserMessage)
			}

			// The next message is sent the answer as one.
			nh, err := eng.Runner.Start(ctx, runner.Request{SessionID: sess.ID, Message: "And then?"})
			if err != nil {
				t.Fatal(err)
			}
			nh.Wait()
			var answers []string
			for _, m := range srv.Requests()[2].Messages {
				if m.Role == "assistant" {
					answers = append(answers, m.Content)
				}
			}
			want := "One, two, three, four."
			if !tt.prefix {
				want = "One, two,| three, four."
			}
			if strings.Join(answers, "|") != want {
				t.Errorf("the next request holds the answers %q, want %q", answers, want)
			}

			_, err = eng.Runner.Start(ctx, runner.Request{SessionID: sess.ID, Continue: h.TurnID})
			if apperr.CodeOf(err) != apperr.Conflict {
				t.Errorf("a second Continue: %v, want a conflict", err)
			}
			_, err = eng.Runner.Start(ctx, runner.Request{SessionID: sess.ID, Continue: nh.TurnID})
			if apperr.CodeOf(err) != apperr.Invalid {
				t.Errorf("continuing a completed turn: %v, want it refused", err)
			}
		})
	}
}

// TestVersionOfAFirstMessage: a new version of the first message follows
// nothing, and its model call holds none of the other version's exchange.
func TestVersionOfAFirstMessage(t *testing.T) {
	_, db, eng := setuptest.NewEngine(t)
	ctx := context.Background()
	srv := llmtest.NewServer(t)
	srv.Respond(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Chunks: llmtest.Text("re: "+r.Messages[len(r.Messages)-1].Content, 1)}
	})
	sess, _ := db.CreateSession(ctx, store.Session{Title: "v", Model: "m"})
	run := func(req runner.Request) string {
		req.SessionID, req.BaseURL = sess.ID, srv.URL()
		h, err := eng.Runner.Start(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		h.Wait()
		return h.TurnID
	}
	first := run(runner.Request{Message: "one"})
	run(runner.Request{Message: "two"})
	again := run(runner.Request{Message: "one, again", VersionOf: first})
	if got := srv.Requests()[2].Messages; len(got) != 2 || got[1].Content != "one, again" {
		t.Errorf("the new first version was sent %+v", got)
	}
	if d, _ := db.GetTurn(ctx, again, false); d.ParentTurnID != "" {
		t.Errorf("it follows %q, want nothing", d.ParentTurnID)
	}
	other, _ := db.CreateSession(ctx, store.Session{Title: "other", Model: "m"})
	if _, err := eng.Runner.Start(ctx, runner.Request{SessionID: other.ID, Message: "x", VersionOf: first, BaseURL: srv.URL()}); apperr.CodeOf(err) != apperr.Invalid {
		t.Errorf("a version of another session's turn: %v", err)
	}
}

// TestReplayOnAnyBranch replays, strictly and offline, a turn of a branch
// that is no longer the active one, and a continuation: each is sent
// exactly what it was sent when it ran (a strict replay fails on any
// difference), whatever branch the session shows now.
func TestReplayOnAnyBranch(t *testing.T) {
	_, db, eng := setuptest.NewEngine(t)
	ctx := context.Background()
	srv := llmtest.NewServer(t)
	srv.Respond(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Chunks: llmtest.Text("re: "+r.Messages[len(r.Messages)-1].Content, 2)}
	})
	sess, _ := db.CreateSession(ctx, store.Session{Title: "branches", Model: "m"})
	send := func(req runner.Request) string {
		req.SessionID, req.BaseURL = sess.ID, srv.URL()
		res, _, id := run(t, eng.Runner, req)
		if !res.OK {
			t.Fatalf("%+v", res)
		}
		return id
	}
	first := send(runner.Request{Message: "one"})
	old := send(runner.Request{Message: "two"})
	send(runner.Request{Message: "two, edited", VersionOf: old})
	send(runner.Request{Message: "three"})
	if s, _ := db.GetSession(ctx, sess.ID); s.ActiveTurnID == old {
		t.Fatal("the old version is still active")
	}
	srv.Close() // offline from here
	for _, id := range []string{old, first} {
		rsess, _ := db.CreateSession(ctx, store.Session{Title: "replay"})
		res, rec, _ := run(t, eng.Runner, runner.Request{SessionID: rsess.ID, Replay: &runner.Replay{TurnID: id, Strict: true}})
		if !res.OK || len(divergences(t, rec)) != 0 {
			t.Fatalf("replay of %s: ok %v, %s, divergences %+v", id, res.OK, res.Error, divergences(t, rec))
		}
	}
}

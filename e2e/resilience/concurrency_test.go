package resilience_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

// TestEightSessionsStreamAtOnce runs eight turns in eight sessions against
// one server, all streaming at the same time, and checks that nothing
// crosses between them: every event carries its own session and turn, seq
// runs 1..N per turn, each turn's text answers its own prompt, and all of
// it is stored. Afterwards no goroutine the turns started is left.
//
// Goroutines: the baseline is taken after the engine and the server are
// built, so what they keep for their lifetime is ignored (database/sql's
// connection openers for the writer and reader pools, the keyring's D-Bus
// connection where there is a session bus, the test server's accept loop).
// Everything a turn starts must be gone once the turns are stored and the
// client's idle keep-alive connections (whose read and write loops are the
// only goroutines expected to outlive a turn) are closed.
func TestEightSessionsStreamAtOnce(t *testing.T) {
	const sessions = 8
	r := newRig(t)
	baseline := goleak.IgnoreCurrent()

	// Hold every answer until all eight requests are in, so the streams
	// really overlap; then stream in small delayed pieces so they interleave.
	overlapped := make(chan bool, sessions)
	r.srv.Respond(func(req llmtest.Request) llmtest.Reply {
		overlapped <- r.srv.WaitRequests(sessions, 20*time.Second)
		return llmtest.Reply{Chunks: llmtest.Text(answerTo(lastContent(req)), 24), Delay: time.Millisecond}
	})

	type started struct {
		sess   store.Session
		prompt string
		h      *runner.Handle
		rec    *turntest.Recorder
	}
	var all []started
	for i := range sessions {
		s := r.session(t, fmt.Sprintf("session %d", i))
		prompt := fmt.Sprintf("prompt number %d: %s", i, strings.Repeat("x", i))
		rec := &turntest.Recorder{}
		h, err := r.eng.Runner.Start(ctx, runner.Request{SessionID: s.ID, Message: prompt, BaseURL: r.srv.URL(), Sinks: []turn.Sink{rec}})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, started{s, prompt, h, rec})
	}
	for _, st := range all {
		tn := r.wait(t, st.h, st.rec)
		tn.checkEnvelope(t)
		want := answerTo(st.prompt)
		if tn.res.FinalText != want || tn.tokens() != want || tn.stored.FinalText != want || tn.stored.State != store.StateCompleted {
			t.Errorf("session %s: result %q, streamed %q, stored %s %q; want %q",
				st.sess.Title, tn.res.FinalText, tn.tokens(), tn.stored.State, tn.stored.FinalText, want)
		}
		if tn.stored.SessionID != st.sess.ID || tn.stored.UserMessage != st.prompt {
			t.Errorf("turn %s stored under session %s with message %q", tn.id, tn.stored.SessionID, tn.stored.UserMessage)
		}
		hist, err := r.db.History(ctx, st.sess.ID, 0)
		if err != nil || len(hist) != 2 || hist[0].Content != st.prompt || hist[1].Content != want {
			t.Errorf("session %s history %+v (%v)", st.sess.Title, hist, err)
		}
	}
	for range sessions {
		if !<-overlapped {
			t.Error("the eight requests were not in flight at the same time")
		}
	}
	if n := len(r.srv.Requests()); n != sessions {
		t.Errorf("%d requests, want %d", n, sessions)
	}

	r.tr.CloseIdleConnections()
	goleak.VerifyNone(t, baseline)
}

func answerTo(prompt string) string {
	return "Answer to <" + prompt + ">, streamed in many small pieces so that eight of them interleave."
}

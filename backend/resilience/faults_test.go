package resilience_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/llm/openai"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// faultCase is one way a provider misbehaves during the first turn of a
// session. The second turn of the same session always gets a good answer.
type faultCase struct {
	name string
	// replies answer the first turn's requests in order; the last repeats,
	// so a fault on every attempt is one reply.
	replies []llmtest.Reply
	// transport tunes the engine's HTTP client.
	transport func(*http.Transport)

	wantState    store.TurnState
	wantAttempts int // requests the first turn makes (1 + retries)
	// wantPhrases must all be in the error event's message (failed turns).
	wantPhrases []string
	wantKind    llm.ErrorKind
	// wantText is the text streamed and stored as the final text: the
	// answer, or the partial answer a failed turn keeps.
	wantText string
}

const (
	firstPrompt  = "first question"
	secondPrompt = "second question"
	secondAnswer = "All good again."
	answer       = "The answer is 42."
)

// bigDelta is a single content delta of 10 MB, in words, as a model would
// write them.
var bigDelta = strings.Repeat("lorem ipsum dolor sit amet ", (10<<20)/27+1)[:10<<20]

func faultCases() []faultCase {
	ok := text(answer)
	return []faultCase{
		{
			name:      "429 with a small Retry-After then success",
			replies:   []llmtest.Reply{llmtest.RateLimited("1"), ok},
			wantState: store.StateCompleted, wantAttempts: 2, wantText: answer,
		},
		{
			name:      "429 with a small Retry-After on every attempt",
			replies:   []llmtest.Reply{llmtest.RateLimited("1")},
			wantState: store.StateFailed, wantAttempts: 4, wantKind: llm.ErrRateLimited,
			wantPhrases: []string{"is rate limiting requests", "Try again in 1s"},
		},
		{
			name:      "500 on every attempt",
			replies:   []llmtest.Reply{llmtest.ErrorReply(500, "", "The server had an error while processing your request.")},
			wantState: store.StateFailed, wantAttempts: 4, wantKind: llm.ErrServer,
			wantPhrases: []string{"had an internal error (HTTP 500)", "check the server's log", "The server said: The server had an error"},
		},
		{
			name:      "503 then success",
			replies:   []llmtest.Reply{llmtest.ErrorReply(503, "", "overloaded"), ok},
			wantState: store.StateCompleted, wantAttempts: 2, wantText: answer,
		},
		{
			name:      "an HTML page from a proxy (200)",
			replies:   []llmtest.Reply{llmtest.HTMLPage(200)},
			wantState: store.StateFailed, wantAttempts: 1, wantKind: llm.ErrHTMLPage,
			wantPhrases: []string{"answered with a web page", `"200 OK"`, "instead of the API", "Check the base URL"},
		},
		{
			name:      "an HTML 502 page from a gateway then success",
			replies:   []llmtest.Reply{llmtest.HTMLPage(502), ok},
			wantState: store.StateCompleted, wantAttempts: 2, wantText: answer,
		},
		{
			name:      "connection reset before the response, then success",
			replies:   []llmtest.Reply{resetReply(), ok},
			wantState: store.StateCompleted, wantAttempts: 2, wantText: answer,
		},
		{
			name:      "connection reset before the response on every attempt",
			replies:   []llmtest.Reply{resetReply()},
			wantState: store.StateFailed, wantAttempts: 4, wantKind: llm.ErrNetwork,
			wantPhrases: []string{"The connection to", "closed before it answered"},
		},
		{
			name:      "connection cut after the first chunk",
			replies:   []llmtest.Reply{{Chunks: llmtest.Text("Partial answer that never ends", 3), DropAfter: 1}},
			wantState: store.StateFailed, wantAttempts: 1, wantKind: llm.ErrNetwork,
			wantPhrases: []string{"The connection to", "dropped in the middle of the answer"},
			wantText:    llmtest.Text("Partial answer that never ends", 3)[0].Content,
		},
		{
			name:      "connection reset in the middle of the stream",
			replies:   []llmtest.Reply{resetReply("Half ", "an answer")},
			wantState: store.StateFailed, wantAttempts: 1, wantKind: llm.ErrNetwork,
			wantPhrases: []string{"The connection to", "dropped in the middle of the answer"},
			wantText:    "Half an answer",
		},
		{
			name:      "a malformed first chunk",
			replies:   []llmtest.Reply{{Chunks: []llmtest.Chunk{{Raw: `{"choices":[{"index":0,"delta":{"content":"Hel`}, {Content: "lo"}, {FinishReason: "stop"}}}},
			wantState: store.StateFailed, wantAttempts: 1, wantKind: llm.ErrMalformedStream,
			wantPhrases: []string{"sent a stream Agentdeck could not read", "not be OpenAI-compatible"},
		},
		{
			name:      "a malformed chunk mid-stream",
			replies:   []llmtest.Reply{{Chunks: []llmtest.Chunk{{Content: "Good start, "}, {Raw: `{"choices":[{"index":0,"delta":{"content":}}]}`}, {Content: "lost"}, {FinishReason: "stop"}}}},
			wantState: store.StateFailed, wantAttempts: 1, wantKind: llm.ErrMalformedStream,
			wantPhrases: []string{"sent a stream Agentdeck could not read"},
			wantText:    "Good start, ",
		},
		{
			name:      "the stream stops without [DONE] or finish_reason",
			replies:   []llmtest.Reply{{Chunks: []llmtest.Chunk{{Content: "An answer cut "}, {Content: "short"}}, NoDone: true}},
			wantState: store.StateFailed, wantAttempts: 1, wantKind: llm.ErrMalformedStream,
			wantPhrases: []string{"was cut short", "the stream ended before the model finished"},
			wantText:    "An answer cut short",
		},
		{
			name:      "finish_reason without [DONE] is a complete answer",
			replies:   []llmtest.Reply{{Chunks: llmtest.Text(answer, 3), NoDone: true}},
			wantState: store.StateCompleted, wantAttempts: 1, wantText: answer,
		},
		{
			// The runner cannot set llm.Config.IdleTimeout (see
			// TestIdleTimeoutAtTheLLMLayer); the engine's HTTP client is
			// the one knob a turn has, so a response-header timeout on it
			// stands in for the idle timeout before the first byte.
			name:      "the server accepts and never answers",
			replies:   []llmtest.Reply{{Hang: true}},
			transport: func(tr *http.Transport) { tr.ResponseHeaderTimeout = time.Second },
			wantState: store.StateFailed, wantAttempts: 1, wantKind: llm.ErrTimeout,
			wantPhrases: []string{"did not answer in time"},
		},
		{
			name:      "a single 10 MB content delta streams through",
			replies:   []llmtest.Reply{{Chunks: []llmtest.Chunk{{Content: bigDelta}, {FinishReason: "stop"}}}},
			wantState: store.StateCompleted, wantAttempts: 1, wantText: bigDelta,
		},
	}
}

// TestProviderFaults runs each fault through a real turn and checks the
// stored turn, its error event, the attempts made, and that the session
// still works.
//
// The cases share one engine (building one costs about a second under
// -race) and run at once from their own goroutines rather than with
// t.Parallel, which would run only GOMAXPROCS of them at a time (two on a
// small CI machine): most cases spend their time in the client's retry
// backoff, which the runner gives no way to shorten.
func TestProviderFaults(t *testing.T) {
	shared := newRig(t)
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, tc := range faultCases() {
		wg.Go(func() { t.Run(tc.name, func(t *testing.T) { runFault(t, shared, tc) }) })
	}
}

// runFault runs one case in its own session and against its own server, on
// the shared engine unless the case needs its own HTTP transport.
func runFault(t *testing.T, r *rig, tc faultCase) {
	if tc.transport != nil {
		r = newRig(t, tc.transport)
	}
	srv := llmtest.NewServer(t)
	sc := &script{prompt: firstPrompt, replies: tc.replies}
	srv.Respond(sc.respond)
	sess := r.session(t, tc.name)

	first := r.run(t, sess.ID, firstPrompt, via(srv))
	first.checkEnvelope(t)
	checkFault(t, tc, first)
	if got := sc.attempts(); got != tc.wantAttempts {
		t.Errorf("the first turn made %d requests, want %d", got, tc.wantAttempts)
	}

	second := r.run(t, sess.ID, secondPrompt, via(srv))
	second.checkEnvelope(t)
	if second.stored.State != store.StateCompleted || second.stored.FinalText != secondAnswer {
		t.Fatalf("the session does not work after the fault: second turn %s %q (%s)",
			second.stored.State, second.stored.FinalText, second.errorMessage(t))
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	if !continues(last) || lastContent(last) != secondPrompt {
		t.Errorf("the second turn did not continue the session: %d messages, last %q", len(last.Messages), lastContent(last))
	}
}

func checkFault(t *testing.T, tc faultCase, tn turnRun) {
	t.Helper()
	st := tn.stored
	if st.State != tc.wantState {
		t.Fatalf("stored state %s, want %s (error %q)", st.State, tc.wantState, tn.errorMessage(t))
	}
	if st.FinalText != tc.wantText {
		t.Errorf("stored final text %s, want %s", clip(st.FinalText), clip(tc.wantText))
	}
	if tn.tokens() != tc.wantText {
		t.Errorf("streamed text %s, want %s", clip(tn.tokens()), clip(tc.wantText))
	}
	calls := modelCalls(st)
	if len(calls) != 1 || calls[0].Attempts != tc.wantAttempts {
		t.Errorf("stored model calls %+v, want one with %d attempts", calls, tc.wantAttempts)
	}
	msg := tn.errorMessage(t)
	if tc.wantState == store.StateCompleted {
		if msg != "" || len(tn.of(turn.EventFinalAnswer)) != 1 {
			t.Fatalf("a recovered turn must end with final_answer; error %q", msg)
		}
		return
	}
	if len(tn.of(turn.EventError)) != 1 {
		t.Fatalf("a failed turn must end with one error event; got %d", len(tn.of(turn.EventError)))
	}
	if missing, ok := containsAll(msg, tc.wantPhrases...); !ok {
		t.Errorf("the error message %q lacks %q", msg, missing)
	}
	if st.Outcome != turn.OutcomeFailed || st.Termination.Kind != turn.TermFailed {
		t.Errorf("stored outcome %s termination %+v, want failed", st.Outcome, st.Termination)
	}
	if missing, ok := containsAll(st.Termination.Error, tc.wantPhrases...); !ok {
		t.Errorf("the stored termination %q lacks %q", st.Termination.Error, missing)
	}
	var stored turn.Result
	if err := json.Unmarshal(st.Result, &stored); err != nil || stored.Error != msg {
		t.Errorf("the stored result's error %q is not the message the UI saw %q (%v)", stored.Error, msg, err)
	}
	if len(calls) == 1 && (calls[0].OK || calls[0].ErrorKind != tc.wantKind) {
		t.Errorf("stored model call ok=%v kind %q, want kind %q", calls[0].OK, calls[0].ErrorKind, tc.wantKind)
	}
	var errData turn.ErrorData
	_ = json.Unmarshal(tn.of(turn.EventError)[0].Data, &errData)
	if errData.Source != "llm" {
		t.Errorf("error source %q, want llm", errData.Source)
	}
}

// TestFailedTurnShowsTheMessageOnce: the error event of a failed chat turn
// carries the model client's message as it is, written for people, with
// what to do, once, without internal prefixes.
func TestFailedTurnShowsTheMessageOnce(t *testing.T) {
	r := newRig(t)
	r.srv.Enqueue(llmtest.HTMLPage(200))
	sess := r.session(t, "message once")
	tn := r.run(t, sess.ID, firstPrompt)
	want := r.srv.URL() + ` answered with a web page ("200 OK") instead of the API (HTTP 200). Check the base URL; a proxy or login page may be in the way.`
	if msg := tn.errorMessage(t); msg != want {
		t.Errorf("error event message\n%q\nwant\n%q", msg, want)
	}
	if term := tn.stored.Termination.Error; strings.Contains(term, "failed: failed") || strings.Count(term, want) != 1 {
		t.Errorf("stored termination %q", term)
	}
}

// TestIdleTimeoutAtTheLLMLayer covers what a turn cannot: the runner has no
// way to set llm.Config.IdleTimeout (it stays at 5 minutes), so a server
// that accepts and then goes quiet is checked on the client directly, both
// before the first byte and between deltas. The call must end with
// ErrTimeout well before the caller's deadline, close the connection, and
// leave no goroutine behind.
func TestIdleTimeoutAtTheLLMLayer(t *testing.T) {
	cases := []struct {
		name     string
		reply    llmtest.Reply
		wantText string
	}{
		{"no first byte", llmtest.Reply{Hang: true}, ""},
		{"silence between deltas", llmtest.Reply{Chunks: llmtest.Text("one two three", 3), Delay: time.Hour}, "one "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			baseline := goleak.IgnoreCurrent()
			srv := llmtest.NewServer(t)
			srv.Enqueue(tc.reply)
			tr := http.DefaultTransport.(*http.Transport).Clone()
			client := openai.NewClient(openai.Config{BaseURL: srv.URL(), Label: "the model server", IdleTimeout: time.Second,
				HTTPClient: &http.Client{Transport: tr}})
			cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			var got strings.Builder
			resp, err := client.Stream(cctx, llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}},
				func(c llm.Chunk) error { got.WriteString(c.Content); return nil })
			var lerr *llm.Error
			if !errors.As(err, &lerr) || lerr.Kind != llm.ErrTimeout || !strings.Contains(lerr.Message, "stopped answering (nothing for 1s)") {
				t.Fatalf("got %v, want the idle timeout", err)
			}
			if cctx.Err() != nil {
				t.Fatal("the caller's deadline ended the call, not the idle timeout")
			}
			if got.String() != tc.wantText || resp.Message.Content != tc.wantText || resp.Diagnostics.Attempts != 1 {
				t.Errorf("delivered %q, response %q after %d attempts", got.String(), resp.Message.Content, resp.Diagnostics.Attempts)
			}
			if _, ok := srv.WaitDisconnect(10 * time.Second); !ok {
				t.Error("the client did not close the connection")
			}
			srv.Close()
			tr.CloseIdleConnections()
			goleak.VerifyNone(t, baseline)
		})
	}
}

// script answers the requests of the turn whose last message is prompt with
// replies in order (the last repeats), and any other turn with secondAnswer.
type script struct {
	prompt  string
	replies []llmtest.Reply
	mu      sync.Mutex
	n       int
}

func (s *script) respond(req llmtest.Request) llmtest.Reply {
	if lastContent(req) != s.prompt {
		return text(secondAnswer)
	}
	s.mu.Lock()
	i := s.n
	s.n++
	s.mu.Unlock()
	return s.replies[min(i, len(s.replies)-1)]
}

func (s *script) attempts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// resetReply streams the given content chunks (none: not even a status
// line), then resets the connection with a TCP RST, as a crashing server or
// a middlebox does.
func resetReply(chunks ...string) llmtest.Reply {
	return llmtest.Reply{Handler: func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if len(chunks) > 0 {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			for _, c := range chunks {
				b, _ := json.Marshal(map[string]any{"id": "x", "object": "chat.completion.chunk", "model": "m",
					"choices": []any{map[string]any{"index": 0, "delta": map[string]string{"content": c}, "finish_reason": nil}}})
				fmt.Fprintf(w, "data: %s\n\n", b)
			}
			_ = rc.Flush()
		}
		conn, buf, err := rc.Hijack()
		if err != nil {
			panic(http.ErrAbortHandler)
		}
		_ = buf.Flush()
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // close sends RST, not FIN
		}
		_ = conn.Close()
	}}
}

func modelCalls(d store.TurnDetail) []llm.CallDiagnostics {
	var out []llm.CallDiagnostics
	for _, s := range d.Stages {
		out = append(out, s.Diagnostics.ModelCalls...)
	}
	return out
}

// continues reports whether a request carries the first turn: its user
// message, or the summary that replaced it when the 10 MB answer did not
// fit the model's context window.
func continues(req llmtest.Request) bool {
	for _, m := range req.Messages {
		if m.Role == "user" && (m.Content == firstPrompt || strings.Contains(m.Content, "Earlier conversation, summarized")) {
			return true
		}
	}
	return false
}

// clip keeps failure messages readable when a text is 10 MB.
func clip(s string) string {
	if len(s) <= 80 {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q… (%d bytes)", s[:80], len(s))
}

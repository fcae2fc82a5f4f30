package runner_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/setup"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

// TestReasoningThroughATurn runs a turn whose model thinks before a tool
// call and again before its answer, in each way servers send thinking: a
// reasoning_content field, a reasoning field, and <think> blocks in the
// content. The reasoning streams as reasoning events and never as tokens;
// the answer is clean; the stored messages keep each call's reasoning;
// and the second request of the turn sends the first call's reasoning
// back in the field the provider's kind reads (none for LM Studio).
func TestReasoningThroughATurn(t *testing.T) {
	planArgs := `{"steps":[{"title":"Add the numbers","status":"running"}]}`
	tests := []struct {
		name string
		kind string // provider kind; "" runs with a bare base URL (custom)
		// field is where the server puts reasoning: "reasoning_content",
		// "reasoning", or "think" for <think> in the content.
		field    string
		echoedIn string // the request field the reasoning goes back in, "" for none
	}{
		{"deepseek style, custom server", "", "reasoning_content", "reasoning_content"},
		{"ollama", catalog.KindOllama, "reasoning", "reasoning"},
		{"llama.cpp without a reasoning parser", catalog.KindLlamaCpp, "think", "reasoning_content"},
		{"lm studio", catalog.KindLMStudio, "reasoning_content", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, db, eng := setuptest.NewEngine(t)
			srv := llmtest.NewServer(t)
			thinking := func(text string, rest ...llmtest.Chunk) llmtest.Reply {
				r := llmtest.Reply{ReasoningField: tt.field}
				if tt.field == "think" {
					// Split in awkward places, as a local server streams it.
					r.ReasoningField = ""
					r.Chunks = []llmtest.Chunk{{Content: "<thi"}, {Content: "nk>" + text[:5]}, {Content: text[5:] + "</th"}, {Content: "ink>\n\n"}}
				} else {
					r.Chunks = []llmtest.Chunk{{Reasoning: text[:5]}, {Reasoning: text[5:]}}
				}
				r.Chunks = append(r.Chunks, rest...)
				return r
			}
			srv.Enqueue(
				thinking("I should plan first.", llmtest.WithFinish(llmtest.ToolCallChunks(0, "p1", "update_plan", planArgs, 2), "tool_calls")...),
				thinking("Now the sum: 42.", llmtest.Text("The answer is 42.", 3)...),
			)
			req := runner.Request{Message: "What is 17 + 25?", Sinks: nil}
			sess := store.Session{Title: "think", Model: "qwen3"}
			if tt.kind == "" {
				req.BaseURL = srv.URL()
			} else {
				if err := db.SaveProvider(context.Background(), llm.Provider{Name: "local", Kind: tt.kind, BaseURL: srv.URL(), Local: true}); err != nil {
					t.Fatal(err)
				}
				sess.Provider = "local"
			}
			sess, err := db.CreateSession(context.Background(), sess)
			if err != nil {
				t.Fatal(err)
			}
			rec := &turntest.Recorder{}
			req.SessionID, req.Sinks = sess.ID, []turn.Sink{rec}
			h, err := eng.Runner.Start(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			res := h.Wait()
			if !res.OK || res.FinalText != "The answer is 42." {
				t.Fatalf("result: ok %v, final text %q, error %q", res.OK, res.FinalText, res.Error)
			}
			turntest.Check(t, rec.Events())

			if got := joined(t, rec.Of(turn.EventReasoning)); got != "I should plan first.Now the sum: 42." {
				t.Errorf("reasoning events = %q", got)
			}
			if got := joined(t, rec.Of(turn.EventToken)); got != "The answer is 42." {
				t.Errorf("token events = %q: reasoning or tags leaked into the answer", got)
			}

			d, err := db.GetTurn(context.Background(), h.TurnID, true)
			if err != nil {
				t.Fatal(err)
			}
			var withCalls, final llm.Message
			for _, m := range d.Messages {
				if m.Role == llm.RoleAssistant && len(m.ToolCalls) > 0 {
					withCalls = m
				} else if m.Role == llm.RoleAssistant {
					final = m
				}
			}
			if withCalls.Reasoning != "I should plan first." || withCalls.Content != "" {
				t.Errorf("stored tool-calling message: reasoning %q, content %q", withCalls.Reasoning, withCalls.Content)
			}
			if final.Reasoning != "Now the sum: 42." || final.Content != "The answer is 42." {
				t.Errorf("stored answer: reasoning %q, content %q", final.Reasoning, final.Content)
			}
			if len(d.Events) == 0 || joined(t, eventsOf(d.Events, turn.EventReasoning)) != "I should plan first.Now the sum: 42." {
				t.Error("the stored events do not hold the reasoning")
			}

			// The follow-up request: the assistant message that called the
			// tool, with its reasoning in the provider's field or none.
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests", len(reqs))
			}
			var body struct {
				Messages []map[string]json.RawMessage `json:"messages"`
			}
			if err := json.Unmarshal(reqs[1].Raw, &body); err != nil {
				t.Fatal(err)
			}
			var sent map[string]json.RawMessage
			for _, m := range body.Messages {
				if _, ok := m["tool_calls"]; ok {
					sent = m
				}
			}
			if sent == nil {
				t.Fatal("the follow-up request lost the tool-calling message")
			}
			for _, f := range []string{"reasoning_content", "reasoning", "reasoning_details"} {
				v, ok := sent[f]
				switch {
				case f == tt.echoedIn && string(v) != `"I should plan first."`:
					t.Errorf("%s sent back = %s, want the first call's reasoning", f, v)
				case f != tt.echoedIn && ok:
					t.Errorf("%s sent back (%s), but this server reads %q", f, v, tt.echoedIn)
				}
			}
			if c, _ := sent["content"]; strings.Contains(string(c), "think") {
				t.Errorf("the think block went back as content: %s", c)
			}
		})
	}
}

// TestSilentModelSaysWaitingAndStopsAtOnce: a server that accepts the
// request and sends no byte (a local server loading a model) makes the
// turn say it is waiting, and Stop still ends the turn at once, closing
// the connection so the server stops too.
func TestSilentModelSaysWaitingAndStopsAtOnce(t *testing.T) {
	_, db, eng := setuptest.NewEngine(t, func(o *setup.Options) { o.WaitNotice = time.Millisecond })
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Hang: true})
	sess, _ := db.CreateSession(context.Background(), store.Session{Title: "slow", Model: "m"})
	rec := &turntest.Recorder{}
	h, err := eng.Runner.Start(context.Background(), runner.Request{SessionID: sess.ID, Message: "hello", BaseURL: srv.URL(), Sinks: []turn.Sink{rec}})
	if err != nil {
		t.Fatal(err)
	}
	evs := rec.Until(t, "model_waiting", func(evs []turn.Event) bool {
		for _, e := range evs {
			if e.Type == turn.EventModelWaiting {
				return true
			}
		}
		return false
	})
	w := eventsOf(evs, turn.EventModelWaiting)
	if d := turntest.Data[turn.ModelWaitingData](t, w[0]); d.WaitedMS < 1 {
		t.Errorf("waited_ms = %d", d.WaitedMS)
	}
	// The notice may come before the request is out (it counts from the
	// call's start): Stop once the server holds the request.
	if !srv.WaitRequests(1, time.Minute) {
		t.Fatal("the request never reached the server")
	}
	if err := eng.Runner.Stop(h.TurnID); err != nil {
		t.Fatal(err)
	}
	res := h.Wait()
	if res.OK || res.Termination.Kind != turn.TermCancelled {
		t.Fatalf("result after Stop: ok %v, termination %+v", res.OK, res.Termination)
	}
	if _, ok := srv.WaitDisconnect(time.Minute); !ok {
		t.Fatalf("the server never saw the client go: Stop did not close the connection (%d requests, %d unscripted)", len(srv.Requests()), srv.Unscripted())
	}
	all := rec.UntilEnded(t, h.TurnID)
	turntest.Check(t, all)
	if n := len(eventsOf(all, turn.EventModelWaiting)); n != 1 {
		t.Errorf("%d model_waiting events, want 1", n)
	}
	d, err := db.GetTurn(context.Background(), h.TurnID, false)
	if err != nil || d.State != store.StateCancelled {
		t.Fatalf("stored state %q, %v", d.State, err)
	}
}

func eventsOf(evs []turn.Event, typ turn.EventType) []turn.Event {
	var out []turn.Event
	for _, e := range evs {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// joined concatenates the text of token or reasoning events.
func joined(t *testing.T, evs []turn.Event) string {
	var b strings.Builder
	for _, e := range evs {
		b.WriteString(turntest.Data[turn.TokenData](t, e).Text)
	}
	return b.String()
}

// TestTextToolCallsRunLikeNativeOnes: a local model with no tool-call
// parser writes its call as Hermes text after some prose. The call runs
// like a native one (tool_call and tool_result events, the tool's result
// in the next request) and never shows as answer text; with the
// provider's setting off, the same text stays the answer and nothing runs.
func TestTextToolCallsRunLikeNativeOnes(t *testing.T) {
	call := "Let me write the plan.\n<tool_call>\n{\"name\": \"update_plan\", \"arguments\": {\"steps\": [{\"title\": \"Answer\", \"status\": \"done\"}]}}\n</tool_call>"
	for _, ignore := range []bool{false, true} {
		t.Run(map[bool]string{false: "read", true: "ignored"}[ignore], func(t *testing.T) {
			_, db, eng := setuptest.NewEngine(t)
			srv := llmtest.NewServer(t)
			// Split where a careless filter would leak "<tool" as text.
			srv.Enqueue(
				llmtest.Reply{Chunks: []llmtest.Chunk{{Content: call[:26]}, {Content: call[26:30]}, {Content: call[30:70]}, {Content: call[70:]}, {FinishReason: "stop"}}},
				llmtest.Reply{Chunks: llmtest.Text("Planned and done.", 2)},
			)
			if err := db.SaveProvider(context.Background(), llm.Provider{Name: "lms", Kind: catalog.KindLMStudio, BaseURL: srv.URL(), Local: true, IgnoreTextToolCalls: ignore}); err != nil {
				t.Fatal(err)
			}
			sess, _ := db.CreateSession(context.Background(), store.Session{Title: "text calls", Model: "qwen2.5-7b", Provider: "lms"})
			rec := &turntest.Recorder{}
			h, err := eng.Runner.Start(context.Background(), runner.Request{SessionID: sess.ID, Message: "Plan it.", Sinks: []turn.Sink{rec}})
			if err != nil {
				t.Fatal(err)
			}
			res := h.Wait()
			turntest.Check(t, rec.Events())
			tokens := joined(t, rec.Of(turn.EventToken))
			if ignore {
				if len(rec.Of(turn.EventToolCall)) != 0 || res.FinalText != call || tokens != call {
					t.Fatalf("with the setting off: %d tool calls, final text %q, tokens %q", len(rec.Of(turn.EventToolCall)), res.FinalText, tokens)
				}
				return
			}
			calls, results := rec.Of(turn.EventToolCall), rec.Of(turn.EventToolResult)
			if len(calls) != 1 || len(results) != 1 {
				t.Fatalf("%d tool_call and %d tool_result events, want 1 and 1", len(calls), len(results))
			}
			if c := turntest.Data[turn.ToolCallData](t, calls[0]); c.Name != "update_plan" || !strings.HasPrefix(c.CallID, "call_") {
				t.Errorf("tool call %+v", c)
			}
			if !res.OK || res.FinalText != "Planned and done." {
				t.Fatalf("result: %q (%s)", res.FinalText, res.Error)
			}
			if strings.Contains(tokens, "<tool") || strings.Contains(tokens, "update_plan") || tokens != "Let me write the plan.\nPlanned and done." {
				t.Errorf("tokens = %q: the call leaked into the answer", tokens)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 || !strings.Contains(string(reqs[1].Raw), `"role":"tool"`) {
				t.Fatal("the tool's result did not go back to the model")
			}
			d, err := db.GetTurn(context.Background(), h.TurnID, false)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Stages) == 0 || len(d.Stages[0].Diagnostics.ModelCalls) == 0 || len(d.Stages[0].Diagnostics.ModelCalls[0].Notes) == 0 {
				t.Errorf("the model call's diagnostics do not say the calls were written as text: %+v", d.Stages)
			}
		})
	}
}

// TestModelIsSentOnlyTheActivePath: turns form a tree. A turn made to
// follow the first turn (a new version of the second) is sent the first
// exchange and not the second; the next message follows the new version,
// so the second exchange never leaks into a later request either.
func TestModelIsSentOnlyTheActivePath(t *testing.T) {
	_, db, eng := setuptest.NewEngine(t)
	srv := llmtest.NewServer(t)
	srv.Respond(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Chunks: llmtest.Text("answer to "+r.Messages[len(r.Messages)-1].Content, 2)}
	})
	sess, _ := db.CreateSession(context.Background(), store.Session{Title: "tree", Model: "m"})
	send := func(msg, parent string) string {
		h, err := eng.Runner.Start(context.Background(), runner.Request{SessionID: sess.ID, Message: msg, Parent: parent, BaseURL: srv.URL()})
		if err != nil {
			t.Fatal(err)
		}
		if res := h.Wait(); !res.OK {
			t.Fatalf("%s: %s", msg, res.Error)
		}
		return h.TurnID
	}
	first := send("alpha", "")
	second := send("beta", "")
	third := send("gamma", first) // beta's sibling: another version of the second turn
	send("delta", "")             // follows gamma, the active turn now

	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, want := range [][]string{{"alpha"}, {"alpha", "answer to alpha", "beta"}, {"alpha", "answer to alpha", "gamma"}, {"alpha", "answer to alpha", "gamma", "answer to gamma", "delta"}} {
		var got []string
		for _, m := range reqs[i].Messages {
			if m.Role != "system" {
				got = append(got, m.Content)
			}
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("request %d sent %q, want %q", i+1, got, want)
		}
	}
	d, _ := db.GetTurn(context.Background(), third, false)
	if d.ParentTurnID != first {
		t.Errorf("the new version follows %q, want the first turn", d.ParentTurnID)
	}
	if s, _ := db.GetSession(context.Background(), sess.ID); s.ActiveTurnID == second || s.ActiveTurnID == third {
		t.Errorf("active turn %q, want the newest (delta)", s.ActiveTurnID)
	}
}

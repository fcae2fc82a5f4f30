package traces_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/traces"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// A chat turn is an invoke_agent span over its stage, over one chat span,
// with the GenAI names, the turn's id as the trace id and the times the
// store recorded.
func TestChatTurn(t *testing.T) {
	g := newRig(t, nil)
	id := g.run(t, "chat", "Say hello.", text("Hello there."))
	_, rec := g.record(t, id)
	spans := g.spans(t, id, traces.Options{Version: "1.2.3"})
	if got, w := tree(spans), []string{"stage chat > chat m", "invoke_agent chat > stage chat", " > invoke_agent chat"}; !slices.Equal(got, w) {
		t.Fatalf("tree %q, want %q", got, w)
	}
	root := byName(t, spans, "invoke_agent chat")
	want(t, root, map[string]string{
		"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "chat", "gen_ai.conversation.id": g.sess.ID,
		"gen_ai.request.model": "m", "agentdeck.turn.id": id, "agentdeck.turn.state": "completed", "agentdeck.turn.outcome": "succeeded",
		"gen_ai.usage.input_tokens": "20", "gen_ai.usage.output_tokens": "5",
	})
	u := uuid.MustParse(id)
	if root.SpanContext.TraceID() != trace.TraceID(u) {
		t.Errorf("trace id %s, want the turn's id %s", root.SpanContext.TraceID(), id)
	}
	if !root.StartTime.Equal(rec.StartedAt) || !root.EndTime.Equal(*rec.CompletedAt) {
		t.Errorf("root %v–%v, recorded %v–%v", root.StartTime, root.EndTime, rec.StartedAt, *rec.CompletedAt)
	}
	if got := root.Resource.Attributes(); !slices.ContainsFunc(got, func(kv attribute.KeyValue) bool {
		return kv.Key == "service.name" && kv.Value.AsString() == "agentdeck"
	}) {
		t.Errorf("resource %v", got)
	}
	chat := byName(t, spans, "chat m")
	want(t, chat, map[string]string{
		"gen_ai.operation.name": "chat", "gen_ai.request.model": "m",
		"gen_ai.usage.input_tokens": "20", "gen_ai.usage.output_tokens": "5",
		"gen_ai.usage.cache_read.input_tokens": "8", "gen_ai.usage.reasoning.output_tokens": "2",
		"gen_ai.response.finish_reasons": `["stop"]`, "agentdeck.step.id": "call1",
	})
	if chat.SpanKind != trace.SpanKindClient {
		t.Errorf("chat span kind %v", chat.SpanKind)
	}
	mc := rec.ModelCalls[0]
	if !chat.StartTime.Equal(mc.StartedAt) || chat.EndTime.Sub(chat.StartTime) != time.Duration(mc.DurationMS)*time.Millisecond {
		t.Errorf("chat span %v+%v, recorded %v+%dms", chat.StartTime, chat.EndTime.Sub(chat.StartTime), mc.StartedAt, mc.DurationMS)
	}
	if _, ok := attr(chat, "gen_ai.response.time_to_first_chunk"); !ok && mc.TTFTMS > 0 {
		t.Error("no time to first chunk")
	}
	stage := byName(t, spans, "stage chat")
	want(t, stage, map[string]string{"agentdeck.stage.name": "chat", "agentdeck.stage.agent": "assistant", "agentdeck.stage.outcome": "succeeded", "agentdeck.step.id": "stage1"})

	// Built again, the same ids: a turn exported twice is one trace.
	again := g.spans(t, id, traces.Options{Version: "1.2.3"})
	for i := range spans {
		if !spans[i].SpanContext.Equal(again[i].SpanContext) {
			t.Fatalf("span %d: %v then %v", i, spans[i].SpanContext, again[i].SpanContext)
		}
	}
}

// A tool turn: the execute_tool spans are children of the stage, beside
// the chat spans; a failed tool's span is an error with error.type.
func TestToolTurn(t *testing.T) {
	g := newRig(t, nil)
	id := g.run(t, "chat", "Shout hi, then fail.",
		calls([3]string{"c1", "shout", `{"text":"hi"}`}),
		calls([3]string{"c2", "shout", `{"text":"fail"}`}),
		text("HI; the second failed."))
	spans := g.spans(t, id, traces.Options{})
	got := tree(spans)
	slices.Sort(got)
	w := []string{" > invoke_agent chat", "invoke_agent chat > stage chat",
		"stage chat > chat m", "stage chat > chat m", "stage chat > chat m",
		"stage chat > execute_tool shout", "stage chat > execute_tool shout"}
	if !slices.Equal(got, w) {
		t.Fatalf("tree %q, want %q", got, w)
	}
	var tools, chats []string
	for _, s := range spans {
		if strings.HasPrefix(s.Name, "execute_tool") {
			v, _ := attr(s, "gen_ai.tool.call.id")
			st := "ok"
			if s.Status.Code == codes.Error {
				e, _ := attr(s, "error.type")
				st = "error " + e.AsString() + ": " + s.Status.Description
			}
			want(t, s, map[string]string{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "shout", "gen_ai.tool.type": "function"})
			tools = append(tools, v.AsString()+" "+st)
		}
		if strings.HasPrefix(s.Name, "chat") {
			v, _ := attr(s, "gen_ai.response.finish_reasons")
			st, _ := attr(s, "agentdeck.step.id")
			chats = append(chats, st.AsString()+" "+v.String())
		}
		if _, ok := attr(s, "gen_ai.tool.call.arguments"); ok {
			t.Errorf("span %q has arguments with content off", s.Name)
		}
	}
	slices.Sort(tools)
	if w := []string{"c1 ok", "c2 error tool_call_failed: the tool broke"}; !slices.Equal(tools, w) {
		t.Errorf("tools %q, want %q", tools, w)
	}
	if w := []string{`call1 ["tool_calls"]`, `call2 ["tool_calls"]`, `call3 ["stop"]`}; !slices.Equal(chats, w) {
		t.Errorf("chats %q, want %q", chats, w)
	}
}

// Contents are in a trace only when asked for: the turn's and each call's
// messages (the semconv's JSON), the tools' arguments and results.
func TestContentOnlyWhenAsked(t *testing.T) {
	g := newRig(t, nil)
	id := g.run(t, "chat", "Shout secret-words.", calls([3]string{"c1", "shout", `{"text":"secret-words"}`}), text("SECRET-WORDS"))
	for _, s := range g.spans(t, id, traces.Options{}) {
		for _, a := range s.Attributes {
			if strings.Contains(a.Value.String(), "secret-words") || strings.Contains(a.Value.String(), "SECRET-WORDS") {
				t.Errorf("content off, yet span %q has %s = %s", s.Name, a.Key, a.Value.String())
			}
		}
	}
	spans := g.spans(t, id, traces.Options{Content: true})
	root := byName(t, spans, "invoke_agent chat")
	want(t, root, map[string]string{
		"gen_ai.input.messages":  `[{"role":"user","parts":[{"type":"text","content":"Shout secret-words."}]}]`,
		"gen_ai.output.messages": `[{"role":"assistant","parts":[{"type":"text","content":"SECRET-WORDS"}],"finish_reason":"stop"}]`,
	})
	tool := byName(t, spans, "execute_tool shout")
	want(t, tool, map[string]string{"gen_ai.tool.call.arguments": `{"text":"secret-words"}`, "gen_ai.tool.call.result": "SECRET-WORDS"})
	var outs []string
	for _, s := range spans {
		if s.Name == "chat m" {
			v, ok := attr(s, "gen_ai.output.messages")
			if !ok {
				t.Fatal("a chat span without its output")
			}
			outs = append(outs, v.AsString())
		}
	}
	slices.Sort(outs)
	if w := []string{
		`[{"role":"assistant","parts":[{"type":"text","content":"SECRET-WORDS"}],"finish_reason":"stop"}]`,
		`[{"role":"assistant","parts":[{"type":"tool_call","id":"c1","name":"shout","arguments":{"text":"secret-words"}}],"finish_reason":"tool_calls"}]`,
	}; !slices.Equal(outs, w) {
		t.Errorf("outputs %q, want %q", outs, w)
	}
}

// A failed turn's root span is an error with the turn's error; a stopped
// one says it was stopped, and is not an error.
func TestFailedAndStoppedTurns(t *testing.T) {
	g := newRig(t, nil)
	failed := g.run(t, "chat", "Fail.", llmtest.ErrorReply(400, "invalid_request", "no such model"))
	spans := g.spans(t, failed, traces.Options{})
	root := byName(t, spans, "invoke_agent chat")
	want(t, root, map[string]string{"agentdeck.turn.state": "failed", "error.type": "turn_failed"})
	if root.Status.Code != codes.Error || !strings.Contains(root.Status.Description, "no such model") {
		t.Errorf("failed turn status %+v", root.Status)
	}
	chat := byName(t, spans, "chat m")
	if chat.Status.Code != codes.Error {
		t.Errorf("failed call status %+v", chat.Status)
	}
	if _, ok := attr(chat, "gen_ai.response.finish_reasons"); ok {
		t.Error("a failed call with a finish reason")
	}

	g.srv.Enqueue(llmtest.Reply{Hang: true})
	h, err := g.r.Start(bg, runner.Request{SessionID: g.sess.ID, Message: "Wait.", BaseURL: g.srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	if !g.srv.WaitRequests(2, time.Minute) {
		t.Fatal("the model was never called")
	}
	if err := g.r.Stop(h.TurnID); err != nil {
		t.Fatal(err)
	}
	h.Wait()
	root = byName(t, g.spans(t, h.TurnID, traces.Options{}), "invoke_agent chat")
	want(t, root, map[string]string{"agentdeck.turn.state": "cancelled", "agentdeck.turn.stopped": "true"})
	if root.Status.Code == codes.Error {
		t.Errorf("a stopped turn is not an error: %+v", root.Status)
	}
}

// A person's reviews of the turn and of its steps are attributes of the
// turn's span and of the step's.
func TestReviewsOnTheirSpans(t *testing.T) {
	g := newRig(t, nil)
	id := g.run(t, "chat", "Shout hi.", calls([3]string{"c1", "shout", `{"text":"hi"}`}), text("HI"))
	for _, r := range []turn.Review{
		{TurnID: id, Thumb: -1, Score: 2, Labels: []string{"too loud", "wrong"}, Note: "Should not shout."},
		{TurnID: id, Step: "tool1", Thumb: 1},
	} {
		if _, err := g.db.SaveReview(bg, r); err != nil {
			t.Fatal(err)
		}
	}
	spans := g.spans(t, id, traces.Options{})
	want(t, byName(t, spans, "invoke_agent chat"), map[string]string{
		"agentdeck.review.thumb": "-1", "agentdeck.review.score": "2",
		"agentdeck.review.labels": `["too loud","wrong"]`, "agentdeck.review.note": "Should not shout.",
	})
	want(t, byName(t, spans, "execute_tool shout"), map[string]string{"agentdeck.review.thumb": "1"})
	for _, s := range spans {
		if _, ok := attr(s, "agentdeck.review.score"); ok && s.Name != "invoke_agent chat" {
			t.Errorf("%q has the turn's review", s.Name)
		}
	}
}

// No span carries an attribute set to nothing: the turn's span has no
// step id at all, rather than agentdeck.step.id="".
func TestNoEmptyAttributes(t *testing.T) {
	g := newRig(t, nil)
	id := g.run(t, "chat", "Shout hi.", calls([3]string{"c1", "shout", `{"text":"hi"}`}), text("HI"))
	for _, s := range g.spans(t, id, traces.Options{Content: true}) {
		for _, a := range s.Attributes {
			if v := a.Value.String(); v == "" || v == "[]" {
				t.Errorf("span %q: %s is empty", s.Name, a.Key)
			}
			if a.Key == traces.AttrStep && !s.Parent.IsValid() {
				t.Errorf("the turn's span %q has a step id %q", s.Name, a.Value.AsString())
			}
		}
	}
}

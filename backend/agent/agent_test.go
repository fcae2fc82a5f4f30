package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/plan"
	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

func TestPlainStreamedAnswer(t *testing.T) {
	h := newHarness(t)
	h.srv.Enqueue(text("The answer is 42."))
	res := h.turn(t, context.Background(), "What is the answer?")

	if !res.OK || res.Outcome != turn.OutcomeSucceeded || res.Termination.Kind != turn.TermNaturalCompletion {
		t.Fatalf("result %+v", res)
	}
	if res.FinalText != "The answer is 42." || res.StepsUsed != 1 || res.Usage.TotalTokens != 15 {
		t.Fatalf("final %q steps %d usage %+v", res.FinalText, res.StepsUsed, res.Usage)
	}
	var streamed strings.Builder
	for _, e := range h.rec.Of(turn.EventToken) {
		streamed.WriteString(turntest.Data[turn.TokenData](t, e).Text)
	}
	if streamed.String() != res.FinalText {
		t.Fatalf("tokens %q != final %q", streamed.String(), res.FinalText)
	}
	if fa := h.rec.Of(turn.EventFinalAnswer); turntest.Data[turn.FinalAnswerData](t, fa[0]).Text != res.FinalText {
		t.Fatal("final_answer does not carry the final text")
	}
	if got := h.srv.Requests()[0].Messages; len(got) != 2 || got[0].Role != "system" || got[1].Content != "What is the answer?" {
		t.Fatalf("request messages %+v", got)
	}
	if len(res.ModelCalls) != 1 || !res.ModelCalls[0].OK {
		t.Fatalf("model call diagnostics %+v", res.ModelCalls)
	}
}

func TestPlanWithThreeStepsTicksEveryStep(t *testing.T) {
	h := newHarness(t)
	h.addTools(t, plan.New())
	plan := func(s1, s2, s3 string) string {
		return `{"steps":[{"title":"Load","status":"` + s1 + `"},{"title":"Analyse","status":"` + s2 + `"},{"title":"Report","status":"` + s3 + `"}]}`
	}
	h.srv.Enqueue(
		toolCall("p1", "update_plan", plan("running", "pending", "pending")),
		toolCall("p2", "update_plan", plan("done", "running", "pending")),
		toolCall("p3", "update_plan", plan("done", "done", "done")),
		text("All three steps are done."),
	)
	res := h.turn(t, context.Background(), "do it")

	if gen := h.rec.Of(turn.EventPlanGenerated); len(gen) != 1 || len(turntest.Data[turn.PlanData](t, gen[0]).Steps) != 3 {
		t.Fatalf("plan_generated events: %d", len(gen))
	}
	var ended []int
	for _, e := range h.rec.Of(turn.EventStepEnd) {
		d := turntest.Data[turn.StepEndData](t, e)
		if !d.Success {
			t.Fatalf("step %d ended unsuccessfully", d.StepIndex)
		}
		ended = append(ended, d.StepIndex)
	}
	if len(ended) != 3 || ended[0] != 0 || ended[1] != 1 || ended[2] != 2 {
		t.Fatalf("step_end order %v", ended)
	}
	if len(h.rec.Of(turn.EventStepStart)) != 3 {
		t.Fatalf("want a step_start per step")
	}
	if len(res.PlanSteps) != 3 || res.PlanSteps[2].Status != "done" || res.PlanIncompleteReason != "" {
		t.Fatalf("plan %+v reason %q", res.PlanSteps, res.PlanIncompleteReason)
	}
}

func TestIncompletePlanIsReported(t *testing.T) {
	h := newHarness(t)
	h.addTools(t, plan.New())
	h.srv.Enqueue(
		toolCall("p1", "update_plan", `{"steps":[{"title":"Fetch","status":"error"},{"title":"Sum","status":"pending"}]}`),
		text("I could not fetch the data."),
	)
	res := h.turn(t, context.Background(), "go")
	if !strings.Contains(res.PlanIncompleteReason, `failed: 1 "Fetch"`) || !strings.Contains(res.PlanIncompleteReason, `not finished: 2 "Sum"`) {
		t.Fatalf("reason %q", res.PlanIncompleteReason)
	}
}

func TestParallelToolCallsRunConcurrentlyAndAnswerInOrder(t *testing.T) {
	started := make(chan string, 2)
	release := make(chan struct{})
	h := newHarness(t, blockingTool("slow_a", started, release), blockingTool("slow_b", started, release))
	chunks := llmtest.Stream(
		llmtest.ToolCallChunks(0, "a", "slow_a", `{}`, 2),
		llmtest.ToolCallChunks(1, "b", "slow_b", `{}`, 2),
	)
	h.srv.Enqueue(llmtest.Reply{Chunks: llmtest.WithFinish(chunks, "tool_calls")}, text("both done"))

	done := make(chan turn.Result)
	go func() { done <- h.turn(t, context.Background(), "run both") }()
	// Both tools must be running at once: neither returns until both started.
	waitFor(t, started, "the first tool")
	waitFor(t, started, "the second tool")
	close(release)
	res := <-done

	var toolMsgs []string
	for _, m := range res.Messages {
		if m.Role == "tool" {
			toolMsgs = append(toolMsgs, m.ToolCallID)
		}
	}
	if len(toolMsgs) != 2 || toolMsgs[0] != "a" || toolMsgs[1] != "b" {
		t.Fatalf("tool results must follow call order: %v", toolMsgs)
	}
	if sent := h.srv.Requests()[1].Messages; sent[len(sent)-2].ToolCallID != "a" || sent[len(sent)-1].ToolCallID != "b" {
		t.Fatalf("results sent to the model out of order")
	}
	if res.ToolCallsUsed != 2 || len(res.ToolCalls) != 2 {
		t.Fatalf("tool calls used %d", res.ToolCallsUsed)
	}
}

func TestInvalidArgumentsGoBackToTheModel(t *testing.T) {
	h := newHarness(t, echoTool())
	h.srv.Enqueue(
		toolCall("c1", "echo", `{"text": 5}`),
		toolCall("c2", "echo", `{"text": broken`),
		toolCall("c3", "nope", `{}`),
		toolCall("c4", "echo", `{"text":"fixed"}`),
		text("ok"),
	)
	res := h.turn(t, context.Background(), "echo")
	errs := h.rec.Of(turn.EventToolError)
	if len(errs) != 3 {
		t.Fatalf("%d tool errors, want 3", len(errs))
	}
	for i, want := range []string{"/text", "not valid JSON", `no tool named "nope"`} {
		if got := turntest.Data[turn.ToolErrorData](t, errs[i]).Error; !strings.Contains(got, want) {
			t.Errorf("error %d = %q, want it to mention %q", i, got, want)
		}
	}
	if r := h.rec.Of(turn.EventToolResult); len(r) != 1 || turntest.Data[turn.ToolResultData](t, r[0]).Output != "fixed" {
		t.Fatal("the corrected call did not run")
	}
	if !res.OK {
		t.Fatalf("bad arguments must not fail the turn: %+v", res)
	}
}

func TestLongToolOutputIsTruncatedWithANote(t *testing.T) {
	big := tool.Func{
		Def: tool.Spec{Name: "big"},
		Fn:  func(context.Context, json.RawMessage) (string, error) { return strings.Repeat("é", 20000), nil },
	}
	h := newHarness(t, big)
	h.ag.Limits.MaxToolOutput = 1001
	h.srv.Enqueue(toolCall("c1", "big", `{}`), text("ok"))
	h.turn(t, context.Background(), "x")
	out := turntest.Data[turn.ToolResultData](t, h.rec.Of(turn.EventToolResult)[0]).Output
	if !strings.Contains(out, "[output truncated: 40000 bytes, showing the first 1000]") || !json.Valid([]byte(`"`+strings.Split(out, "\n")[0]+`"`)) {
		t.Fatalf("truncated output tail %q", out[len(out)-60:])
	}
}

func TestToolPanicBecomesAnErrorEvent(t *testing.T) {
	boom := tool.Func{
		Def: tool.Spec{Name: "boom"},
		Fn:  func(context.Context, json.RawMessage) (string, error) { panic("nil map write") },
	}
	h := newHarness(t, boom)
	h.srv.Enqueue(toolCall("c1", "boom", `{}`))
	res := h.turn(t, context.Background(), "x")
	errs := h.rec.Of(turn.EventError)
	if len(errs) != 1 {
		t.Fatal("no error event")
	}
	d := turntest.Data[turn.ErrorData](t, errs[0])
	if d.Source != "tool" || !strings.Contains(d.Message, "boom") || res.Outcome != turn.OutcomeFailed {
		t.Fatalf("error %+v outcome %s", d, res.Outcome)
	}
}

func TestRunnerPanicStillEndsTheTurn(t *testing.T) {
	h := newHarness(t)
	res := turn.RunTurn(context.Background(), h.em, func(ctx context.Context) turn.Result {
		var m map[string]int
		//lint:ignore SA5000 the panic is the point: RunTurn must still end the turn
		m["x"] = 1
		return turn.Result{}
	})
	turntest.Check(t, h.rec.Events())
	if res.OK || res.ErrorSource != "internal" || !strings.Contains(res.Error, "internal error") {
		t.Fatalf("result %+v", res)
	}
}

func TestModelErrorEndsWithAnErrorEvent(t *testing.T) {
	h := newHarness(t)
	h.srv.Enqueue(llmtest.ErrorReply(401, "invalid_api_key", "bad key"))
	res := h.turn(t, context.Background(), "x")
	d := turntest.Data[turn.ErrorData](t, h.rec.Of(turn.EventError)[0])
	if d.Source != "llm" || !strings.Contains(d.Message, "API key") || res.Termination.Kind != turn.TermFailed {
		t.Fatalf("error %+v term %+v", d, res.Termination)
	}
}

func TestSinkErrorsDoNotStopTheTurn(t *testing.T) {
	h := newHarness(t)
	failing := turn.SinkFunc(func(turn.Event) error { return errors.New("disk full") })
	rec := &turntest.Recorder{}
	h.em = turn.NewEmitter(turn.EmitterConfig{SessionID: "sess-1", TurnID: "turn-1", Sinks: []turn.Sink{failing, rec}})
	h.rec = rec
	h.srv.Enqueue(text("still here"))
	if res := h.turn(t, context.Background(), "x"); res.FinalText != "still here" {
		t.Fatalf("final %q", res.FinalText)
	}
}

func TestEventsAfterTheEndAreDropped(t *testing.T) {
	h := newHarness(t)
	h.srv.Enqueue(text("done"))
	h.turn(t, context.Background(), "x")
	n := len(h.rec.Events())
	h.em.Emit(turn.Draft{Data: turn.TokenData{Text: "late"}})
	if len(h.rec.Events()) != n {
		t.Fatal("an event was delivered after turn_completed")
	}
}

func TestEventJSONEnvelope(t *testing.T) {
	rec := &turntest.Recorder{}
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: "s", TurnID: "t", Sinks: []turn.Sink{rec}, Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 678900000, time.UTC) }})
	em.Emit(turn.Draft{StageID: "st", Data: turn.TokenData{Text: "a \"q\" <b>\n"}})
	b, _ := json.Marshal(rec.Events()[0])
	var m map[string]any
	json.Unmarshal(b, &m)
	for _, k := range []string{"id", "session_id", "turn_id", "stage_id", "seq", "parent_id", "at", "type", "phase", "checkpoint", "data"} {
		if _, ok := m[k]; !ok {
			t.Errorf("field %q missing from %s", k, b)
		}
	}
	if m["at"] != "2026-01-02T03:04:05.678Z" {
		t.Errorf("at = %v", m["at"])
	}
	if d := m["data"].(map[string]any); d["text"] != "a \"q\" <b>\n" {
		t.Errorf("token text round trip: %v", d["text"])
	}
}

package agent_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// recorder is a sink that keeps every event.
type recorder struct {
	mu     sync.Mutex
	events []turn.Event
}

func (r *recorder) Emit(e turn.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
	return nil
}

func (r *recorder) all() []turn.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]turn.Event(nil), r.events...)
}

func (r *recorder) ofType(t turn.EventType) []turn.Event {
	var out []turn.Event
	for _, e := range r.all() {
		if e.Type == t {
			out = append(out, e)
		}
	}
	return out
}

// checkTurn asserts the invariants every turn keeps: seq strictly
// increasing from 1, the envelope filled in, exactly one terminal event
// right before turn_completed, which is last, and every tool result or
// error pointing at its tool call. Every test of a turn calls it.
func checkTurn(t *testing.T, events []turn.Event) {
	t.Helper()
	if len(events) < 2 {
		t.Fatalf("a turn has at least a terminal event and turn_completed; got %d events", len(events))
	}
	calls := map[string]bool{}
	terminals := 0
	for i, e := range events {
		if e.Seq != int64(i+1) {
			t.Fatalf("event %d (%s) has seq %d, want %d", i, e.Type, e.Seq, i+1)
		}
		if e.ID == "" || e.TurnID != "turn-1" || e.SessionID != "sess-1" || e.At.IsZero() || e.Phase == "" || !json.Valid(e.Data) {
			t.Fatalf("event %d has an incomplete envelope: %+v", i, e)
		}
		if e.Phase != turn.PhaseOf(e.Type) || e.Checkpoint != turn.IsCheckpoint(e.Type) {
			t.Fatalf("event %d (%s) has phase %q checkpoint %v", i, e.Type, e.Phase, e.Checkpoint)
		}
		switch e.Type {
		case turn.EventToolCall:
			calls[e.ID] = true
		case turn.EventToolResult, turn.EventToolError:
			if !calls[e.ParentID] {
				t.Fatalf("event %d (%s) has parent %q, not an earlier tool_call", i, e.Type, e.ParentID)
			}
		}
		if turn.IsTerminal(e.Type) {
			terminals++
			if i != len(events)-2 {
				t.Fatalf("terminal event %s at %d of %d: it must come right before turn_completed", e.Type, i, len(events))
			}
		}
	}
	if terminals != 1 {
		t.Fatalf("%d terminal events, want exactly 1", terminals)
	}
	if last := events[len(events)-1]; last.Type != turn.EventTurnCompleted {
		t.Fatalf("last event is %s, want turn_completed", last.Type)
	}
}

// harness wires a scripted server, a client, an emitter and a recorder.
type harness struct {
	srv *llmtest.Server
	rec *recorder
	em  *turn.Emitter
	ag  *agent.Agent
}

func newHarness(t *testing.T, tools ...tool.Tool) *harness {
	t.Helper()
	srv := llmtest.NewServer(t)
	rec := &recorder{}
	ts, err := tool.NewSet(tools...)
	if err != nil {
		t.Fatal(err)
	}
	client := llm.NewOpenAI(llm.Config{BaseURL: srv.URL(), MaxRetries: -1})
	return &harness{
		srv: srv,
		rec: rec,
		em:  turn.NewEmitter(turn.EmitterConfig{SessionID: "sess-1", TurnID: "turn-1", Sinks: []turn.Sink{rec}}),
		ag:  &agent.Agent{Name: "assistant", Client: client, Model: "test-model", SystemPrompt: "You help.", Tools: ts},
	}
}

// addTools offers the agent more tools (plan, chart, recall).
func (h *harness) addTools(t *testing.T, tools ...tool.Tool) {
	t.Helper()
	ts, err := h.ag.Tools.With(tools...)
	if err != nil {
		t.Fatal(err)
	}
	h.ag.Tools = ts
}

// turn runs a whole turn and checks its invariants.
func (h *harness) turn(t *testing.T, ctx context.Context, user string) turn.Result {
	t.Helper()
	return h.turnWith(t, ctx, agent.Input{User: user})
}

// turnWith runs a whole turn from in and checks its invariants.
func (h *harness) turnWith(t *testing.T, ctx context.Context, in agent.Input) turn.Result {
	t.Helper()
	res := turn.RunTurn(ctx, h.em, func(ctx context.Context) turn.Result {
		return h.ag.Run(ctx, h.em, in)
	})
	checkTurn(t, h.rec.all())
	return res
}

func toolCall(id, name, args string) llmtest.Reply {
	return llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, id, name, args, 3), "tool_calls")}
}

func text(s string) llmtest.Reply {
	return llmtest.Reply{Chunks: llmtest.Text(s, 4), Usage: &llmtest.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15}}
}

// echoTool returns its "text" argument.
func echoTool() tool.Tool {
	return tool.Func{
		Def: tool.Spec{Name: "echo", Description: "Echo text", Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)},
		Fn: func(ctx context.Context, args json.RawMessage) (string, error) {
			var in struct{ Text string }
			json.Unmarshal(args, &in)
			return in.Text, nil
		},
	}
}

// blockingTool blocks until release is closed, ignoring cancellation, and
// reports on started when it begins.
func blockingTool(name string, started chan<- string, release <-chan struct{}) tool.Tool {
	return tool.Func{
		Def: tool.Spec{Name: name, Parameters: json.RawMessage(`{"type":"object"}`)},
		Fn: func(ctx context.Context, args json.RawMessage) (string, error) {
			started <- name
			<-release
			return name + " done", nil
		},
	}
}

func dataOf[T any](t *testing.T, e turn.Event) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(e.Data, &v); err != nil {
		t.Fatalf("event %s data %s: %v", e.Type, e.Data, err)
	}
	return v
}

func waitFor(t *testing.T, ch <-chan string, what string) string {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		return ""
	}
}

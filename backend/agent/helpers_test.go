package agent_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/llm/openai"
	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
	"go.uber.org/goleak"
)

// harness wires a scripted server, a client, an emitter and a recorder.
type harness struct {
	srv *llmtest.Server
	rec *turntest.Recorder
	em  *turn.Emitter
	ag  *agent.Agent
}

func newHarness(t *testing.T, tools ...tool.Tool) *harness {
	t.Helper()
	srv := llmtest.NewServer(t)
	rec := &turntest.Recorder{}
	ts, err := tool.NewSet(tools...)
	if err != nil {
		t.Fatal(err)
	}
	client := openai.NewClient(openai.Config{BaseURL: srv.URL(), MaxRetries: -1})
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
	turntest.Check(t, h.rec.Events())
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

func waitFor(t *testing.T, ch <-chan string, what string) string {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(turntest.WaitTimeout): // a safety net for a hung test, not a measure
		t.Fatalf("timed out waiting for %s", what)
		return ""
	}
}

// The agent abandons tools that ignore Stop by design (their goroutines
// end when the tool returns); every test still ends with none left.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

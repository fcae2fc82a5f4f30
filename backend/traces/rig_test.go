package traces_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.uber.org/goleak"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/traces"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/workflow"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var bg = context.Background()

// rig is a real runner over a real database whose agents may call two
// test tools, shout (read-only) and append_line, and a scripted model.
type rig struct {
	db   *store.DB
	r    *runner.Runner
	srv  *llmtest.Server
	sess store.Session
}

type toolList []tool.Tool

func (l toolList) Tools() []tool.Tool { return l }

func newRig(t *testing.T, ended func(sessionID, turnID string)) *rig {
	t.Helper()
	db, err := store.Open(bg, filepath.Join(t.TempDir(), "agentdeck.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	shout := tool.Func{Def: tool.Spec{Name: "shout", Description: "Says the text in capitals.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)},
		Fn: func(_ context.Context, args json.RawMessage) (string, error) {
			var a struct{ Text string }
			err := json.Unmarshal(args, &a)
			if a.Text == "fail" {
				return "", errFail
			}
			return strings.ToUpper(a.Text), err
		}}
	appendLine := tool.Func{Def: tool.Spec{Name: "append_line", Description: "Appends a line to the log.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"line":{"type":"string"}},"required":["line"]}`)},
		Fn: func(_ context.Context, args json.RawMessage) (string, error) { return "appended", nil }}
	g := &rig{db: db, srv: llmtest.NewServer(t)}
	g.r = runner.New(runner.Config{DB: db, Workflows: workflow.Builtins, MCP: toolList{shout, appendLine}, Ended: ended})
	if g.sess, err = db.CreateSession(bg, store.Session{Title: "traces", Model: "m"}); err != nil {
		t.Fatal(err)
	}
	return g
}

type failErr struct{}

func (failErr) Error() string { return "the tool broke" }

var errFail = failErr{}

// run runs one turn to its end and returns its id.
func (g *rig) run(t *testing.T, wf, message string, script ...llmtest.Reply) string {
	t.Helper()
	g.srv.Enqueue(script...)
	h, err := g.r.Start(bg, runner.Request{SessionID: g.sess.ID, Message: message, Workflow: wf, BaseURL: g.srv.URL(), Approver: agent.PolicyApprover{AllowAll: true}})
	if err != nil {
		t.Fatal(err)
	}
	h.Wait()
	return h.TurnID
}

// record reads a stored turn as the export reads it.
func (g *rig) record(t *testing.T, turnID string) (*export.Session, *export.Turn) {
	t.Helper()
	s, tr, err := traces.ReadTurn(bg, g.db, g.sess.ID, turnID)
	if err != nil {
		t.Fatal(err)
	}
	return s, tr
}

// spans builds a stored turn's trace and passes it through the SDK's
// in-memory exporter.
func (g *rig) spans(t *testing.T, turnID string, opts traces.Options) tracetest.SpanStubs {
	t.Helper()
	s, tr := g.record(t, turnID)
	return stubs(t, traces.Build(s, tr, opts))
}

func stubs(t *testing.T, spans []sdktrace.ReadOnlySpan) tracetest.SpanStubs {
	t.Helper()
	mem := tracetest.NewInMemoryExporter()
	if err := mem.ExportSpans(bg, spans); err != nil {
		t.Fatal(err)
	}
	return mem.GetSpans()
}

func text(s string) llmtest.Reply {
	return llmtest.Reply{Chunks: llmtest.Text(s, 2), Usage: &llmtest.Usage{PromptTokens: 20, CompletionTokens: 5, CachedTokens: 8, ReasoningTokens: 2}}
}

// calls is a reply asking for tool calls, each [id, name, arguments].
func calls(cs ...[3]string) llmtest.Reply {
	var chunks []llmtest.Chunk
	for i, c := range cs {
		chunks = append(chunks, llmtest.ToolCallChunks(i, c[0], c[1], c[2], 2)...)
	}
	return llmtest.Reply{Chunks: llmtest.WithFinish(chunks, "tool_calls"), Usage: &llmtest.Usage{PromptTokens: 10, CompletionTokens: 3}}
}

// tree is the trace as "parent > name" lines in the spans' order, the
// root's parent "".
func tree(spans tracetest.SpanStubs) []string {
	names := map[string]string{}
	for _, s := range spans {
		names[s.SpanContext.SpanID().String()] = s.Name
	}
	var out []string
	for _, s := range spans {
		out = append(out, names[s.Parent.SpanID().String()]+" > "+s.Name)
	}
	return out
}

func byName(t *testing.T, spans tracetest.SpanStubs, name string) tracetest.SpanStub {
	t.Helper()
	for _, s := range spans {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no span %q in %v", name, tree(spans))
	return tracetest.SpanStub{}
}

func attr(s tracetest.SpanStub, key string) (attribute.Value, bool) {
	for _, a := range s.Attributes {
		if string(a.Key) == key {
			return a.Value, true
		}
	}
	return attribute.Value{}, false
}

// want checks attributes by their value's Emit() text.
func want(t *testing.T, s tracetest.SpanStub, kv map[string]string) {
	t.Helper()
	for k, v := range kv {
		got, ok := attr(s, k)
		if !ok {
			t.Errorf("span %q has no %s", s.Name, k)
			continue
		}
		if got.String() != v {
			t.Errorf("span %q: %s = %q, want %q", s.Name, k, got.String(), v)
		}
	}
}

var _ = turn.OutcomeFailed

//go:build otel

package otel_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
)

// endpoint is the collector's address as agentdeck takes it for proto:
// a URL without a path for HTTP (the exporter adds /v1/traces), host:port
// for gRPC.
func (c *collector) endpoint(proto string) string {
	if proto == "grpc" {
		return c.GRPC
	}
	return "http://" + c.HTTP
}

// enqueueChat queues a chat turn's reply, with token usage.
func enqueueChat(srv *llmtest.Server) {
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("The capital of France is Paris.", 4),
		Usage: &llmtest.Usage{PromptTokens: 21, CompletionTokens: 8, CachedTokens: 5}})
}

// enqueueTool queues a tool turn's replies: the model writes a file, then
// answers, each call with token usage.
func enqueueTool(srv *llmtest.Server) {
	srv.Enqueue(
		llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, "call_w1", "write_file", `{"path":"report.txt","content":"quarterly numbers"}`, 4), "tool_calls"),
			Usage: &llmtest.Usage{PromptTokens: 120, CompletionTokens: 30}},
		llmtest.Reply{Chunks: llmtest.Text("I wrote report.txt.", 3),
			Usage: &llmtest.Usage{PromptTokens: 170, CompletionTokens: 6, CachedTokens: 100}},
	)
}

// Live export: a chat turn and a tool turn run with --otlp-endpoint, over
// OTLP HTTP and over gRPC, each reach the collector as its trace as the
// turn ends; the tool turn with --otlp-content carries message contents,
// the chat turn none.
func TestLiveTurns(t *testing.T) {
	for _, proto := range []string{"http", "grpc"} {
		t.Run(proto, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			env := newCmdEnv(t, srv.URL())
			col := startCollector(t)
			otlp := []string{"--otlp-endpoint", col.endpoint(proto), "--otlp-protocol", proto}

			enqueueChat(srv)
			chat := env.mustRun(append(append([]string{"run"}, otlp...), "What is the capital of France?")...)
			session, chatTurn := turnIDOf(t, chat.stderr)
			enqueueTool(srv)
			tool := env.mustRun(append(append([]string{"run", "--session", session, "--workspace", t.TempDir(), "--approve", "all", "--otlp-content"}, otlp...), "Write the report.")...)
			_, toolTurn := turnIDOf(t, tool.stderr)
			for _, r := range []result{chat, tool} {
				if l := exporterLines(r.stderr); len(l) != 0 {
					t.Errorf("a turn whose collector answered logged about the exporter: %q", l)
				}
			}

			traces := byTrace(col.stop())
			stored := env.storedTurns(session)
			if len(traces) != 2 {
				t.Fatalf("the collector received %d traces, want the 2 turns:\n%s", len(traces), renderTree(col.spansOf(traces)))
			}
			checkTrace(t, traces[traceIDOf(chatTurn)], stored[chatTurn], false)
			checkTrace(t, traces[traceIDOf(toolTurn)], stored[toolTurn], true)
			t.Logf("the tool turn as the collector received it over %s:\n%s", proto, renderTree(traces[traceIDOf(toolTurn)]))
		})
	}
}

func (c *collector) spansOf(traces map[string][]span) []span {
	var all []span
	for _, ss := range traces {
		all = append(all, ss...)
	}
	return all
}

// exporterRE matches a line agentdeck logs about the OTLP exporter.
var exporterRE = regexp.MustCompile(`(?i)opentelemetry|otlp|collector|trace spans`)

func exporterLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if exporterRE.MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}

// A collector killed with SIGKILL mid-turn changes nothing in the turn:
// the model's stream stops after its first token until the collector is
// gone; the turn then completes, exit 0, its stored answer whole, and
// agentdeck logs one line about the exporter.
func TestCollectorKilledMidTurn(t *testing.T) {
	for _, proto := range []string{"http", "grpc"} {
		t.Run(proto, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			env := newCmdEnv(t, srv.URL())
			col := startCollector(t)
			pieces := []string{"The collector ", "went away, ", "and the turn ", "did not notice."}
			answer := strings.Join(pieces, "")
			release := make(chan struct{})
			srv.Enqueue(llmtest.Reply{Handler: heldStream(pieces, release)})

			p := env.start("run", "--json", "--otlp-endpoint", col.endpoint(proto), "--otlp-protocol", proto, "Say something.")
			p.waitLine(func(l string) bool { return eventType(l) == "token" })
			col.kill()
			t.Logf("the collector is killed after the first token")
			close(release)

			var e struct {
				Type   string `json:"type"`
				TurnID string `json:"turn_id"`
			}
			done := p.waitLine(func(l string) bool { return eventType(l) == "turn_completed" })
			completedAt := time.Now()
			if err := json.Unmarshal([]byte(done), &e); err != nil || e.TurnID == "" {
				t.Fatalf("turn_completed without a turn id: %s (%v)", done, err)
			}
			turnID := e.TurnID
			code, _ := p.wait()
			exited := time.Now()
			if code != 0 {
				t.Fatalf("the turn exited %d with its collector killed; stderr:\n%s", code, p.stderr.String())
			}
			env.checkOutput(p.stderr.String())
			lines := exporterLines(p.stderr.String())
			if len(lines) != 1 {
				t.Errorf("agentdeck should log one line about the exporter, logged %d:\n%s", len(lines), p.stderr.String())
			} else if !strings.Contains(lines[0], col.endpoint(proto)) || strings.Contains(lines[0], "Something went wrong inside Agentdeck") {
				t.Errorf("the exporter's line should say which collector failed and how, not that Agentdeck is broken: %q", lines[0])
			}
			t.Logf("from the turn's end to the command's exit: %v (the queued spans' last try)", exited.Sub(completedAt))
			r := env.mustRun("turns", "show", turnID, "--json")
			var v struct {
				State     string `json:"state"`
				FinalText string `json:"final_text"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
				t.Fatal(err)
			}
			if v.State != "completed" || v.FinalText != answer {
				t.Fatalf("the stored turn: state %s, answer %q; want completed, %q", v.State, v.FinalText, answer)
			}
		})
	}
}

func eventType(line string) string {
	var e struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal([]byte(line), &e)
	return e.Type
}

// heldStream answers a streamed chat request with pieces as OpenAI's
// server-sent events: the first piece at once, the rest only once release
// is closed (or the client gives up).
func heldStream(pieces []string, release <-chan struct{}) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		rc := http.NewResponseController(w)
		send := func(delta string, finish string) {
			fr := "null"
			if finish != "" {
				fr = fmt.Sprintf("%q", finish)
			}
			fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-held\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"test-model\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n", delta, fr)
			_ = rc.Flush()
		}
		text := func(s string) string { b, _ := json.Marshal(map[string]string{"content": s}); return string(b) }
		send(`{"role":"assistant","content":""}`, "")
		send(text(pieces[0]), "")
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		for _, p := range pieces[1:] {
			send(text(p), "")
		}
		send(`{}`, "stop")
		fmt.Fprint(w, "data: [DONE]\n\n")
		_ = rc.Flush()
	}
}

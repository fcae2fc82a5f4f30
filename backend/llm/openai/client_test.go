package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/llm/openai"
)

const secretKey = "sk-test-SECRET-0123456789"

func newClient(srv *llmtest.Server, mod ...func(*openai.Config)) *openai.Client {
	cfg := openai.Config{
		BaseURL:      srv.URL(),
		APIKey:       secretKey,
		Label:        "the test server",
		RetryInitial: time.Millisecond,
		RetryMax:     50 * time.Millisecond,
	}
	for _, m := range mod {
		m(&cfg)
	}
	return openai.NewClient(cfg)
}

func userRequest(text string) llm.Request {
	return llm.Request{Model: "test-model", Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: "You are terse."},
		{Role: llm.RoleUser, Content: text},
	}}
}

// collect runs a call and returns the deltas seen by the callback.
func collect(t *testing.T, c llm.Client, ctx context.Context, req llm.Request) ([]llm.Chunk, llm.Response, error) {
	t.Helper()
	var got []llm.Chunk
	resp, err := c.Stream(ctx, req, func(ch llm.Chunk) error {
		got = append(got, ch)
		return nil
	})
	return got, resp, err
}

func TestStreamedAnswer(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{
		Chunks: llmtest.Text("Hello there, how can I help?", 7),
		Usage:  &llmtest.Usage{PromptTokens: 21, CompletionTokens: 8, TotalTokens: 29, CachedTokens: 5, ReasoningTokens: 2},
	})
	chunks, resp, err := collect(t, newClient(srv), context.Background(), userRequest("hi"))
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, c := range chunks {
		text.WriteString(c.Content)
	}
	if text.String() != "Hello there, how can I help?" || resp.Message.Content != text.String() {
		t.Fatalf("text %q / %q", text.String(), resp.Message.Content)
	}
	if resp.FinishReason != "stop" || resp.Message.Role != llm.RoleAssistant {
		t.Fatalf("finish %q role %q", resp.FinishReason, resp.Message.Role)
	}
	want := llm.Usage{InputTokens: 21, OutputTokens: 8, TotalTokens: 29, CachedInputTokens: 5, ReasoningTokens: 2}
	if resp.Usage != want || resp.Diagnostics.Usage != want {
		t.Fatalf("usage %+v, want %+v", resp.Usage, want)
	}
	d := resp.Diagnostics
	if !d.OK || d.Attempts != 1 || d.Model != "test-model" || d.RequestMessages != 2 || d.TimeToFirstToken <= 0 || d.Duration < d.TimeToFirstToken {
		t.Fatalf("diagnostics %+v", d)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || !reqs[0].Stream || !reqs[0].IncludeUsage {
		t.Fatalf("the request must stream and ask for usage: %+v", reqs)
	}
	if got := reqs[0].Header.Get("Authorization"); got != "Bearer "+secretKey {
		t.Fatalf("Authorization %q", got)
	}
}

func TestUsageIsEstimatedWhenTheServerSendsNone(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text(strings.Repeat("word ", 40), 5)})
	_, resp, err := collect(t, newClient(srv), context.Background(), userRequest("count"))
	if err != nil {
		t.Fatal(err)
	}
	u := resp.Usage
	if !u.Estimated || u.OutputTokens != 50 || u.InputTokens == 0 || u.TotalTokens != u.InputTokens+u.OutputTokens {
		t.Fatalf("estimated usage %+v", u)
	}
}

func TestToolCallFragmentsReassemble(t *testing.T) {
	argsA := `{"query":"SELECT region, SUM(sales) FROM t GROUP BY 1","limit":50,"note":"ünïcødé \"quoted\""}`
	argsB := `{"path":"notes/today.md"}`
	// Two calls whose fragments interleave, as some servers send them.
	a := llmtest.ToolCallChunks(0, "call_a", "query_data", argsA, 23)
	b := llmtest.ToolCallChunks(1, "call_b", "read_file", argsB, 9)
	var chunks []llmtest.Chunk
	for i := 0; i < len(a) || i < len(b); i++ {
		if i < len(a) {
			chunks = append(chunks, a[i])
		}
		if i < len(b) {
			chunks = append(chunks, b[i])
		}
	}
	chunks = llmtest.WithFinish(chunks, "tool_calls")
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Chunks: chunks})

	_, resp, err := collect(t, newClient(srv), context.Background(), userRequest("go"))
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.ToolCall{{ID: "call_a", Name: "query_data", Arguments: argsA}, {ID: "call_b", Name: "read_file", Arguments: argsB}}
	if len(resp.Message.ToolCalls) != 2 || resp.Message.ToolCalls[0] != want[0] || resp.Message.ToolCalls[1] != want[1] {
		t.Fatalf("tool calls\n got %+v\nwant %+v", resp.Message.ToolCalls, want)
	}
	if resp.FinishReason != "tool_calls" {
		t.Fatalf("finish %q", resp.FinishReason)
	}
}

func TestReasoningContent(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Chunks: []llmtest.Chunk{
		{Reasoning: "The user greets; "}, {Reasoning: "answer briefly."}, {Content: "Hi!"}, {FinishReason: "stop"},
	}})
	_, resp, err := collect(t, newClient(srv), context.Background(), userRequest("hi"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Reasoning != "The user greets; answer briefly." || resp.Message.Content != "Hi!" {
		t.Fatalf("message %+v", resp.Message)
	}
}

func TestRequestCarriesEveryOption(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("ok", 1)})
	temp, topP, seed := float32(0.25), float32(0.9), int64(42)
	req := llm.Request{
		Model: "m1",
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: "chart it"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "render_chart", Arguments: `{"a":1}`}}},
			{Role: llm.RoleTool, ToolCallID: "c1", Name: "render_chart", Content: "done"},
		},
		Tools:           []llm.Tool{{Name: "render_chart", Description: "Draws", Parameters: json.RawMessage(`{"type":"object"}`)}},
		Temperature:     &temp,
		TopP:            &topP,
		MaxTokens:       256,
		ResponseFormat:  &llm.ResponseFormat{Type: "json_object"},
		Stop:            []string{"END"},
		Seed:            &seed,
		ReasoningEffort: "low",
	}
	if _, _, err := collect(t, newClient(srv), context.Background(), req); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if r.Model != "m1" || len(r.Messages) != 3 || len(r.Tools) != 1 || r.Tools[0] != "render_chart" {
		t.Fatalf("request %+v", r)
	}
	if tc := r.Messages[1].ToolCalls; len(tc) != 1 || tc[0].ID != "c1" || tc[0].Arguments != `{"a":1}` {
		t.Fatalf("assistant tool calls %+v", r.Messages[1])
	}
	if r.Messages[2].ToolCallID != "c1" || r.Messages[2].Content != "done" {
		t.Fatalf("tool result %+v", r.Messages[2])
	}
	for key, want := range map[string]any{"temperature": 0.25, "top_p": 0.9, "max_tokens": 256.0} {
		if got, ok := r.Body[key].(float64); !ok || float32(got) != float32(want.(float64)) {
			t.Errorf("%s = %v, want %v", key, r.Body[key], want)
		}
	}
	if rf, _ := r.Body["response_format"].(map[string]any); rf["type"] != "json_object" {
		t.Errorf("response_format %v", r.Body["response_format"])
	}
	if r.Body["seed"] != 42.0 || r.Body["reasoning_effort"] != "low" {
		t.Errorf("seed %v, reasoning_effort %v, want 42 and low", r.Body["seed"], r.Body["reasoning_effort"])
	}
	if stop, _ := r.Body["stop"].([]any); len(stop) != 1 || stop[0] != "END" {
		t.Errorf("stop %v, want [END]", r.Body["stop"])
	}
}

// TestUnsetSamplingIsNotSent: a setting left unset is absent from the
// body, so the server's own default holds.
func TestUnsetSamplingIsNotSent(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("ok", 1)})
	req := llm.Request{Model: "m1", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}
	if _, _, err := collect(t, newClient(srv), context.Background(), req); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"temperature", "top_p", "max_tokens", "max_completion_tokens", "seed", "stop", "reasoning_effort"} {
		if v, ok := srv.Requests()[0].Body[key]; ok {
			t.Errorf("%s = %v sent, though unset", key, v)
		}
	}
}

func TestCancelClosesTheConnection(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Tokens(1000), Delay: 5 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	var cancelledAt time.Time
	n := 0
	resp, err := newClient(srv).Stream(ctx, userRequest("long"), func(c llm.Chunk) error {
		n++
		if n == 10 {
			cancelledAt = time.Now()
			cancel()
		}
		return nil
	})
	returned := time.Since(cancelledAt)
	if llm.KindOf(err) != llm.ErrCancelled {
		t.Fatalf("err = %v, want cancelled", err)
	}
	at, ok := srv.WaitDisconnect(2 * time.Second)
	if !ok {
		t.Fatal("the server never saw the client disconnect")
	}
	t.Logf("Stream returned %v after cancel; the server saw the disconnect %v after cancel", returned, at.Sub(cancelledAt))
	if resp.Message.Content == "" || resp.Diagnostics.OK {
		t.Fatalf("the partial answer must be kept and the call marked failed: %+v", resp)
	}
	if len(srv.Requests()) != 1 {
		t.Fatal("a cancelled call was retried")
	}
}

func TestCallbackErrorStopsTheStream(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Tokens(500), Delay: time.Millisecond})
	stop := errors.New("enough")
	n := 0
	_, err := newClient(srv).Stream(context.Background(), userRequest("x"), func(llm.Chunk) error {
		if n++; n == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v, want the callback's error", err)
	}
	if _, ok := srv.WaitDisconnect(2 * time.Second); !ok {
		t.Fatal("the stream was not closed")
	}
	if n != 3 {
		t.Fatalf("callback ran %d times after returning an error", n-3)
	}
}

func TestRetriesBeforeTheFirstToken(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.RateLimited("0"), llmtest.ErrorReply(503, "overloaded", "busy"), llmtest.Reply{Chunks: llmtest.Text("finally", 2)})
	_, resp, err := collect(t, newClient(srv), context.Background(), userRequest("x"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "finally" || resp.Diagnostics.Attempts != 3 || len(srv.Requests()) != 3 {
		t.Fatalf("content %q attempts %d requests %d", resp.Message.Content, resp.Diagnostics.Attempts, len(srv.Requests()))
	}
}

func TestNeverRetriesAfterTokens(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("one two three four five", 5), DropAfter: 3}, llmtest.Reply{Chunks: llmtest.Text("duplicate", 1)})
	chunks, resp, err := collect(t, newClient(srv), context.Background(), userRequest("x"))
	if llm.KindOf(err) != llm.ErrNetwork {
		t.Fatalf("err = %v, want a network error", err)
	}
	if len(srv.Requests()) != 1 {
		t.Fatalf("retried after tokens had streamed: %d requests", len(srv.Requests()))
	}
	if len(chunks) != 3 || resp.Message.Content == "" || strings.Contains(resp.Message.Content, "duplicate") {
		t.Fatalf("partial %q from %d chunks", resp.Message.Content, len(chunks))
	}
}

func TestErrorsPeopleCanActOn(t *testing.T) {
	tests := []struct {
		name       string
		reply      llmtest.Reply
		mod        func(*openai.Config)
		kind       llm.ErrorKind
		retryAfter time.Duration
		mentions   string
		requests   int
	}{
		{name: "bad key", reply: llmtest.ErrorReply(401, "invalid_api_key", "Incorrect API key provided: sk-test-SE***789"), kind: llm.ErrAuth, mentions: "key", requests: 1},
		{name: "model not found", reply: llmtest.ErrorReply(404, "model_not_found", "The model `nope` does not exist"), kind: llm.ErrModelNotFound, mentions: "model", requests: 1},
		{name: "rate limited with a long Retry-After", reply: llmtest.RateLimited("60"), kind: llm.ErrRateLimited, retryAfter: time.Minute, mentions: "Try again in 1m0s", requests: 1},
		{name: "context length", reply: llmtest.ContextLengthExceeded(), kind: llm.ErrContextLength, mentions: "context window", requests: 1},
		{name: "bad request", reply: llmtest.ErrorReply(400, "invalid_value", "temperature must be <= 2"), kind: llm.ErrBadRequest, mentions: "temperature must be", requests: 1},
		{name: "server error without retries", reply: llmtest.ErrorReply(500, "server_error", "boom"), mod: noRetries, kind: llm.ErrServer, mentions: "HTTP 500", requests: 1},
		{name: "HTML page from a proxy", reply: llmtest.HTMLPage(403), kind: llm.ErrHTMLPage, mentions: "web page", requests: 1},
		{name: "HTML 502 from a gateway", reply: llmtest.HTMLPage(502), mod: noRetries, kind: llm.ErrServer, mentions: "HTTP 502", requests: 1},
		{name: "malformed chunk", reply: llmtest.Reply{Chunks: []llmtest.Chunk{{Content: "ok "}, {Raw: `{"choices":[{"delta":{"content":`}}}, kind: llm.ErrMalformedStream, mentions: "could not read", requests: 1},
		{name: "stream cut short without DONE", reply: llmtest.Reply{Chunks: []llmtest.Chunk{{Content: "half an ans"}}, NoDone: true}, kind: llm.ErrMalformedStream, mentions: "cut short", requests: 1},
		{name: "Ollama's bare error string", reply: llmtest.Reply{Status: 404, Body: `{"error":"model \"qwen9\" not found, try pulling it first"}`}, kind: llm.ErrModelNotFound, mentions: "try pulling it first", requests: 1},
		{name: "plain-text error body", reply: llmtest.Reply{Status: 400, ContentType: "text/plain", Body: "bad things in the request\n"}, kind: llm.ErrBadRequest, mentions: "bad things in the request", requests: 1},
		{name: "server that never answers", reply: llmtest.Reply{Hang: true}, mod: func(c *openai.Config) { c.IdleTimeout = 100 * time.Millisecond; c.MaxRetries = -1 }, kind: llm.ErrTimeout, mentions: "stopped answering", requests: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(tt.reply)
			mods := []func(*openai.Config){}
			if tt.mod != nil {
				mods = append(mods, tt.mod)
			}
			_, _, err := collect(t, newClient(srv, mods...), context.Background(), userRequest("x"))
			var lerr *llm.Error
			if !errors.As(err, &lerr) {
				t.Fatalf("err = %v (%T), want *llm.Error", err, err)
			}
			if lerr.Kind != tt.kind {
				t.Fatalf("kind %q, want %q (%v)", lerr.Kind, tt.kind, err)
			}
			if !strings.Contains(lerr.Message, tt.mentions) {
				t.Errorf("message %q should mention %q", lerr.Message, tt.mentions)
			}
			if lerr.RetryAfter != tt.retryAfter {
				t.Errorf("RetryAfter %v, want %v", lerr.RetryAfter, tt.retryAfter)
			}
			if strings.Contains(err.Error(), secretKey) || strings.Contains(lerr.Message, "SECRET") {
				t.Errorf("the API key leaked into the error: %v", err)
			}
			if n := len(srv.Requests()); n != tt.requests {
				t.Errorf("%d requests, want %d", n, tt.requests)
			}
		})
	}
}

func TestServerDownIsANetworkError(t *testing.T) {
	srv := llmtest.NewServer(t)
	// No label: the server is known only by its URL (agentdeck run --base-url).
	c := newClient(srv, noRetries, func(c *openai.Config) { c.Label = "" })
	srv.Close()
	_, resp, err := collect(t, c, context.Background(), userRequest("x"))
	msg := err.(*llm.Error).Message
	if llm.KindOf(err) != llm.ErrNetwork || !strings.Contains(msg, "Is the server running?") {
		t.Fatalf("err = %v", err)
	}
	if strings.Count(msg, srv.URL()) != 1 {
		t.Fatalf("a server known only by its URL is named once: %q", msg)
	}
	if resp.Usage.TotalTokens != 0 || resp.Diagnostics.Usage.InputTokens != 0 {
		t.Fatalf("a call that reached no server counted tokens: %+v", resp.Usage)
	}
}

func noRetries(c *openai.Config) { c.MaxRetries = -1 }

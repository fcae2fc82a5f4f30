package llmtest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// chatBody is a minimal chat request body.
func chatBody(stream, includeUsage bool) string {
	b := `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":` + fmt.Sprint(stream)
	if includeUsage {
		b += `,"stream_options":{"include_usage":true}`
	}
	return b + "}"
}

func post(t *testing.T, ctx context.Context, url, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading body: %v", err)
	}
	return string(b)
}

var createdRE = regexp.MustCompile(`"created":\d+`)

// event is the SSE event for one chunk of the first response of a server,
// with created zeroed.
func event(delta, finish string) string {
	return `data: {"id":"chatcmpl-llmtest-1","object":"chat.completion.chunk","created":0,"model":"m",` +
		`"choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + finish + `}]}` + "\n\n"
}

const done = "data: [DONE]\n\n"

// usageNull adds the "usage":null that OpenAI puts on every chunk when the
// request asked for usage.
func usageNull(events string) string {
	return strings.ReplaceAll(events, "}]}\n", `}],"usage":null}`+"\n")
}

func TestStreamFormat(t *testing.T) {
	tests := []struct {
		name         string
		reply        Reply
		includeUsage bool
		want         string
	}{
		{
			name:  "text",
			reply: Reply{Chunks: Text("Hi!", 2)},
			want: event(`{"role":"assistant","content":"H"}`, "null") +
				event(`{"content":"i!"}`, "null") +
				event(`{}`, `"stop"`) + done,
		},
		{
			name:  "reasoning then text",
			reply: Reply{Chunks: Stream(Reasoning("hmm", 1), Text("ok", 1))},
			want: event(`{"role":"assistant","reasoning_content":"hmm"}`, "null") +
				event(`{"content":"ok"}`, "null") +
				event(`{}`, `"stop"`) + done,
		},
		{
			name:  "reasoning field",
			reply: Reply{Chunks: []Chunk{{Reasoning: "a", Content: "b"}}, ReasoningField: "reasoning"},
			want:  event(`{"role":"assistant","content":"b","reasoning":"a"}`, "null") + done,
		},
		{
			name:  "tool call fragments",
			reply: Reply{Chunks: WithFinish(ToolCallChunks(0, "call_1", "f", `{"a":1}`, 2), "tool_calls")},
			want: event(`{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]}`, "null") +
				event(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"a"}}]}`, "null") +
				event(`{"tool_calls":[{"index":0,"function":{"arguments":"\":1}"}}]}`, "null") +
				event(`{}`, `"tool_calls"`) + done,
		},
		{
			name:  "escaping",
			reply: Reply{Chunks: []Chunk{{Content: "a\"b\\c\nd<é>\u2028\x01"}}},
			want:  event(`{"role":"assistant","content":"a\"b\\c\nd<é>\u2028\u0001"}`, "null") + done,
		},
		{
			name:  "raw payload",
			reply: Reply{Chunks: []Chunk{{Content: "x"}, {Raw: `{"broken`}}},
			want:  event(`{"role":"assistant","content":"x"}`, "null") + "data: {\"broken\n\n" + done,
		},
		{
			name:  "verbatim before role",
			reply: Reply{Chunks: []Chunk{{Verbatim: ": keep-alive\n\n"}, {Content: "x"}}},
			want:  ": keep-alive\n\n" + event(`{"role":"assistant","content":"x"}`, "null") + done,
		},
		{
			name:  "no done",
			reply: Reply{Chunks: Text("x", 1), NoDone: true},
			want:  event(`{"role":"assistant","content":"x"}`, "null") + event(`{}`, `"stop"`),
		},
		{
			name:  "usage not asked for",
			reply: Reply{Chunks: Text("x", 1), Usage: &Usage{PromptTokens: 3, CompletionTokens: 2}},
			want:  event(`{"role":"assistant","content":"x"}`, "null") + event(`{}`, `"stop"`) + done,
		},
		{
			name:         "usage asked for",
			reply:        Reply{Chunks: Text("x", 1), Usage: &Usage{PromptTokens: 3, CompletionTokens: 2, CachedTokens: 1, ReasoningTokens: 1}},
			includeUsage: true,
			want: usageNull(event(`{"role":"assistant","content":"x"}`, "null")+event(`{}`, `"stop"`)) +
				`data: {"id":"chatcmpl-llmtest-1","object":"chat.completion.chunk","created":0,"model":"m","choices":[],` +
				`"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5,"prompt_tokens_details":{"cached_tokens":1},"completion_tokens_details":{"reasoning_tokens":1}}}` + "\n\n" +
				done,
		},
		{
			name:         "usage asked for, none scripted",
			reply:        Reply{Chunks: []Chunk{{FinishReason: "length"}}},
			includeUsage: true,
			want:         usageNull(event(`{"role":"assistant"}`, `"length"`)) + done,
		},
		{
			name:  "empty",
			reply: Reply{},
			want:  done,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewServer(t)
			srv.Enqueue(tt.reply)
			resp := post(t, t.Context(), srv.URL(), chatBody(true, tt.includeUsage))
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d", resp.StatusCode)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
				t.Errorf("Content-Type %q", ct)
			}
			if id := resp.Header.Get("X-Request-Id"); id != "req-llmtest-1" {
				t.Errorf("X-Request-Id %q", id)
			}
			got := createdRE.ReplaceAllString(readAll(t, resp), `"created":0`)
			if got != tt.want {
				t.Errorf("stream:\n%s\nwant:\n%s", got, tt.want)
			}
			for line := range strings.Lines(got) {
				payload, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "data: ")
				if ok && payload != "[DONE]" && tt.name != "raw payload" && !json.Valid([]byte(payload)) {
					t.Errorf("invalid JSON event %q", payload)
				}
			}
		})
	}
}

// wireChunk is a chunk as a client decodes it.
type wireChunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Model   string `json:"model"`
	Choices []struct {
		Delta struct {
			Role      string `json:"role"`
			Content   string `json:"content"`
			ToolCalls []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
}

// assembled is what a client builds from a stream.
type assembled struct {
	content string
	calls   map[int][3]string // id, name, arguments
	finish  string
	chunks  int
	done    bool
}

func assemble(t *testing.T, body io.Reader) (assembled, error) {
	t.Helper()
	a := assembled{calls: map[int][3]string{}}
	sc := bufio.NewScanner(body)
	for sc.Scan() {
		payload, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if payload == "[DONE]" {
			a.done = true
			continue
		}
		var c wireChunk
		if err := json.Unmarshal([]byte(payload), &c); err != nil {
			t.Fatalf("chunk %q: %v", payload, err)
		}
		a.chunks++
		for _, ch := range c.Choices {
			a.content += ch.Delta.Content
			for _, tc := range ch.Delta.ToolCalls {
				cur := a.calls[tc.Index]
				a.calls[tc.Index] = [3]string{cur[0] + tc.ID, cur[1] + tc.Function.Name, cur[2] + tc.Function.Arguments}
			}
			if ch.FinishReason != nil {
				a.finish = *ch.FinishReason
			}
		}
	}
	return a, sc.Err()
}

func TestStreamAssembles(t *testing.T) {
	tests := []struct {
		name       string
		chunks     []Chunk
		wantText   string
		wantCalls  map[int][3]string
		wantFinish string
	}{
		{"text", Text("The quick brown fox — jumps", 7), "The quick brown fox — jumps", map[int][3]string{}, "stop"},
		{"tokens", Tokens(3), "tok0 tok1 tok2 ", map[int][3]string{}, "stop"},
		{
			name: "parallel tool calls",
			chunks: WithFinish(Stream(
				ToolCallChunks(0, "call_a", "read", `{"path":"a.txt"}`, 5),
				ToolCallChunks(1, "call_b", "list", `{}`, 3),
			), "tool_calls"),
			wantCalls:  map[int][3]string{0: {"call_a", "read", `{"path":"a.txt"}`}, 1: {"call_b", "list", `{}`}},
			wantFinish: "tool_calls",
		},
		{
			name:       "text then tool call",
			chunks:     WithFinish(Stream(Text("Let me look.", 2), ToolCallChunks(0, "c", "grep", `{"q":"x"}`, 2)), "tool_calls"),
			wantText:   "Let me look.",
			wantCalls:  map[int][3]string{0: {"c", "grep", `{"q":"x"}`}},
			wantFinish: "tool_calls",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewServer(t)
			srv.Enqueue(Reply{Chunks: tt.chunks})
			resp := post(t, t.Context(), srv.URL(), chatBody(true, false))
			got, err := assemble(t, resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if got.content != tt.wantText || got.finish != tt.wantFinish || !got.done {
				t.Errorf("got text %q finish %q done %v; want %q %q true", got.content, got.finish, got.done, tt.wantText, tt.wantFinish)
			}
			if fmt.Sprint(got.calls) != fmt.Sprint(tt.wantCalls) {
				t.Errorf("tool calls %v, want %v", got.calls, tt.wantCalls)
			}
		})
	}
}

func TestDropAfter(t *testing.T) {
	tests := []struct {
		name       string
		reply      Reply
		wantChunks int
	}{
		{"after first", Reply{Chunks: Tokens(10), DropAfter: 1}, 1},
		{"mid-stream", Reply{Chunks: Tokens(10), DropAfter: 4}, 4},
		{"after last chunk, before done", Reply{Chunks: Tokens(2), DropAfter: 3}, 3},
		{"beyond the chunks", Reply{Chunks: Tokens(2), DropAfter: 99}, 3},
		{"no chunks", Reply{DropAfter: 1}, 0},
		{"with delay", Reply{Chunks: Tokens(10), DropAfter: 2, Delay: time.Millisecond}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewServer(t)
			srv.Enqueue(tt.reply)
			resp := post(t, t.Context(), srv.URL(), chatBody(true, false))
			got, err := assemble(t, resp.Body)
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("read error %v, want unexpected EOF", err)
			}
			if got.chunks != tt.wantChunks || got.done {
				t.Errorf("got %d chunks, done %v; want %d, no done", got.chunks, got.done, tt.wantChunks)
			}
			if d := srv.Disconnects(); len(d) != 0 {
				t.Errorf("server cut recorded as %d disconnects", len(d))
			}
		})
	}

	t.Run("not streamed", func(t *testing.T) {
		srv := NewServer(t)
		srv.Enqueue(Reply{Chunks: Text("a long enough answer", 3), DropAfter: 1})
		resp := post(t, t.Context(), srv.URL(), chatBody(false, false))
		b, err := io.ReadAll(resp.Body)
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("read error %v, want unexpected EOF", err)
		}
		if len(b) == 0 || json.Valid(b) {
			t.Errorf("body %q: want a truncated object", b)
		}
	})
}

func TestDisconnect(t *testing.T) {
	tests := []struct {
		name  string
		reply Reply
		// firstLine: cancel after the first SSE line arrived, not after
		// the request was recorded.
		firstLine bool
	}{
		{"sleeping between chunks", Reply{Chunks: Tokens(3), Delay: time.Hour}, true},
		{"hanging", Reply{Hang: true}, false},
		{"before the first byte", Reply{FirstByteDelay: time.Hour}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewServer(t)
			srv.Enqueue(tt.reply)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var cancelled time.Time
			stop := func() {
				cancelled = time.Now()
				cancel()
			}
			if tt.firstLine {
				resp := post(t, ctx, srv.URL(), chatBody(true, false))
				if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
					t.Fatal(err)
				}
				stop()
			} else {
				errc := make(chan error, 1)
				go func() {
					req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL()+"/chat/completions", strings.NewReader(chatBody(true, false)))
					resp, err := http.DefaultClient.Do(req)
					if err == nil {
						resp.Body.Close()
					}
					errc <- err
				}()
				if !srv.WaitRequests(1, 10*time.Second) {
					t.Fatal("request never arrived")
				}
				stop()
				if err := <-errc; !errors.Is(err, context.Canceled) {
					t.Errorf("client error %v, want context.Canceled", err)
				}
			}
			at, ok := srv.WaitDisconnect(10 * time.Second)
			if !ok {
				t.Fatal("disconnect not recorded")
			}
			if at.Before(cancelled) {
				t.Errorf("disconnect recorded at %v, before the cancel at %v", at, cancelled)
			}
			if d := srv.Disconnects(); len(d) != 1 {
				t.Errorf("%d disconnects recorded, want 1", len(d))
			}
		})
	}
}

func TestPlainReplies(t *testing.T) {
	tests := []struct {
		name        string
		reply       Reply
		stream      bool
		wantStatus  int
		wantType    string
		wantHeader  map[string]string
		wantCode    string // OpenAI error code; "-" for a body that is not an error
		wantMessage string // a substring of the body
	}{
		{"error reply", ErrorReply(503, "overloaded", "try later"), true, 503, "application/json", nil, "overloaded", "try later"},
		{"error without code", ErrorReply(500, "", "boom"), false, 500, "application/json", nil, "", "boom"},
		{"rate limited", RateLimited("2"), true, 429, "application/json", map[string]string{"Retry-After": "2"}, "rate_limit_exceeded", "Rate limit reached"},
		{"rate limited, no retry-after", RateLimited(""), true, 429, "application/json", map[string]string{"Retry-After": ""}, "rate_limit_exceeded", "Rate limit"},
		{"context length", ContextLengthExceeded(), true, 400, "application/json", nil, "context_length_exceeded", "maximum context length"},
		{"html page", HTMLPage(502), true, 502, "text/html", nil, "-", "<title>502 Bad Gateway</title>"},
		{"status only", Reply{Status: 401}, false, 401, "application/json", nil, "-", ""},
		{"body only", Reply{Body: `{"ok":true}`}, true, 200, "application/json", nil, "-", `{"ok":true}`},
		{"custom type and header", Reply{Status: 418, Body: "teapot", ContentType: "text/plain", Header: map[string]string{"X-A": "b"}}, true, 418, "text/plain", map[string]string{"X-A": "b"}, "-", "teapot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewServer(t)
			srv.Enqueue(tt.reply)
			resp := post(t, t.Context(), srv.URL(), chatBody(tt.stream, false))
			body := readAll(t, resp)
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.wantStatus)
			}
			if ct := resp.Header.Get("Content-Type"); ct != tt.wantType {
				t.Errorf("Content-Type %q, want %q", ct, tt.wantType)
			}
			for k, v := range tt.wantHeader {
				if got := resp.Header.Get(k); got != v {
					t.Errorf("header %s %q, want %q", k, got, v)
				}
			}
			if !strings.Contains(body, tt.wantMessage) {
				t.Errorf("body %q lacks %q", body, tt.wantMessage)
			}
			if tt.wantCode == "-" {
				return
			}
			var e struct {
				Error struct {
					Message string  `json:"message"`
					Type    string  `json:"type"`
					Code    *string `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(body), &e); err != nil {
				t.Fatalf("error body %q: %v", body, err)
			}
			code := ""
			if e.Error.Code != nil {
				code = *e.Error.Code
			}
			if code != tt.wantCode || e.Error.Message == "" || e.Error.Type == "" {
				t.Errorf("error %+v, want code %q, a message and a type", e.Error, tt.wantCode)
			}
		})
	}
}

// completionJSON is a non-streamed reply as a client decodes it.
type completionJSON struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Role             string  `json:"role"`
			Content          *string `json:"content"`
			ReasoningContent string  `json:"reasoning_content"`
			ToolCalls        []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		TotalTokens         int `json:"total_tokens"`
		PromptTokensDetails struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
}

func TestNotStreamed(t *testing.T) {
	tests := []struct {
		name   string
		reply  Reply
		check  func(t *testing.T, c completionJSON)
		header string
	}{
		{
			name:  "text with usage",
			reply: Reply{Chunks: Text("Hello there", 3), Usage: &Usage{PromptTokens: 5, CompletionTokens: 2, CachedTokens: 4}},
			check: func(t *testing.T, c completionJSON) {
				m := c.Choices[0].Message
				if m.Role != "assistant" || m.Content == nil || *m.Content != "Hello there" || *c.Choices[0].FinishReason != "stop" {
					t.Errorf("message %+v finish %v", m, c.Choices[0].FinishReason)
				}
				if c.Usage == nil || c.Usage.TotalTokens != 7 || c.Usage.PromptTokensDetails.CachedTokens != 4 {
					t.Errorf("usage %+v", c.Usage)
				}
			},
		},
		{
			name:  "tool calls merged",
			reply: Reply{Chunks: WithFinish(Stream(ToolCallChunks(1, "b", "g", `{"y":2}`, 3), ToolCallChunks(0, "a", "f", `{"x":1}`, 2)), "tool_calls")},
			check: func(t *testing.T, c completionJSON) {
				m := c.Choices[0].Message
				if m.Content != nil {
					t.Errorf("content %q, want null", *m.Content)
				}
				got := fmt.Sprintf("%+v", m.ToolCalls)
				want := `[{ID:a Type:function Function:{Name:f Arguments:{"x":1}}} {ID:b Type:function Function:{Name:g Arguments:{"y":2}}}]`
				if got != want || *c.Choices[0].FinishReason != "tool_calls" {
					t.Errorf("tool calls %s, want %s", got, want)
				}
				if c.Usage != nil {
					t.Errorf("usage %+v, want none", c.Usage)
				}
			},
		},
		{
			name:  "reasoning, no finish",
			reply: Reply{Chunks: Stream(Reasoning("think", 2), []Chunk{{Content: "done"}, {Raw: "ignored"}})},
			check: func(t *testing.T, c completionJSON) {
				m := c.Choices[0].Message
				if m.ReasoningContent != "think" || *m.Content != "done" || c.Choices[0].FinishReason != nil {
					t.Errorf("message %+v finish %v", m, c.Choices[0].FinishReason)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewServer(t)
			srv.Enqueue(tt.reply)
			resp := post(t, t.Context(), srv.URL(), chatBody(false, true))
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			var c completionJSON
			if err := json.Unmarshal([]byte(readAll(t, resp)), &c); err != nil {
				t.Fatal(err)
			}
			if c.ID != "chatcmpl-llmtest-1" || c.Object != "chat.completion" || c.Model != "m" || len(c.Choices) != 1 {
				t.Fatalf("completion %+v", c)
			}
			tt.check(t, c)
		})
	}
}

func TestClose(t *testing.T) {
	srv := NewServer(t)
	srv.Enqueue(Reply{Hang: true}, Reply{Chunks: Tokens(200_000)})

	errc := make(chan error, 2)
	go func() { // hangs until Close
		req, _ := http.NewRequest(http.MethodPost, srv.URL()+"/chat/completions", strings.NewReader(chatBody(true, false)))
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		errc <- err
	}()
	if !srv.WaitRequests(1, 10*time.Second) {
		t.Fatal("first request never arrived")
	}
	// A client that stops reading a long stream must not block Close.
	resp := post(t, t.Context(), srv.URL(), chatBody(true, false))
	if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
		t.Fatal(err)
	}

	srv.Close()
	srv.Close() // idempotent
	if err := <-errc; err == nil {
		t.Error("hung request succeeded after Close")
	}
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Error("stalled stream ended cleanly after Close")
	}
	if _, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(chatBody(true, false))); err == nil {
		t.Error("request after Close connected")
	}
	if d := srv.Disconnects(); len(d) != 0 {
		t.Errorf("Close recorded %d disconnects", len(d))
	}
}

func TestWaitTimesOut(t *testing.T) {
	srv := NewServer(t)
	if srv.WaitRequests(1, 10*time.Millisecond) {
		t.Error("WaitRequests succeeded with no request")
	}
	if _, ok := srv.WaitDisconnect(10 * time.Millisecond); ok {
		t.Error("WaitDisconnect succeeded with no disconnect")
	}
	if !srv.WaitRequests(0, 0) {
		t.Error("WaitRequests(0) should succeed at once")
	}
}

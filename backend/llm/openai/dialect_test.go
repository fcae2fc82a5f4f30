package openai_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/llm/openai"
)

// serveSplit answers with a recorded stream, written n bytes at a time and
// flushed after each piece, so chunks, lines and JSON arrive split in
// every awkward place (n = 0 writes it whole).
func serveSplit(transcript []byte, n int) llmtest.Reply {
	return llmtest.Reply{Handler: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		if n <= 0 {
			n = len(transcript)
		}
		for b := transcript; len(b) > 0; {
			k := min(n, len(b))
			if _, err := w.Write(b[:k]); err != nil {
				return
			}
			_ = rc.Flush()
			b = b[k:]
		}
	}}
}

// TestReasoningDialects streams real providers' traffic (recorded shapes:
// OpenRouter with reasoning and reasoning_details, DeepSeek's
// reasoning_content, Ollama's reasoning, vLLM sending both fields,
// llama.cpp with <think> in the content, LM Studio writing a Hermes tool
// call as text) split at every awkward place, and checks that the answer,
// the reasoning and the reasoning blocks come out exactly, whatever the
// split, and that what the callback saw adds up to the Response.
func TestReasoningDialects(t *testing.T) {
	weather := llm.Tool{Name: "get_weather", Description: "Weather for a city", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}
	tests := []struct {
		file      string
		tools     []llm.Tool
		content   string
		reasoning string
		details   string // the merged reasoning_details, "" for none
		calls     []llm.ToolCall
		finish    string
		usage     llm.Usage
		note      string // a diagnostics note that must be there
	}{
		{
			file:      "openrouter-claude-thinking.sse",
			content:   "17 + 25 = **42**.",
			reasoning: "The user wants the sum of 17 and 25. 17 + 25 = 42. I should answer briefly.",
			details:   `[{"type":"reasoning.text","text":"The user wants the sum of 17 and 25. 17 + 25 = 42. I should answer briefly.","format":"anthropic-claude-v1","index":0,"signature":"ErUBCkYIBhgCIkCx9f3Lq0pZk2sR1vT4w8yE5mN7bQ=="}]`,
			finish:    "stop",
			usage:     llm.Usage{InputTokens: 42, OutputTokens: 61, TotalTokens: 103, ReasoningTokens: 48},
		},
		{
			file:      "openrouter-o4-encrypted.sse",
			content:   "42",
			reasoning: "**Adding numbers**\n\nSumming 17 and 25.",
			details:   `[{"type":"reasoning.summary","summary":"**Adding numbers**\n\nSumming 17 and 25.","format":"openai-responses-v1","index":0},{"type":"reasoning.encrypted","data":"gAAAAABo8kQ2ZmVkY2JhOTg3NjU0MzIx","id":"rs_68f2a1","format":"openai-responses-v1","index":1}]`,
			finish:    "stop",
		},
		{
			file:      "deepseek-reasoner.sse",
			content:   "It is 42.",
			reasoning: "Okay, the user asks for 17 plus 25. That is 42.",
			finish:    "stop",
			usage:     llm.Usage{InputTokens: 13, OutputTokens: 40, TotalTokens: 53, ReasoningTokens: 32},
		},
		{
			file:      "ollama-qwen3.sse",
			content:   "The sum is 42.",
			reasoning: "Okay, 17 plus 25 is 42.",
			finish:    "stop",
			usage:     llm.Usage{InputTokens: 18, OutputTokens: 25, TotalTokens: 43},
		},
		{
			file:      "vllm-both-fields.sse",
			content:   "42",
			reasoning: "Seventeen and twenty-five make 42.",
			finish:    "stop",
		},
		{
			file:      "llamacpp-think-in-content.sse",
			content:   "The sum is 42.",
			reasoning: "\nOkay, 17 + 25 = 42.\n",
			finish:    "stop",
			usage:     llm.Usage{InputTokens: 14, OutputTokens: 30, TotalTokens: 44},
		},
		{
			// Every chunk has the delta and, beside it, the whole answer
			// so far as message: the delta is the answer.
			file:    "perplexity-cumulative-message.sse",
			content: "There are approximately 100 billion stars in the Milky Way galaxy.",
			finish:  "stop",
			usage:   llm.Usage{InputTokens: 14, OutputTokens: 19, TotalTokens: 33},
		},
		{
			// Usage and [DONE], never a finish reason: whole all the same.
			file:    "gateway-claude-no-finish-reason.sse",
			content: "The largest country by area is Russia, at about 17.1 million km².",
			finish:  "stop",
			usage:   llm.Usage{InputTokens: 16, OutputTokens: 21, TotalTokens: 37},
			note:    "[DONE] but sent no finish reason",
		},
		{
			// Reasoning only as reasoning_details: text and summary read,
			// each block its own paragraph; the encrypted block has none.
			file:      "openrouter-reasoning-details-only.sse",
			content:   "17 + 25 = 42.",
			reasoning: "The user asks for 17 plus 25. That is 42.\n\n**Adding**: 17 + 25.",
			details:   `[{"type":"reasoning.text","text":"The user asks for 17 plus 25. That is 42.","format":"google-gemini-v1","index":0},{"type":"reasoning.summary","summary":"**Adding**: 17 + 25.","format":"openai-responses-v1","index":1},{"type":"reasoning.encrypted","data":"CiQB0e2Kb7Xq","format":"google-gemini-v1","index":2}]`,
			finish:    "stop",
			usage:     llm.Usage{InputTokens: 12, OutputTokens: 58, TotalTokens: 70, ReasoningTokens: 45},
		},
		{
			file:    "lmstudio-hermes-toolcall.sse",
			tools:   []llm.Tool{weather},
			content: "Let me look that up.\n",
			calls:   []llm.ToolCall{{Name: "get_weather", Arguments: `{"city":"Oslo"}`}},
			finish:  "tool_calls",
		},
	}
	for _, tt := range tests {
		transcript, err := os.ReadFile(filepath.Join("testdata", "streams", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		for _, split := range []int{0, 1, 2, 3, 7, 17, 64, 333} {
			t.Run(tt.file+"/"+splitName(split), func(t *testing.T) {
				srv := llmtest.NewServer(t)
				srv.Enqueue(serveSplit(transcript, split))
				c := openai.NewClient(openai.Config{BaseURL: srv.URL(), MaxRetries: -1})
				var seenContent, seenReasoning strings.Builder
				resp, err := c.Stream(context.Background(), llm.Request{Model: "m", Tools: tt.tools, Messages: []llm.Message{{Role: llm.RoleUser, Content: "17 + 25?"}}}, func(ch llm.Chunk) error {
					seenContent.WriteString(ch.Content)
					seenReasoning.WriteString(ch.Reasoning)
					return nil
				})
				if err != nil {
					t.Fatalf("Stream: %v", err)
				}
				m := resp.Message
				if m.Content != tt.content {
					t.Errorf("content = %q, want %q", m.Content, tt.content)
				}
				if m.Reasoning != tt.reasoning {
					t.Errorf("reasoning = %q, want %q", m.Reasoning, tt.reasoning)
				}
				if seenContent.String() != m.Content || seenReasoning.String() != m.Reasoning {
					t.Errorf("the callback saw content %q and reasoning %q; the response holds %q and %q", seenContent.String(), seenReasoning.String(), m.Content, m.Reasoning)
				}
				if got := string(m.ReasoningDetails); !jsonEqual(got, tt.details) {
					t.Errorf("reasoning_details =\n%s\nwant\n%s", got, tt.details)
				}
				if len(m.ToolCalls) != len(tt.calls) {
					t.Fatalf("tool calls = %+v, want %+v", m.ToolCalls, tt.calls)
				}
				for i, want := range tt.calls {
					if got := m.ToolCalls[i]; got.Name != want.Name || got.Arguments != want.Arguments || !strings.HasPrefix(got.ID, "call_") {
						t.Errorf("tool call %d = %+v, want %+v with an id", i, got, want)
					}
				}
				if resp.FinishReason != tt.finish {
					t.Errorf("finish reason = %q, want %q", resp.FinishReason, tt.finish)
				}
				if tt.usage != (llm.Usage{}) && resp.Usage != tt.usage {
					t.Errorf("usage = %+v, want %+v", resp.Usage, tt.usage)
				}
				if tt.note != "" && !strings.Contains(strings.Join(resp.Diagnostics.Notes, "\n"), tt.note) {
					t.Errorf("diagnostics notes %q lack %q", resp.Diagnostics.Notes, tt.note)
				}
			})
		}
	}
}

func splitName(n int) string {
	if n == 0 {
		return "whole"
	}
	return "split" + strconv.Itoa(n)
}

// jsonEqual compares two JSON texts by value ("" equals "").
func jsonEqual(a, b string) bool {
	if a == "" || b == "" {
		return a == b
	}
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}

// TestReasoningEcho checks what goes back on an assistant message that
// called a tool, for each server's rule (docs/PROVIDERS.md): nothing,
// reasoning_content when there is some, reasoning_content even when empty
// (DeepSeek), reasoning (Ollama), or the reasoning_details blocks
// unchanged (OpenRouter). A message without tool calls never carries its
// reasoning back.
func TestReasoningEcho(t *testing.T) {
	details := json.RawMessage(`[{"type":"reasoning.text","text":"Need the weather.","signature":"sig==","format":"anthropic-claude-v1","index":0}]`)
	history := func(reasoning string, det json.RawMessage) []llm.Message {
		return []llm.Message{
			{Role: llm.RoleUser, Content: "Hi"},
			{Role: llm.RoleAssistant, Content: "Hello.", Reasoning: "A greeting."},
			{Role: llm.RoleUser, Content: "Weather in Oslo?"},
			{Role: llm.RoleAssistant, Reasoning: reasoning, ReasoningDetails: det, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Oslo"}`}}},
			{Role: llm.RoleTool, ToolCallID: "call_1", Name: "get_weather", Content: "rain"},
		}
	}
	tests := []struct {
		name      string
		echo      openai.ReasoningEcho
		reasoning string
		details   json.RawMessage
		want      map[string]string // field of the tool-calling message → its JSON; absent fields must be absent
	}{
		{"none", openai.EchoNone, "Need the weather.", details, map[string]string{}},
		{"content", openai.EchoContent, "Need the weather.", nil, map[string]string{"reasoning_content": `"Need the weather."`}},
		{"content, none to send", openai.EchoContent, "", nil, map[string]string{}},
		{"content always, empty", openai.EchoContentAlways, "", nil, map[string]string{"reasoning_content": `""`}},
		{"reasoning", openai.EchoReasoning, "Need the weather.", nil, map[string]string{"reasoning": `"Need the weather."`}},
		{"details", openai.EchoDetails, "Need the weather.", details, map[string]string{"reasoning_details": string(details)}},
		{"details, only text", openai.EchoDetails, "Need the weather.", nil, map[string]string{"reasoning": `"Need the weather."`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("ok", 1)})
			c := openai.NewClient(openai.Config{BaseURL: srv.URL(), Echo: tt.echo})
			if _, err := c.Stream(context.Background(), llm.Request{Model: "m", Messages: history(tt.reasoning, tt.details)}, func(llm.Chunk) error { return nil }); err != nil {
				t.Fatal(err)
			}
			var body struct {
				Messages []map[string]json.RawMessage `json:"messages"`
			}
			if err := json.Unmarshal(srv.Requests()[0].Raw, &body); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"reasoning_content", "reasoning", "reasoning_details"} {
				if v, ok := body.Messages[1][f]; ok {
					t.Errorf("the answer without tool calls sent %s back: %s", f, v)
				}
				got, ok := body.Messages[3][f]
				want, wantOK := tt.want[f]
				switch {
				case ok != wantOK:
					t.Errorf("%s present = %v, want %v (%s)", f, ok, wantOK, got)
				case ok && !jsonEqual(string(got), want):
					t.Errorf("%s = %s, want %s", f, got, want)
				}
			}
		})
	}
}

// TestContinuePrefix: a request that ends with the partial answer is sent
// as it is to a server that continues it, and to vLLM with its switches;
// the switches go only with a trailing assistant message.
func TestContinuePrefix(t *testing.T) {
	partial := []llm.Message{{Role: llm.RoleUser, Content: "Count to five"}, {Role: llm.RoleAssistant, Content: "One, two,"}}
	asked := []llm.Message{{Role: llm.RoleUser, Content: "Count to five"}}
	tests := []struct {
		name     string
		prefix   openai.Prefix
		msgs     []llm.Message
		switches bool
	}{
		{"none", openai.PrefixNone, partial, false},
		{"trailing", openai.PrefixTrailing, partial, false},
		{"vLLM", openai.PrefixContinueFinal, partial, true},
		{"vLLM, a user message last", openai.PrefixContinueFinal, asked, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text(" three.", 1)})
			c := openai.NewClient(openai.Config{BaseURL: srv.URL(), Prefix: tt.prefix})
			if _, err := c.Stream(context.Background(), llm.Request{Model: "m", Messages: tt.msgs}, func(llm.Chunk) error { return nil }); err != nil {
				t.Fatal(err)
			}
			var body map[string]json.RawMessage
			if err := json.Unmarshal(srv.Requests()[0].Raw, &body); err != nil {
				t.Fatal(err)
			}
			var msgs []map[string]any
			_ = json.Unmarshal(body["messages"], &msgs)
			if len(msgs) != len(tt.msgs) || msgs[len(msgs)-1]["content"] != tt.msgs[len(tt.msgs)-1].Content {
				t.Errorf("messages sent %v, want %v as they are", msgs, tt.msgs)
			}
			cont, gen := string(body["continue_final_message"]), string(body["add_generation_prompt"])
			if tt.switches && (cont != "true" || gen != "false") || !tt.switches && (cont != "" || gen != "") {
				t.Errorf("continue_final_message %q, add_generation_prompt %q; want them set: %v", cont, gen, tt.switches)
			}
		})
	}
}

// TestImagesAsContentParts: a user message with images goes as a text part
// and one image_url part per image, each a data URL of its bytes; a
// message without images keeps plain string content.
func TestImagesAsContentParts(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("A cat.", 1)})
	png, jpeg := []byte("\x89PNG\r\n fake png"), []byte("\xff\xd8\xff fake jpeg")
	c := openai.NewClient(openai.Config{BaseURL: srv.URL()})
	msgs := []llm.Message{
		{Role: llm.RoleSystem, Content: "You see."},
		{Role: llm.RoleUser, Content: "What is in these?", Images: []llm.Image{{MIME: "image/png", Data: png}, {MIME: "image/jpeg", Data: jpeg}}},
	}
	if _, err := c.Stream(context.Background(), llm.Request{Model: "qwen2.5vl", Messages: msgs}, func(llm.Chunk) error { return nil }); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Raw, &body); err != nil {
		t.Fatal(err)
	}
	if string(body.Messages[0].Content) != `"You see."` {
		t.Errorf("a message without images sent %s, want a plain string", body.Messages[0].Content)
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL *struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if err := json.Unmarshal(body.Messages[1].Content, &parts); err != nil {
		t.Fatalf("content %s: %v", body.Messages[1].Content, err)
	}
	want := []string{"text:What is in these?", "image_url:data:image/png;base64," + base64.StdEncoding.EncodeToString(png), "image_url:data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(jpeg)}
	var got []string
	for _, p := range parts {
		if p.ImageURL != nil {
			got = append(got, p.Type+":"+p.ImageURL.URL)
		} else {
			got = append(got, p.Type+":"+p.Text)
		}
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("parts %q\nwant %q", got, want)
	}
	if srv.Requests()[0].Messages[1].Content != "What is in these?" {
		t.Errorf("the scripted server read the text as %q", srv.Requests()[0].Messages[1].Content)
	}
}

// TestModelThatDoesNotSee: a server that refuses a request because of its
// images (as Ollama, llama.cpp, vLLM and OpenAI word it) gives ErrNoVision
// naming the model and suggesting a vision model, without retries; the
// same refusal of a request without images stays a bad request.
func TestModelThatDoesNotSee(t *testing.T) {
	for _, said := range []string{
		"llama3.2 does not support images",
		"image input is not supported - hint: if this is unexpected, you may need to provide the mmproj",
		"The model `Qwen/Qwen3-8B` is not a multimodal model",
		"Invalid content type. image_url is only supported by certain models.",
	} {
		t.Run(said[:20], func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.ErrorReply(400, "invalid_request_error", said), llmtest.ErrorReply(400, "invalid_request_error", said))
			c := openai.NewClient(openai.Config{BaseURL: srv.URL(), Label: "Ollama", RetryInitial: time.Millisecond})
			img := []llm.Message{{Role: llm.RoleUser, Content: "What is this?", Images: []llm.Image{{MIME: "image/png", Data: []byte("png")}}}}
			_, err := c.Stream(context.Background(), llm.Request{Model: "llama3.2", Messages: img}, func(llm.Chunk) error { return nil })
			if llm.KindOf(err) != llm.ErrNoVision || !strings.Contains(err.Error(), "llama3.2") || !strings.Contains(err.Error(), "vision model") {
				t.Fatalf("error %v (%s), want no_vision naming the model", err, llm.KindOf(err))
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d requests: a refusal of images must not be retried", n)
			}
			text := []llm.Message{{Role: llm.RoleUser, Content: "What is this?"}}
			if _, err := c.Stream(context.Background(), llm.Request{Model: "llama3.2", Messages: text}, func(llm.Chunk) error { return nil }); llm.KindOf(err) != llm.ErrBadRequest {
				t.Errorf("without images: %v (%s), want bad_request", err, llm.KindOf(err))
			}
		})
	}
}

// TestStreamIgnored checks a server that answers "stream": true with one
// JSON body: the whole answer comes out as if streamed, tool calls and
// reasoning included, with a note in the call's diagnostics.
func TestStreamIgnored(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{IgnoreStream: true, Usage: &llmtest.Usage{PromptTokens: 9, CompletionTokens: 4},
		Chunks: []llmtest.Chunk{{Reasoning: "Think first."}, {Content: "The whole answer, "}, {Content: "at once."}, {FinishReason: "stop"}}})
	c := openai.NewClient(openai.Config{BaseURL: srv.URL(), MaxRetries: -1})
	var seen strings.Builder
	resp, err := c.Stream(context.Background(), llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "go"}}}, func(ch llm.Chunk) error {
		seen.WriteString(ch.Content)
		return nil
	})
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if resp.Message.Content != "The whole answer, at once." || seen.String() != resp.Message.Content {
		t.Errorf("content = %q, callback saw %q", resp.Message.Content, seen.String())
	}
	if resp.Message.Reasoning != "Think first." {
		t.Errorf("reasoning = %q", resp.Message.Reasoning)
	}
	if resp.FinishReason != "stop" || resp.Usage.InputTokens != 9 || resp.Usage.Estimated {
		t.Errorf("finish %q, usage %+v", resp.FinishReason, resp.Usage)
	}
	if len(resp.Diagnostics.Notes) != 1 || !strings.Contains(resp.Diagnostics.Notes[0], "one JSON body") {
		t.Errorf("diagnostics notes = %q, want one about the JSON body", resp.Diagnostics.Notes)
	}
}

// TestErrorInStream checks an error object a server writes into a 200
// stream: a server error that names what the server said.
func TestErrorInStream(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Chunks: []llmtest.Chunk{
		{Verbatim: ": OPENROUTER PROCESSING\n\n"},
		{Raw: `{"id":"gen-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":""},"finish_reason":null}],"error":{"code":502,"message":"Provider returned error"}}`},
	}})
	c := openai.NewClient(openai.Config{BaseURL: srv.URL(), MaxRetries: -1, Label: "OpenRouter"})
	_, err := c.Stream(context.Background(), llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "go"}}}, func(llm.Chunk) error { return nil })
	if llm.KindOf(err) != llm.ErrServer || !strings.Contains(err.Error(), "Provider returned error") || !strings.Contains(err.Error(), "OpenRouter") {
		t.Fatalf("err = %v (kind %s), want a server error quoting the provider", err, llm.KindOf(err))
	}
}

// TestHeldCallStillShowsProgress: a model that starts its answer with a
// bare JSON tool call (Llama 3.2) has all its text held back until the call
// resolves. The callback gets one empty chunk as soon as the first of it
// arrives, so the agent knows the model is answering and never says it is
// waiting; then the call.
func TestHeldCallStillShowsProgress(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Chunks: []llmtest.Chunk{{Content: `{"name": "get_weather", `}, {Content: `"parameters": {"city": `}, {Content: `"Oslo"}}`}, {FinishReason: "stop"}}})
	c := openai.NewClient(openai.Config{BaseURL: srv.URL()})
	tools := []llm.Tool{{Name: "get_weather", Parameters: json.RawMessage(`{"type":"object"}`)}}
	var seen []llm.Chunk
	resp, err := c.Stream(context.Background(), llm.Request{Model: "llama3.2", Tools: tools, Messages: []llm.Message{{Role: llm.RoleUser, Content: "Weather in Oslo?"}}}, func(ch llm.Chunk) error {
		seen = append(seen, ch)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) < 2 || !reflect.DeepEqual(seen[0], llm.Chunk{}) {
		t.Fatalf("chunks seen %+v: want an empty one first", seen)
	}
	for _, ch := range seen[1:] {
		if reflect.DeepEqual(ch, llm.Chunk{}) {
			t.Errorf("more than one empty chunk: %+v", seen)
		}
	}
	if len(resp.Message.ToolCalls) != 1 || resp.Message.Content != "" || resp.Message.ToolCalls[0].Arguments != `{"city":"Oslo"}` {
		t.Errorf("message %+v", resp.Message)
	}
}

// TestStreamLineShapes: the stream reader takes what real servers write:
// "data:" with no space, CRLF line ends, a line longer than its buffer,
// event names and ids, keep-alive comments, and no [DONE] after a finish.
func TestStreamLineShapes(t *testing.T) {
	long := strings.Repeat("ab", 100_000) // a 200 kB delta, past the 64 kB buffer
	transcript := "event: message\r\nid: 1\r\n" +
		`data:{"choices":[{"index":0,"delta":{"content":"one "},"finish_reason":null}]}` + "\r\n\r\n" +
		": keep-alive\r\n\r\n" +
		`data: {"choices":[{"index":0,"delta":{"content":"` + long + `"},"finish_reason":null}]}` + "\n\n" +
		`data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n"
	for _, split := range []int{0, 5, 4096} {
		t.Run(splitName(split), func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(serveSplit([]byte(transcript), split))
			c := openai.NewClient(openai.Config{BaseURL: srv.URL(), MaxRetries: -1})
			resp, err := c.Stream(context.Background(), llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "go"}}}, func(llm.Chunk) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			if resp.Message.Content != "one "+long || resp.FinishReason != "stop" {
				t.Errorf("content of %d bytes, finish %q", len(resp.Message.Content), resp.FinishReason)
			}
		})
	}
}

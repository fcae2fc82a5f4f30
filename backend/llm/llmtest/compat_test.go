package llmtest

import (
	"errors"
	"io"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

// These tests check the wire format against a real client library: what
// go-openai decodes, a client built on it will too.

func openaiClient(srv *Server) *openai.Client {
	cfg := openai.DefaultConfig("sk-test")
	cfg.BaseURL = srv.URL()
	return openai.NewClientWithConfig(cfg)
}

func TestGoOpenAIStream(t *testing.T) {
	srv := NewServer(t)
	srv.Enqueue(Reply{
		Chunks: WithFinish(Stream(
			Reasoning("thinking", 2),
			Text("Reading it.", 3)[:3], // without its stop chunk
			ToolCallChunks(0, "call_1", "read_file", `{"path":"a.txt"}`, 4),
			ToolCallChunks(1, "call_2", "grep", `{"q":"x"}`, 2),
		), "tool_calls"),
		Usage: &Usage{PromptTokens: 40, CompletionTokens: 9, CachedTokens: 32, ReasoningTokens: 3},
	})
	stream, err := openaiClient(srv).CreateChatCompletionStream(t.Context(), openai.ChatCompletionRequest{
		Model:         "gpt-test",
		Messages:      []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "read a.txt"}},
		Stream:        true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()

	var content, reasoning, finish, role string
	args := map[int]string{}
	names := map[int]string{}
	var usage *openai.Usage
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if resp.Model != "gpt-test" || resp.Object != "chat.completion.chunk" {
			t.Errorf("chunk %+v", resp)
		}
		if resp.Usage != nil {
			usage = resp.Usage
		}
		for _, c := range resp.Choices {
			role += c.Delta.Role
			content += c.Delta.Content
			reasoning += c.Delta.ReasoningContent
			for _, tc := range c.Delta.ToolCalls {
				names[*tc.Index] += tc.Function.Name
				args[*tc.Index] += tc.Function.Arguments
			}
			if c.FinishReason != "" {
				finish = string(c.FinishReason)
			}
		}
	}
	if role != "assistant" || content != "Reading it." || reasoning != "thinking" || finish != "tool_calls" {
		t.Errorf("role %q content %q reasoning %q finish %q", role, content, reasoning, finish)
	}
	if names[0] != "read_file" || args[0] != `{"path":"a.txt"}` || names[1] != "grep" || args[1] != `{"q":"x"}` {
		t.Errorf("tool calls %v %v", names, args)
	}
	if usage == nil || usage.TotalTokens != 49 || usage.PromptTokensDetails.CachedTokens != 32 ||
		usage.CompletionTokensDetails.ReasoningTokens != 3 {
		t.Errorf("usage %+v", usage)
	}
	if r := srv.Requests()[0]; !r.IncludeUsage || r.Header.Get("Authorization") != "Bearer sk-test" {
		t.Errorf("request %+v", r)
	}
}

func TestGoOpenAINotStreamed(t *testing.T) {
	srv := NewServer(t)
	srv.Enqueue(Reply{Chunks: Text("Hello.", 2), Usage: &Usage{PromptTokens: 5, CompletionTokens: 2}})
	resp, err := openaiClient(srv).CreateChatCompletion(t.Context(), openai.ChatCompletionRequest{
		Model:    "gpt-test",
		Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "hi"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Choices) != 1 || resp.Choices[0].Message.Content != "Hello." ||
		resp.Choices[0].FinishReason != openai.FinishReasonStop || resp.Usage.TotalTokens != 7 {
		t.Errorf("response %+v", resp)
	}
}

func TestGoOpenAIErrors(t *testing.T) {
	tests := []struct {
		name       string
		reply      Reply
		wantStatus int
		wantCode   string
	}{
		{"rate limited", RateLimited("1"), 429, "rate_limit_exceeded"},
		{"context length", ContextLengthExceeded(), 400, "context_length_exceeded"},
		{"server error", ErrorReply(500, "", "boom"), 500, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewServer(t)
			srv.Enqueue(tt.reply)
			_, err := openaiClient(srv).CreateChatCompletionStream(t.Context(), openai.ChatCompletionRequest{
				Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}, Stream: true,
			})
			var apiErr *openai.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("error %v (%T), want *openai.APIError", err, err)
			}
			code, _ := apiErr.Code.(string)
			if apiErr.HTTPStatusCode != tt.wantStatus || code != tt.wantCode || apiErr.Message == "" {
				t.Errorf("APIError %+v", apiErr)
			}
		})
	}
}

func TestGoOpenAIModels(t *testing.T) {
	srv := NewServer(t)
	srv.SetModels("a", "b")
	list, err := openaiClient(srv).ListModels(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Models) != 2 || list.Models[0].ID != "a" || list.Models[1].OwnedBy != "llmtest" {
		t.Errorf("models %+v", list.Models)
	}
}

// TestGoOpenAIStreamFailures shows what a go-openai based client sees for
// each scripted failure. Note "no done": go-openai reports a stream cut
// cleanly before [DONE] as a normal io.EOF, so a client that must tell a
// complete stream from a truncated one has to check for [DONE] or a
// finish_reason itself.
func TestGoOpenAIStreamFailures(t *testing.T) {
	tests := []struct {
		name    string
		reply   Reply
		wantErr func(error) bool
	}{
		{"drop", Reply{Chunks: Tokens(5), DropAfter: 2}, func(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) }},
		{"malformed", Reply{Chunks: []Chunk{{Content: "a"}, {Raw: `{"choices":[`}}}, func(err error) bool {
			return err != nil && !errors.Is(err, io.EOF)
		}},
		{"error event", Reply{Chunks: []Chunk{{Content: "a"}, {Raw: `{"error":{"message":"overloaded","type":"server_error","code":null}}`}}}, func(err error) bool {
			var apiErr *openai.APIError
			return errors.As(err, &apiErr) && apiErr.Message == "overloaded"
		}},
		{"no done", Reply{Chunks: []Chunk{{Content: "a"}}, NoDone: true}, func(err error) bool { return errors.Is(err, io.EOF) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewServer(t)
			srv.Enqueue(tt.reply)
			stream, err := openaiClient(srv).CreateChatCompletionStream(t.Context(), openai.ChatCompletionRequest{
				Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}, Stream: true,
			})
			if err != nil {
				t.Fatal(err)
			}
			defer stream.Close()
			for {
				_, err = stream.Recv()
				if err != nil {
					break
				}
			}
			if !tt.wantErr(err) {
				t.Errorf("Recv ended with %v (%T)", err, err)
			}
		})
	}
}

package llm

import (
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// toOpenAI maps our request to go-openai's. Usage is always asked for in
// the final chunk (stream_options.include_usage); servers that do not know
// the option ignore it.
func toOpenAI(req Request) openai.ChatCompletionRequest {
	out := openai.ChatCompletionRequest{
		Model:         req.Model,
		Messages:      make([]openai.ChatCompletionMessage, len(req.Messages)),
		Stop:          req.Stop,
		Stream:        true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	}
	if req.Temperature != nil {
		out.Temperature = *req.Temperature
	}
	if req.TopP != nil {
		out.TopP = *req.TopP
	}
	if req.MaxTokens > 0 {
		if isReasoningModel(req.Model) {
			out.MaxCompletionTokens = req.MaxTokens
		} else {
			//lint:ignore SA1019 local servers (Ollama, llama.cpp, vLLM) read max_tokens, not max_completion_tokens
			out.MaxTokens = req.MaxTokens
		}
	}
	for i, m := range req.Messages {
		om := openai.ChatCompletionMessage{
			Role:             string(m.Role),
			Content:          m.Content,
			ToolCallID:       m.ToolCallID,
			Name:             m.Name,
			ReasoningContent: m.Reasoning,
		}
		for _, tc := range m.ToolCalls {
			om.ToolCalls = append(om.ToolCalls, openai.ToolCall{
				ID:       tc.ID,
				Type:     openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: tc.Name, Arguments: tc.Arguments},
			})
		}
		out.Messages[i] = om
	}
	for _, t := range req.Tools {
		out.Tools = append(out.Tools, openai.Tool{
			Type: openai.ToolTypeFunction,
			Function: &openai.FunctionDefinition{
				Name:        t.Name,
				Description: t.Description,
				Parameters:  t.Parameters,
			},
		})
	}
	if rf := req.ResponseFormat; rf != nil {
		f := &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatType(rf.Type)}
		if rf.Type == "json_schema" {
			f.JSONSchema = &openai.ChatCompletionResponseFormatJSONSchema{Name: rf.Name, Schema: rawSchema(rf.Schema), Strict: rf.Strict}
		}
		out.ResponseFormat = f
	}
	return out
}

// rawSchema lets a json.RawMessage stand where go-openai wants a json.Marshaler.
type rawSchema []byte

func (r rawSchema) MarshalJSON() ([]byte, error) {
	if len(r) == 0 {
		return []byte("{}"), nil
	}
	return r, nil
}

// isReasoningModel reports whether OpenAI wants max_completion_tokens
// instead of max_tokens for model.
func isReasoningModel(model string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}

// fromOpenAI maps one streamed response to a Chunk; ok is false for a chunk
// that carries nothing (a role-only delta).
func fromOpenAI(r *openai.ChatCompletionStreamResponse) (Chunk, bool) {
	var c Chunk
	if len(r.Choices) > 0 {
		ch := &r.Choices[0]
		c.Content = ch.Delta.Content
		c.Reasoning = ch.Delta.ReasoningContent
		c.FinishReason = string(ch.FinishReason)
		if n := len(ch.Delta.ToolCalls); n > 0 {
			c.ToolCalls = make([]ToolCallDelta, n)
			for i, tc := range ch.Delta.ToolCalls {
				// A delta with no index is taken to be at its position;
				// callState.add sorts out calls that share one.
				idx := i
				if tc.Index != nil {
					idx = *tc.Index
				}
				c.ToolCalls[i] = ToolCallDelta{Index: idx, ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments}
			}
		}
	}
	if u := r.Usage; u != nil {
		c.Usage = &Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
		if d := u.PromptTokensDetails; d != nil {
			c.Usage.CachedInputTokens = d.CachedTokens
		}
		if d := u.CompletionTokensDetails; d != nil {
			c.Usage.ReasoningTokens = d.ReasoningTokens
		}
	}
	ok := c.Content != "" || c.Reasoning != "" || len(c.ToolCalls) > 0 || c.FinishReason != "" || c.Usage != nil
	return c, ok
}

package openai

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// The chat-completions wire format, as Agentdeck writes requests and reads
// answers. It is our own rather than go-openai's because real servers
// speak dialects its types cannot carry:
//
//   - reasoning arrives as reasoning_content (DeepSeek, llama.cpp, LM
//     Studio, older vLLM), reasoning (Ollama, OpenRouter, newer vLLM, Groq)
//     or reasoning_details (OpenRouter's structured blocks, with the
//     signatures and encrypted reasoning a provider wants back);
//   - some servers require reasoning sent back on assistant messages with
//     tool calls, even when empty (DeepSeek's thinking mode answers 400
//     otherwise), and others reject the field: see ReasoningEcho;
//   - some servers ignore "stream": true and answer one JSON body.
//
// Each streamed chunk is decoded once, into wireChunk.

// wireRequest is the body of POST /chat/completions.
type wireRequest struct {
	Model               string              `json:"model"`
	Messages            []wireMessage       `json:"messages"`
	Tools               []wireTool          `json:"tools,omitempty"`
	Temperature         *float32            `json:"temperature,omitempty"`
	TopP                *float32            `json:"top_p,omitempty"`
	MaxTokens           int                 `json:"max_tokens,omitempty"`
	MaxCompletionTokens int                 `json:"max_completion_tokens,omitempty"`
	ResponseFormat      *wireResponseFormat `json:"response_format,omitempty"`
	Stop                []string            `json:"stop,omitempty"`
	Seed                *int64              `json:"seed,omitempty"`
	ReasoningEffort     string              `json:"reasoning_effort,omitempty"`
	Stream              bool                `json:"stream"`
	StreamOptions       *wireStreamOptions  `json:"stream_options,omitempty"`
	// vLLM's switches to continue a trailing assistant message
	// (PrefixContinueFinal).
	ContinueFinalMessage bool  `json:"continue_final_message,omitempty"`
	AddGenerationPrompt  *bool `json:"add_generation_prompt,omitempty"`
}

type wireStreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type wireMessage struct {
	Role string `json:"role"`
	// Content is the text, or with images the content parts (contentOf);
	// nil (no text) is left out.
	Content    any            `json:"content,omitempty"`
	Name       string         `json:"name,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
	// Reasoning sent back, in the field the server reads (ReasoningEcho).
	// Pointers: DeepSeek wants an empty reasoning_content present.
	ReasoningContent *string         `json:"reasoning_content,omitempty"`
	Reasoning        *string         `json:"reasoning,omitempty"`
	ReasoningDetails json.RawMessage `json:"reasoning_details,omitempty"`
}

// wirePart is one content part of a message with images.
type wirePart struct {
	Type     string        `json:"type"`
	Text     string        `json:"text,omitempty"`
	ImageURL *wireImageURL `json:"image_url,omitempty"`
}

type wireImageURL struct {
	URL string `json:"url"`
}

// contentOf is a message's content as sent: its text, or, when it has
// images, a text part and one image_url part per image, each a data URL
// (what Ollama, LM Studio, llama.cpp, vLLM and the hosted APIs read).
func contentOf(m llm.Message) any {
	if len(m.Images) == 0 {
		if m.Content == "" {
			return nil
		}
		return m.Content
	}
	parts := make([]wirePart, 0, len(m.Images)+1)
	if m.Content != "" {
		parts = append(parts, wirePart{Type: "text", Text: m.Content})
	}
	for _, im := range m.Images {
		parts = append(parts, wirePart{Type: "image_url", ImageURL: &wireImageURL{URL: "data:" + im.MIME + ";base64," + base64.StdEncoding.EncodeToString(im.Data)}})
	}
	return parts
}

type wireToolCall struct {
	// Index is set in streamed deltas only.
	Index    *int             `json:"index,omitempty"`
	ID       string           `json:"id,omitempty"`
	Type     string           `json:"type,omitempty"`
	Function wireFunctionCall `json:"function"`
}

type wireFunctionCall struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type wireTool struct {
	Type     string       `json:"type"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

type wireResponseFormat struct {
	Type       string          `json:"type"`
	JSONSchema *wireJSONSchema `json:"json_schema,omitempty"`
}

type wireJSONSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict,omitempty"`
}

// wireChunk is one streamed chunk, or a whole non-streamed answer (its
// choices then carry message instead of delta). Error is set when a server
// reports a failure inside the stream.
type wireChunk struct {
	Choices []wireChoice `json:"choices"`
	Usage   *wireUsage   `json:"usage"`
	Error   *wireError   `json:"error"`
	// whole marks a whole, non-streamed answer (readWhole): only then is a
	// choice's message read. In a stream, delta is the delta and message,
	// where a server sends one beside it (Perplexity), is the whole answer
	// so far.
	whole bool
}

type wireChoice struct {
	Delta        wireDelta  `json:"delta"`
	Message      *wireDelta `json:"message"`
	FinishReason string     `json:"finish_reason"`
}

// wireDelta is an answer's delta, or its whole message.
type wireDelta struct {
	Content          string          `json:"content"`
	ReasoningContent string          `json:"reasoning_content"`
	Reasoning        string          `json:"reasoning"`
	ReasoningDetails json.RawMessage `json:"reasoning_details"`
	ToolCalls        []wireToolCall  `json:"tool_calls"`
}

type wireUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

// wireError is an error body: OpenAI's {"error":{"message","type","code"}},
// or a bare {"error":"..."} (Ollama, some proxies).
type wireError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    any    `json:"code"`
}

func (e *wireError) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &e.Message)
	}
	type plain wireError
	return json.Unmarshal(b, (*plain)(e))
}

// code is the error's code as text ("context_length_exceeded"), or "".
func (e *wireError) code() string {
	switch c := e.Code.(type) {
	case string:
		return c
	case float64:
		return strconv.FormatFloat(c, 'f', -1, 64)
	}
	return ""
}

// Prefix says how a server continues a partial answer: whether it takes a
// request that ends with an assistant message as the start of the reply
// to continue (Continue after Stop). The table is in docs/PROVIDERS.md.
type Prefix int

const (
	// PrefixNone: the server answers a trailing assistant message anew,
	// or refuses it (OpenAI); a continuation is asked for in words.
	PrefixNone Prefix = iota
	// PrefixTrailing: a trailing assistant message is continued as it is
	// (llama.cpp's server, Ollama).
	PrefixTrailing
	// PrefixContinueFinal: continued when the request says so, with
	// continue_final_message and no generation prompt (vLLM).
	PrefixContinueFinal
)

// ReasoningEcho says which reasoning a server wants back on the assistant
// messages of a request. The table per server is in docs/PROVIDERS.md.
type ReasoningEcho int

const (
	// EchoNone sends no reasoning back: OpenAI and Groq reject unknown
	// message fields, and LM Studio and vLLM drop old reasoning in their
	// chat templates anyway.
	EchoNone ReasoningEcho = iota
	// EchoContent sends reasoning_content on assistant messages that
	// called tools and have reasoning: llama.cpp reads it for templates
	// that keep the thinking of tool calls (gpt-oss); what most servers of
	// unknown kind accept.
	EchoContent
	// EchoContentAlways sends reasoning_content on every assistant message
	// that called tools, an empty one when there was none: DeepSeek's
	// thinking mode answers 400 without it.
	EchoContentAlways
	// EchoReasoning sends reasoning on assistant messages that called
	// tools: Ollama reads it back into the message's thinking.
	EchoReasoning
	// EchoDetails sends reasoning_details unchanged on assistant messages
	// that called tools: OpenRouter passes the signed or encrypted blocks
	// on to Anthropic, Gemini and OpenAI, which need them to continue
	// after a tool call.
	EchoDetails
)

// encodeRequest maps our request to the wire, sending reasoning back as
// echo says.
func encodeRequest(req llm.Request, echo ReasoningEcho, prefix Prefix) wireRequest {
	out := wireRequest{
		Model:           req.Model,
		Messages:        make([]wireMessage, len(req.Messages)),
		Temperature:     req.Temperature,
		TopP:            req.TopP,
		Stop:            req.Stop,
		Seed:            req.Seed,
		ReasoningEffort: req.ReasoningEffort,
		Stream:          true,
		StreamOptions:   &wireStreamOptions{IncludeUsage: true},
	}
	if req.MaxTokens > 0 {
		if isReasoningModel(req.Model) {
			out.MaxCompletionTokens = req.MaxTokens
		} else {
			// Local servers (Ollama, llama.cpp, vLLM) read max_tokens.
			out.MaxTokens = req.MaxTokens
		}
	}
	for i, m := range req.Messages {
		wm := wireMessage{Role: string(m.Role), Content: contentOf(m), ToolCallID: m.ToolCallID, Name: m.Name}
		for _, tc := range m.ToolCalls {
			wm.ToolCalls = append(wm.ToolCalls, wireToolCall{ID: tc.ID, Type: "function",
				Function: wireFunctionCall{Name: tc.Name, Arguments: tc.Arguments}})
		}
		if m.Role == llm.RoleAssistant && len(m.ToolCalls) > 0 {
			echoReasoning(&wm, m, echo)
		}
		out.Messages[i] = wm
	}
	if n := len(req.Messages); prefix == PrefixContinueFinal && n > 0 && req.Messages[n-1].Role == llm.RoleAssistant {
		no := false
		out.ContinueFinalMessage, out.AddGenerationPrompt = true, &no
	}
	for _, t := range req.Tools {
		out.Tools = append(out.Tools, wireTool{Type: "function",
			Function: wireFunction(t)})
	}
	if rf := req.ResponseFormat; rf != nil {
		f := &wireResponseFormat{Type: rf.Type}
		if rf.Type == "json_schema" {
			schema := rf.Schema
			if len(schema) == 0 {
				schema = json.RawMessage("{}")
			}
			f.JSONSchema = &wireJSONSchema{Name: rf.Name, Schema: schema, Strict: rf.Strict}
		}
		out.ResponseFormat = f
	}
	return out
}

func echoReasoning(wm *wireMessage, m llm.Message, echo ReasoningEcho) {
	switch echo {
	case EchoContent:
		if m.Reasoning != "" {
			r := m.Reasoning
			wm.ReasoningContent = &r
		}
	case EchoContentAlways:
		r := m.Reasoning
		wm.ReasoningContent = &r
	case EchoReasoning:
		if m.Reasoning != "" {
			r := m.Reasoning
			wm.Reasoning = &r
		}
	case EchoDetails:
		if len(m.ReasoningDetails) > 0 {
			wm.ReasoningDetails = m.ReasoningDetails
		} else if m.Reasoning != "" {
			r := m.Reasoning
			wm.Reasoning = &r
		}
	}
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

// chunkOf maps one decoded chunk (or whole answer) to a Chunk; ok is false
// for a chunk that carries nothing (a role-only delta, a keep-alive).
// A streamed chunk is read from its delta alone: Perplexity sends, beside
// each delta, the whole answer so far as message, and reading that would
// repeat the answer in every chunk. A whole answer is read from its
// message (else its delta). Reasoning is read from reasoning_content,
// else reasoning (vLLM sends both, the same text, while it renames the
// field); reasoning_details are passed on raw for the call to merge and
// keep, and to read their text from when a chunk has no reasoning field
// (callState.deliver).
func chunkOf(w *wireChunk) (llm.Chunk, bool) {
	var c llm.Chunk
	if len(w.Choices) > 0 {
		ch := &w.Choices[0]
		d := &ch.Delta
		if w.whole && ch.Message != nil {
			d = ch.Message
		}
		c.Content = d.Content
		c.Reasoning = d.ReasoningContent
		if c.Reasoning == "" {
			c.Reasoning = d.Reasoning
		}
		if len(d.ReasoningDetails) > 0 && string(d.ReasoningDetails) != "null" && string(d.ReasoningDetails) != "[]" {
			c.ReasoningDetails = d.ReasoningDetails
		}
		c.FinishReason = ch.FinishReason
		if n := len(d.ToolCalls); n > 0 {
			c.ToolCalls = make([]llm.ToolCallDelta, n)
			for i, tc := range d.ToolCalls {
				// A delta with no index is taken to be at its position;
				// callState.add sorts out calls that share one.
				idx := i
				if tc.Index != nil {
					idx = *tc.Index
				}
				c.ToolCalls[i] = llm.ToolCallDelta{Index: idx, ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments}
			}
		}
	}
	if u := w.Usage; u != nil {
		c.Usage = &llm.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
		if d := u.PromptTokensDetails; d != nil {
			c.Usage.CachedInputTokens = d.CachedTokens
		}
		if d := u.CompletionTokensDetails; d != nil {
			c.Usage.ReasoningTokens = d.ReasoningTokens
		}
	}
	ok := c.Content != "" || c.Reasoning != "" || len(c.ReasoningDetails) > 0 || len(c.ToolCalls) > 0 || c.FinishReason != "" || c.Usage != nil
	return c, ok
}

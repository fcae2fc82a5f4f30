package llm

import (
	"context"
	"encoding/json"
	"time"
)

// Client streams one chat completion. fn receives every delta in order and
// may return an error to stop the stream; that error is returned. The
// Response holds the assembled message, usage and diagnostics, also when the
// call failed part-way (the partial message is kept).
type Client interface {
	Stream(ctx context.Context, req Request, fn func(Chunk) error) (Response, error)
}

// ClientFunc adapts a function to Client.
type ClientFunc func(ctx context.Context, req Request, fn func(Chunk) error) (Response, error)

func (f ClientFunc) Stream(ctx context.Context, req Request, fn func(Chunk) error) (Response, error) {
	return f(ctx, req, fn)
}

// Role is who wrote a message.
type Role string

const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one message of a conversation.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content"`
	// Reasoning is the model's reasoning, from whichever field the server
	// sent it in (reasoning_content, reasoning) or a leading <think> block
	// of its content. It is never part of Content.
	Reasoning string `json:"reasoning,omitempty"`
	// ReasoningDetails are OpenRouter's structured reasoning blocks
	// (text with signatures, summaries, encrypted data), merged from the
	// stream's fragments and kept to be sent back unchanged (EchoDetails).
	ReasoningDetails json.RawMessage `json:"reasoning_details,omitempty"`
	// ToolCalls are the calls an assistant message asks for.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID links a tool message to the call it answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Name is the tool's name on a tool message.
	Name string `json:"name,omitempty"`
	// Images are pictures sent with a user message, for a model that
	// sees (a vision model). They go as image_url content parts.
	Images []Image `json:"images,omitempty"`
}

// Image is a picture sent with a message. Data holds its bytes when it is
// sent or stored; a message read for display names it only (ID, and what
// it is), and the bytes are fetched by ID.
type Image struct {
	// ID names the image in the store ("" before it is stored).
	ID string `json:"id,omitempty"`
	// MIME is image/png, image/jpeg, image/webp or image/gif.
	MIME   string `json:"mime"`
	Name   string `json:"name,omitempty"`
	Width  int    `json:"width,omitempty"`
	Height int    `json:"height,omitempty"`
	Size   int    `json:"size"`
	// SHA256 is the lowercase hex SHA-256 of the bytes: what the capture
	// key holds of an image.
	SHA256 string `json:"sha256"`
	Data   []byte `json:"-"`
}

// ImageMIMEs are the image types a message may carry: those every
// OpenAI-compatible vision server reads.
var ImageMIMEs = []string{"image/png", "image/jpeg", "image/webp", "image/gif"}

// ToolCall is one call the model asked for. Arguments is the JSON text as
// the model sent it (it may be invalid; validation is the caller's job).
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool describes a tool offered to the model.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"` // JSON Schema
}

// ResponseFormat asks for plain text, any JSON object, or JSON matching a schema.
type ResponseFormat struct {
	Type   string          `json:"type"` // "text", "json_object" or "json_schema"
	Name   string          `json:"name,omitempty"`
	Schema json.RawMessage `json:"schema,omitempty"`
	Strict bool            `json:"strict,omitempty"`
}

// Request is one chat-completion request.
type Request struct {
	Model          string          `json:"model"`
	Messages       []Message       `json:"messages"`
	Tools          []Tool          `json:"tools,omitempty"`
	Temperature    *float32        `json:"temperature,omitempty"`
	TopP           *float32        `json:"top_p,omitempty"`
	MaxTokens      int             `json:"max_tokens,omitempty"`
	ResponseFormat *ResponseFormat `json:"response_format,omitempty"`
	Stop           []string        `json:"stop,omitempty"`
	// Seed asks the server for repeatable sampling, where it can.
	Seed *int64 `json:"seed,omitempty"`
	// ReasoningEffort is low, medium or high, for a model that reasons.
	ReasoningEffort string `json:"reasoning_effort,omitempty"`
	// OnRetry, when set, is told of each retry before its wait begins, so
	// the caller can say so while the call goes on (the agent's
	// model_retry event). It is not part of the request as sent or
	// recorded.
	OnRetry func(Retry) `json:"-"`
}

// Retry is one retry of a model call that failed before its answer began:
// which attempt comes next and of how many, what failed (the HTTP status,
// 0 for a network error, and the error's kind and message), and how long
// the client waits first (a Retry-After, else backoff).
type Retry struct {
	Attempt     int           `json:"attempt"`
	MaxAttempts int           `json:"max_attempts"`
	Status      int           `json:"status,omitempty"`
	Kind        ErrorKind     `json:"kind"`
	Message     string        `json:"message"`
	Wait        time.Duration `json:"wait_ns"`
}

// Chunk is one streamed delta. A chunk with nothing set comes at most
// once, first: the model has begun to answer, but what it sent is held
// back until it resolves (the start of a tool call written as text).
type Chunk struct {
	Content   string `json:"content,omitempty"`
	Reasoning string `json:"reasoning,omitempty"`
	// ReasoningDetails is a delta's reasoning_details array, as sent.
	ReasoningDetails json.RawMessage `json:"reasoning_details,omitempty"`
	ToolCalls        []ToolCallDelta `json:"tool_calls,omitempty"`
	// FinishReason is set on the chunk that ends a choice: "stop",
	// "tool_calls", "length", "content_filter".
	FinishReason string `json:"finish_reason,omitempty"`
	// Usage is set on the final chunk when the server reports it.
	Usage *Usage `json:"usage,omitempty"`
}

// ToolCallDelta is a fragment of a tool call. Index identifies the call;
// ID and Name arrive once, Arguments arrives in pieces.
type ToolCallDelta struct {
	Index     int    `json:"index"`
	ID        string `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
}

// Usage counts tokens for one call, or a sum of calls.
type Usage struct {
	InputTokens       int `json:"input_tokens"`
	OutputTokens      int `json:"output_tokens"`
	CachedInputTokens int `json:"cached_input_tokens"`
	ReasoningTokens   int `json:"reasoning_tokens"`
	TotalTokens       int `json:"total_tokens"`
	// Estimated is true when any part was estimated because the server
	// reported no usage.
	Estimated bool `json:"estimated"`
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:       u.InputTokens + v.InputTokens,
		OutputTokens:      u.OutputTokens + v.OutputTokens,
		CachedInputTokens: u.CachedInputTokens + v.CachedInputTokens,
		ReasoningTokens:   u.ReasoningTokens + v.ReasoningTokens,
		TotalTokens:       u.TotalTokens + v.TotalTokens,
		Estimated:         u.Estimated || v.Estimated,
	}
}

// Response is the outcome of one call.
type Response struct {
	Message      Message         `json:"message"`
	FinishReason string          `json:"finish_reason"`
	Usage        Usage           `json:"usage"`
	Diagnostics  CallDiagnostics `json:"diagnostics"`
}

// CallDiagnostics describe one model call, for the diagnostics views.
type CallDiagnostics struct {
	Model            string        `json:"model"`
	StartedAt        time.Time     `json:"started_at"`
	CompletedAt      time.Time     `json:"completed_at"`
	Duration         time.Duration `json:"duration_ns"`
	TimeToFirstToken time.Duration `json:"time_to_first_token_ns"`
	Usage            Usage         `json:"usage"`
	RequestMessages  int           `json:"request_messages"`
	Attempts         int           `json:"attempts"`
	// Retries are the failed attempts before the last, each as it was
	// retried.
	Retries []Retry `json:"retries,omitempty"`
	// Capture is "", "recorded" or "replayed".
	Capture string `json:"capture,omitempty"`
	// Provider names the configured server the call went to ("" for a
	// base URL given directly, and for calls recorded before issue 23).
	Provider string `json:"provider,omitempty"`
	// Price is what the call was priced at when it ran, and Cost what it
	// cost at that price: kept with the call, so a later price change
	// does not rewrite history. Both nil when the price was unknown; a
	// replayed call costs nothing (Price.Source PriceReplay).
	Price *Price `json:"price,omitempty"`
	Cost  *Cost  `json:"cost,omitempty"`
	// Notes say what was unusual about the answer and how it was read: a
	// server that ignored streaming, tool calls written as text.
	Notes     []string  `json:"notes,omitempty"`
	OK        bool      `json:"ok"`
	ErrorKind ErrorKind `json:"error_kind,omitempty"`
	Error     string    `json:"error,omitempty"`
}

// Values of CallDiagnostics.Capture.
const (
	CaptureRecorded = "recorded"
	CaptureReplayed = "replayed"
)

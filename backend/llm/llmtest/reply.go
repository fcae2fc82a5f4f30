package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"
)

// Reply scripts the answer to one chat request. All fields are optional;
// the zero Reply is a completion with no chunks.
//
// Which kind of answer is sent:
//
//   - Handler set: Handler answers, and every other field is ignored.
//   - Status or Body set: a plain response (Status, default 200; Body;
//     ContentType, default application/json; Header), whatever the request
//     asked for. Use it for error replies; see ErrorReply and friends.
//   - Otherwise a completion built from Chunks: an SSE stream when the
//     request has "stream": true, else one chat.completion JSON object.
//
// Hang and FirstByteDelay apply before any kind except Handler; Chunks,
// Usage, ReasoningField, NoDone, DropAfter and Delay shape a completion
// only.
type Reply struct {
	// Chunks are the deltas of the completion, in order.
	Chunks []Chunk
	// Usage is sent in a final chunk with empty choices when the request
	// set stream_options.include_usage, and in the "usage" field of a
	// non-streamed reply. Nil sends no usage at all.
	Usage *Usage
	// ReasoningField is the delta key that carries Chunk.Reasoning:
	// "reasoning_content" (default; DeepSeek, vLLM, llama.cpp) or
	// "reasoning" (Ollama, OpenRouter).
	ReasoningField string
	// IgnoreStream answers one chat.completion JSON object even when the
	// request asked for a stream, as some servers and proxies do.
	IgnoreStream bool
	// NoDone omits the final "data: [DONE]".
	NoDone bool
	// DropAfter > 0 cuts the connection (hijacked and closed, no clean
	// end of body) after min(DropAfter, len(Chunks)) chunks have been
	// written, before usage and [DONE]. For a non-streamed reply it sends
	// the headers and half the body, then cuts.
	DropAfter int
	// Delay is slept between chunks (not before the first); the stream is
	// flushed after every chunk when Delay > 0. A non-streamed reply
	// sleeps Delay for every chunk but the first before answering.
	Delay time.Duration
	// FirstByteDelay is slept before the status line is written.
	FirstByteDelay time.Duration
	// Hang accepts the request and never answers; the handler returns
	// when the client disconnects or the server closes.
	Hang bool

	// Status, Body, ContentType and Header describe a plain response.
	// ContentType and Header also apply to a completion (a stream
	// defaults to text/event-stream).
	Status      int
	Body        string
	ContentType string
	Header      map[string]string

	// Handler, when set, answers the request itself. The request body
	// has already been read and recorded; r.Body replays it.
	Handler http.HandlerFunc
}

// Chunk is one streamed delta. Empty fields are omitted from the delta, so
// Chunk{FinishReason: "stop"} is the usual bare final chunk "delta":{}.
type Chunk struct {
	Content   string
	Reasoning string
	ToolCalls []ToolCallDelta
	// FinishReason is sent as "finish_reason"; empty sends null.
	FinishReason string
	// Raw, when set, is written verbatim as the data: payload instead of
	// a chunk object (for malformed JSON tests): "data: " + Raw + "\n\n".
	Raw string
	// Verbatim, when set, is written to the stream as is, with no "data: "
	// prefix and no blank line added: SSE comments (": ping\n\n"), other
	// event types, a half-written event. It wins over every other field.
	Verbatim string
}

// ToolCallDelta is a fragment of a tool call. Index identifies the call; ID
// and Name are sent only when set (real servers send them in the first
// fragment only).
type ToolCallDelta struct {
	Index     int
	ID        string
	Name      string
	Arguments string
}

// Usage is the token usage reported for a reply. A zero TotalTokens is sent
// as PromptTokens+CompletionTokens.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
	TotalTokens      int
	CachedTokens     int // prompt_tokens_details.cached_tokens
	ReasoningTokens  int // completion_tokens_details.reasoning_tokens
}

// ErrorReply is a plain reply with an OpenAI-style error body:
// {"error":{"message":..,"type":..,"param":null,"code":..}}. An empty code
// is sent as null. The type follows OpenAI: "server_error" for 5xx,
// "requests" for 429, "invalid_request_error" otherwise.
func ErrorReply(status int, code, message string) Reply {
	return Reply{Status: status, Body: errorBody(status, code, message, "")}
}

// RateLimited is a 429 as OpenAI sends it. retryAfter, when not empty, is
// sent as the Retry-After header ("1", or an HTTP date).
func RateLimited(retryAfter string) Reply {
	r := ErrorReply(http.StatusTooManyRequests, "rate_limit_exceeded",
		"Rate limit reached for requests per min (RPM): Limit 3, Used 3, Requested 1. "+
			"Please try again in 20s. Visit https://platform.openai.com/account/rate-limits to learn more.")
	r.Header = map[string]string{"X-Ratelimit-Remaining-Requests": "0"}
	if retryAfter != "" {
		r.Header["Retry-After"] = retryAfter
	}
	return r
}

// HTMLPage is the kind of page a reverse proxy (nginx, a captive portal, a
// CDN) answers with instead of JSON: text/html, the status in the title.
func HTMLPage(status int) Reply {
	title := fmt.Sprintf("%d %s", status, http.StatusText(status))
	return Reply{
		Status:      status,
		ContentType: "text/html",
		Header:      map[string]string{"Server": "nginx"},
		Body: "<html>\r\n<head><title>" + title + "</title></head>\r\n<body>\r\n" +
			"<center><h1>" + title + "</h1></center>\r\n" +
			"<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n",
	}
}

// ContextLengthExceeded is OpenAI's 400 for a prompt longer than the
// model's window, code "context_length_exceeded".
func ContextLengthExceeded() Reply {
	return Reply{Status: http.StatusBadRequest, Body: errorBody(http.StatusBadRequest, "context_length_exceeded",
		"This model's maximum context length is 8192 tokens. However, your messages resulted in 9216 tokens. "+
			"Please reduce the length of the messages.", "messages")}
}

// Text splits s into pieces content chunks of about equal length (on rune
// boundaries; fewer when s has fewer runes) and ends with a bare chunk with
// FinishReason "stop".
func Text(s string, pieces int) []Chunk {
	parts := split(s, pieces)
	out := make([]Chunk, 0, len(parts)+1)
	for _, p := range parts {
		out = append(out, Chunk{Content: p})
	}
	return append(out, Chunk{FinishReason: "stop"})
}

// Reasoning splits s into pieces reasoning chunks like Text, with no
// finish chunk, so Stream(Reasoning(..), Text(..)) reads naturally.
func Reasoning(s string, pieces int) []Chunk {
	parts := split(s, pieces)
	out := make([]Chunk, 0, len(parts))
	for _, p := range parts {
		out = append(out, Chunk{Reasoning: p})
	}
	return out
}

// Tokens is n content chunks "tok0 ", "tok1 ", ... and a final "stop" chunk.
func Tokens(n int) []Chunk {
	out := make([]Chunk, 0, n+1)
	for i := range n {
		out = append(out, Chunk{Content: "tok" + strconv.Itoa(i) + " "})
	}
	return append(out, Chunk{FinishReason: "stop"})
}

// ToolCallChunks is one tool call streamed as OpenAI does: a first delta
// with id, name and empty arguments, then the arguments split into pieces
// deltas (on rune boundaries). It adds no finish chunk; end the stream
// with WithFinish(chunks, "tool_calls").
func ToolCallChunks(index int, id, name, args string, pieces int) []Chunk {
	parts := split(args, pieces)
	out := make([]Chunk, 0, len(parts)+1)
	out = append(out, Chunk{ToolCalls: []ToolCallDelta{{Index: index, ID: id, Name: name}}})
	for _, p := range parts {
		out = append(out, Chunk{ToolCalls: []ToolCallDelta{{Index: index, Arguments: p}}})
	}
	return out
}

// WithFinish returns a copy of chunks ending with finish reason reason: a
// trailing bare finish chunk has its reason replaced, otherwise a bare
// finish chunk is appended.
func WithFinish(chunks []Chunk, reason string) []Chunk {
	out := append([]Chunk(nil), chunks...)
	if n := len(out); n > 0 && isBareFinish(out[n-1]) {
		out[n-1].FinishReason = reason
		return out
	}
	return append(out, Chunk{FinishReason: reason})
}

// Stream concatenates chunk lists into one.
func Stream(lists ...[]Chunk) []Chunk {
	var out []Chunk
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// Content is the concatenated Content of chunks: the text a client should
// assemble from them.
func Content(chunks []Chunk) string {
	var b []byte
	for _, c := range chunks {
		if c.Raw == "" && c.Verbatim == "" {
			b = append(b, c.Content...)
		}
	}
	return string(b)
}

func isBareFinish(c Chunk) bool {
	return c.FinishReason != "" && c.Content == "" && c.Reasoning == "" &&
		len(c.ToolCalls) == 0 && c.Raw == "" && c.Verbatim == ""
}

// split cuts s into at most pieces parts of about equal rune count; an empty
// s gives no parts.
func split(s string, pieces int) []string {
	n := utf8.RuneCountInString(s)
	if n == 0 {
		return nil
	}
	pieces = max(1, min(pieces, n))
	out := make([]string, 0, pieces)
	start, runes, part := 0, 0, 1
	for i := range s {
		// Cut where the part-th share of the runes begins.
		if runes == part*n/pieces {
			out = append(out, s[start:i])
			start = i
			part++
		}
		runes++
	}
	return append(out, s[start:])
}

type errorJSON struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	} `json:"error"`
}

func errorBody(status int, code, message, param string) string {
	var e errorJSON
	e.Error.Message = message
	switch {
	case status >= 500:
		e.Error.Type = "server_error"
	case status == http.StatusTooManyRequests:
		e.Error.Type = "requests"
	default:
		e.Error.Type = "invalid_request_error"
	}
	if code != "" {
		e.Error.Code = &code
	}
	if param != "" {
		e.Error.Param = &param
	}
	b, err := json.Marshal(e)
	if err != nil {
		panic(err) // only strings: cannot fail
	}
	return string(b)
}

package llmtest

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// stream answers with reply as server-sent events, byte for byte as OpenAI
// does. Without Delay the events go through one large buffer that is
// flushed only when full and at the end, so long streams are cheap; with
// Delay every event is flushed as it is written.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, req Request, reply Reply, id string) {
	h := w.Header()
	if reply.ContentType != "" || h.Get("Content-Type") == "" {
		h.Set("Content-Type", cmp.Or(reply.ContentType, "text/event-stream"))
	}
	if h.Get("Cache-Control") == "" {
		h.Set("Cache-Control", "no-cache")
	}
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	// Headers go out at once, as a real server's do, so a client can tell
	// time to headers from time to first token.
	if rc.Flush() != nil {
		s.recordDisconnect()
		return
	}

	ctx := r.Context()
	enc := newChunkEncoder(id, req, reply)
	bw := bufio.NewWriterSize(w, 32<<10)
	for i, c := range reply.Chunks {
		if i > 0 && reply.Delay > 0 {
			if !s.sleep(ctx, reply.Delay) {
				return
			}
		} else if ctx.Err() != nil {
			s.recordDisconnect()
			return
		}
		_, _ = bw.Write(enc.chunk(c))
		if reply.Delay > 0 {
			if bw.Flush() != nil || rc.Flush() != nil {
				s.recordDisconnect()
				return
			}
		}
		if i+1 == reply.DropAfter {
			_ = bw.Flush()
			cut(w)
			return
		}
	}
	if reply.DropAfter > 0 { // more than there were chunks
		_ = bw.Flush()
		cut(w)
		return
	}
	if reply.Usage != nil && req.IncludeUsage {
		_, _ = bw.Write(enc.usage(*reply.Usage))
	}
	if !reply.NoDone {
		_, _ = bw.WriteString("data: [DONE]\n\n")
	}
	if bw.Flush() != nil {
		s.recordDisconnect()
	}
}

// complete answers with reply as one chat.completion object.
func (s *Server) complete(w http.ResponseWriter, r *http.Request, req Request, reply Reply, id string) {
	if n := len(reply.Chunks); n > 1 && !s.sleep(r.Context(), time.Duration(n-1)*reply.Delay) {
		return
	}
	body := completion(id, req, reply)
	if reply.ContentType != "" || w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", cmp.Or(reply.ContentType, "application/json"))
	}
	if reply.DropAfter > 0 {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body[:len(body)/2])
		cut(w)
		return
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// chunkEncoder encodes chunks of one response into a reused buffer. The
// part of each event that never changes is encoded once.
type chunkEncoder struct {
	head         []byte // `data: {"id":..,"object":..,"created":..,"model":..,"choices":`
	tail         string // what closes a chunk object after its choices
	reasoningKey string
	sentRole     bool
	buf          []byte
}

func newChunkEncoder(id string, req Request, reply Reply) *chunkEncoder {
	e := &chunkEncoder{reasoningKey: cmp.Or(reply.ReasoningField, "reasoning_content"), tail: "}\n\n"}
	b := append([]byte(nil), `data: {"id":`...)
	b = appendString(b, id)
	b = append(b, `,"object":"chat.completion.chunk","created":`...)
	b = strconv.AppendInt(b, time.Now().Unix(), 10)
	b = append(b, `,"model":`...)
	b = appendString(b, req.Model)
	e.head = append(b, `,"choices":`...)
	if req.IncludeUsage {
		// OpenAI sends "usage":null on every chunk but the usage chunk.
		e.tail = `,"usage":null}` + "\n\n"
	}
	return e
}

// chunk encodes c as one SSE event. The result is valid until the next call.
func (e *chunkEncoder) chunk(c Chunk) []byte {
	b := e.buf[:0]
	switch {
	case c.Verbatim != "":
		b = append(b, c.Verbatim...)
	case c.Raw != "":
		b = append(b, "data: "...)
		b = append(b, c.Raw...)
		b = append(b, "\n\n"...)
	default:
		b = append(b, e.head...)
		b = append(b, `[{"index":0,"delta":{`...)
		sep := false
		if !e.sentRole {
			b = appendKey(b, &sep, "role")
			b = append(b, `"assistant"`...)
			e.sentRole = true
		}
		if c.Content != "" {
			b = appendString(appendKey(b, &sep, "content"), c.Content)
		}
		if c.Reasoning != "" {
			b = appendString(appendKey(b, &sep, e.reasoningKey), c.Reasoning)
		}
		if len(c.ToolCalls) > 0 {
			b = appendToolCalls(appendKey(b, &sep, "tool_calls"), c.ToolCalls)
		}
		b = append(b, `},"finish_reason":`...)
		if c.FinishReason == "" {
			b = append(b, "null"...)
		} else {
			b = appendString(b, c.FinishReason)
		}
		b = append(b, "}]"...)
		b = append(b, e.tail...)
	}
	e.buf = b
	return b
}

// usage encodes the final chunk that carries usage and no choices.
func (e *chunkEncoder) usage(u Usage) []byte {
	b := append(e.buf[:0], e.head...)
	b = append(b, `[],"usage":`...)
	j, _ := json.Marshal(usageWire(u))
	b = append(b, j...)
	b = append(b, "}\n\n"...)
	e.buf = b
	return b
}

func appendKey(b []byte, sep *bool, key string) []byte {
	if *sep {
		b = append(b, ',')
	}
	*sep = true
	b = appendString(b, key)
	return append(b, ':')
}

func appendToolCalls(b []byte, calls []ToolCallDelta) []byte {
	b = append(b, '[')
	for i, tc := range calls {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"index":`...)
		b = strconv.AppendInt(b, int64(tc.Index), 10)
		if tc.ID != "" {
			b = append(b, `,"id":`...)
			b = appendString(b, tc.ID)
			b = append(b, `,"type":"function"`...)
		}
		b = append(b, `,"function":{`...)
		if tc.Name != "" {
			b = append(b, `"name":`...)
			b = appendString(b, tc.Name)
			b = append(b, ',')
		}
		b = append(b, `"arguments":`...)
		b = appendString(b, tc.Arguments)
		b = append(b, "}}"...)
	}
	return append(b, ']')
}

// appendString appends s as a JSON string. Plain text is copied as is;
// anything that needs escaping goes through encoding/json.
func appendString(b []byte, s string) []byte {
	plain := utf8.ValidString(s)
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] != '"' && s[i] != '\\'
	}
	if plain {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string cannot fail
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

type usageJSON struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

func usageWire(u Usage) usageJSON {
	j := usageJSON{
		PromptTokens:     u.PromptTokens,
		CompletionTokens: u.CompletionTokens,
		TotalTokens:      cmp.Or(u.TotalTokens, u.PromptTokens+u.CompletionTokens),
	}
	j.PromptTokensDetails.CachedTokens = u.CachedTokens
	j.CompletionTokensDetails.ReasoningTokens = u.ReasoningTokens
	return j
}

// completion assembles the chat.completion object a server would send for
// reply without streaming. Raw and Verbatim chunks are skipped.
func completion(id string, req Request, reply Reply) []byte {
	var content, reasoning []byte
	var finish *string
	calls := map[int]*toolCallJSON{}
	for _, c := range reply.Chunks {
		if c.Raw != "" || c.Verbatim != "" {
			continue
		}
		content = append(content, c.Content...)
		reasoning = append(reasoning, c.Reasoning...)
		for _, d := range c.ToolCalls {
			tc := calls[d.Index]
			if tc == nil {
				tc = &toolCallJSON{Type: "function"}
				calls[d.Index] = tc
			}
			tc.ID = cmp.Or(d.ID, tc.ID)
			tc.Function.Name = cmp.Or(d.Name, tc.Function.Name)
			tc.Function.Arguments += d.Arguments
		}
		if c.FinishReason != "" {
			finish = &c.FinishReason
		}
	}

	msg := map[string]any{"role": "assistant", "content": string(content)}
	if len(calls) > 0 {
		indexes := make([]int, 0, len(calls))
		for i := range calls {
			indexes = append(indexes, i)
		}
		slices.Sort(indexes)
		list := make([]toolCallJSON, 0, len(calls))
		for _, i := range indexes {
			list = append(list, *calls[i])
		}
		msg["tool_calls"] = list
		if len(content) == 0 {
			msg["content"] = nil // as OpenAI sends a tool-calls-only message
		}
	}
	if len(reasoning) > 0 {
		msg[cmp.Or(reply.ReasoningField, "reasoning_content")] = string(reasoning)
	}

	out := struct {
		ID      string     `json:"id"`
		Object  string     `json:"object"`
		Created int64      `json:"created"`
		Model   string     `json:"model"`
		Choices []any      `json:"choices"`
		Usage   *usageJSON `json:"usage,omitempty"`
	}{ID: id, Object: "chat.completion", Created: time.Now().Unix(), Model: req.Model}
	out.Choices = []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}
	if reply.Usage != nil {
		u := usageWire(*reply.Usage)
		out.Usage = &u
	}
	b, err := json.Marshal(out)
	if err != nil {
		panic(err) // only strings, numbers and maps of them: cannot fail
	}
	return b
}

type toolCallJSON struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

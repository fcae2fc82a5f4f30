package llmtest

import (
	"encoding/json"
	"net/http"
	"strings"
)

// Request is one chat request as the server received it. Its slices and
// maps are shared with the server's record: read them, do not modify them.
type Request struct {
	// Seq is the request's arrival number among chat requests, from 1.
	Seq      int
	Model    string
	Messages []Message
	// Tools are the names of the functions offered in "tools".
	Tools        []string
	Stream       bool
	IncludeUsage bool // stream_options.include_usage
	// Raw is the body exactly as sent.
	Raw    []byte
	Header http.Header
	// Body is the body decoded generically, for fields not above
	// (temperature, max_tokens, response_format, ...). It is nil when the
	// body is not a JSON object; the server then answers 400.
	Body map[string]any
}

// Message is one message of a request. Content given as an array of parts
// is the text parts joined with "\n" (as vLLM does); other parts are
// dropped.
type Message struct {
	Role       string
	Content    string
	ToolCalls  []ToolCall
	ToolCallID string
	Name       string
}

// ToolCall is a call in an assistant message of a request. Arguments is
// the JSON text as sent; arguments sent as an object rather than a string
// (Ollama's native style) are kept as that object's JSON text.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// decodeRequest decodes a chat request leniently: a field of an unexpected
// type is left zero rather than failing the whole request. It fails only
// when raw is not a JSON object.
func decodeRequest(raw []byte, h http.Header) (Request, error) {
	req := Request{Raw: raw, Header: h.Clone()}
	if err := json.Unmarshal(raw, &req.Body); err != nil {
		return req, err
	}
	var w struct {
		Model    string        `json:"model"`
		Messages []wireMessage `json:"messages"`
		Tools    []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
		Stream        bool `json:"stream"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	// Type errors are ignored on purpose: Unmarshal still fills every
	// field it can, which is the leniency wanted.
	_ = json.Unmarshal(raw, &w)
	req.Model, req.Stream, req.IncludeUsage = w.Model, w.Stream, w.StreamOptions.IncludeUsage
	for _, t := range w.Tools {
		req.Tools = append(req.Tools, t.Function.Name)
	}
	for _, m := range w.Messages {
		msg := Message{Role: m.Role, Content: contentText(m.Content), ToolCallID: m.ToolCallID, Name: m.Name}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{
				ID: tc.ID, Name: tc.Function.Name, Arguments: argumentsText(tc.Function.Arguments),
			})
		}
		req.Messages = append(req.Messages, msg)
	}
	return req, nil
}

type wireMessage struct {
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	ToolCallID string `json:"tool_call_id"`
	Name       string `json:"name"`
}

// contentText reads content given as a string, null, or an array of parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []json.RawMessage
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var texts []string
	for _, p := range parts {
		var part struct {
			Type string  `json:"type"`
			Text *string `json:"text"`
		}
		switch {
		case json.Unmarshal(p, &s) == nil:
			texts = append(texts, s)
		case json.Unmarshal(p, &part) == nil && part.Text != nil && (part.Type == "" || part.Type == "text"):
			texts = append(texts, *part.Text)
		}
	}
	return strings.Join(texts, "\n")
}

func argumentsText(raw json.RawMessage) string {
	var s string
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

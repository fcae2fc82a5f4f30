package recording

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// CanonicalVersion is the version of CanonicalForm. Bump it whenever the
// canonical form changes, so that every old recording misses instead of
// silently matching a request it was not made for.
const CanonicalVersion = 1

// CanonicalForm is the canonical form of a Request: what Key hashes
// and what a Capture keeps in its Request field for review and for
// explaining replay misses.
//
// CanonicalRequest writes it with encoding/json, HTML escaping off, no
// indentation and no trailing newline. Fields appear in exactly this order
// and every field is always present (none is omitempty):
//
//	v                 int     CanonicalVersion (1)
//	model             string  Request.Model
//	messages          array   one object per Request.Messages, in order:
//	  role            string    Message.Role
//	  content         string    Message.Content (the text)
//	  tool_calls      array     one object per Message.ToolCalls, in order, [] when none:
//	    id            string      ToolCall.ID
//	    name          string      ToolCall.Name
//	    arguments     string      ToolCall.Arguments: when it is valid JSON, that
//	                              JSON re-encoded compactly with object keys
//	                              sorted at every depth (see below); otherwise
//	                              the raw text unchanged
//	  tool_call_id    string    Message.ToolCallID
//	  name            string    Message.Name
//	  images          array     only when the message has images (absent
//	                            otherwise, so a text-only form is as before):
//	                            one object per Message.Images, in order:
//	    mime          string      Image.MIME
//	    sha256        string      the hex SHA-256 of Image.Data (Image.SHA256
//	                              when the bytes are not at hand)
//	tools             array   one object per Request.Tools, in order, [] when none:
//	  name            string    Tool.Name
//	  description     string    Tool.Description
//	  parameters      JSON      Tool.Parameters re-encoded with sorted keys;
//	                            null when empty; a JSON string holding the raw
//	                            text when it is not valid JSON
//	temperature       string  strconv.FormatFloat(float64(t), 'g', -1, 32), or null when unset
//	top_p             string  the same for Request.TopP
//	max_tokens        int     Request.MaxTokens (0 when unset)
//	response_format   object  null when Request.ResponseFormat is nil, else:
//	  type            string    ResponseFormat.Type
//	  name            string    ResponseFormat.Name
//	  schema          JSON      ResponseFormat.Schema, like tool parameters
//	  strict          bool      ResponseFormat.Strict
//	seed              int     Request.Seed, only when set (absent otherwise,
//	                          so a form without it is as before)
//	reasoning_effort  string  Request.ReasoningEffort, only when set
//
// Re-encoding JSON (tool-call arguments, tool parameters, response schemas)
// sorts object keys by their UTF-8 bytes at every depth, drops insignificant
// whitespace, keeps numbers exactly as written (1 and 1.0 differ), writes
// strings in encoding/json's escaping with HTML escaping off (so "\u0041"
// and "A" are the same) and keeps the last of duplicate keys.
//
// All strings are written by encoding/json, which replaces invalid UTF-8
// with U+FFFD.
//
// Nothing else is part of the form: Message.Reasoning, Request.Stop and any
// option added to Request later do not change the key, so requests that
// differ only in them share a recording.
type CanonicalForm struct {
	V              int                      `json:"v"`
	Model          string                   `json:"model"`
	Messages       []CanonicalMessage       `json:"messages"`
	Tools          []CanonicalTool          `json:"tools"`
	Temperature    *string                  `json:"temperature"`
	TopP           *string                  `json:"top_p"`
	MaxTokens      int                      `json:"max_tokens"`
	ResponseFormat *CanonicalResponseFormat `json:"response_format"`
	// Seed and ReasoningEffort are left out when unset: every key made
	// before they existed stays the same.
	Seed            *int64 `json:"seed,omitempty"`
	ReasoningEffort string `json:"reasoning_effort,omitempty"`
}

// CanonicalMessage is one message of a CanonicalForm.
type CanonicalMessage struct {
	Role       llm.Role            `json:"role"`
	Content    string              `json:"content"`
	ToolCalls  []CanonicalToolCall `json:"tool_calls"`
	ToolCallID string              `json:"tool_call_id"`
	Name       string              `json:"name"`
	Images     []CanonicalImage    `json:"images,omitempty"`
}

// CanonicalImage is an image of a CanonicalMessage: its type and the hash
// of its bytes.
type CanonicalImage struct {
	MIME   string `json:"mime"`
	SHA256 string `json:"sha256"`
}

// CanonicalToolCall is one tool call of a CanonicalMessage.
type CanonicalToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// CanonicalTool is one tool definition of a CanonicalForm.
type CanonicalTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// CanonicalResponseFormat is the response format of a CanonicalForm.
type CanonicalResponseFormat struct {
	Type   string          `json:"type"`
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

// Key is the recording key of req: the lowercase hex SHA-256 of
// CanonicalRequest(req).
func Key(req llm.Request) string {
	return captureKeyOf(CanonicalRequest(req))
}

func captureKeyOf(canon []byte) string {
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:])
}

// CanonicalRequest is the canonical form of req as JSON; see CanonicalForm.
func CanonicalRequest(req llm.Request) []byte {
	return canonicalMarshal(canonicalize(req))
}

// canonicalize builds the CanonicalForm of req.
func canonicalize(req llm.Request) CanonicalForm {
	f := CanonicalForm{
		V:         CanonicalVersion,
		Model:     req.Model,
		Messages:  make([]CanonicalMessage, len(req.Messages)),
		Tools:     make([]CanonicalTool, len(req.Tools)),
		MaxTokens: req.MaxTokens,
	}
	for i, m := range req.Messages {
		cm := CanonicalMessage{
			Role:       m.Role,
			Content:    m.Content,
			ToolCalls:  make([]CanonicalToolCall, len(m.ToolCalls)),
			ToolCallID: m.ToolCallID,
			Name:       m.Name,
		}
		for j, tc := range m.ToolCalls {
			cm.ToolCalls[j] = CanonicalToolCall{ID: tc.ID, Name: tc.Name, Arguments: canonicalArguments(tc.Arguments)}
		}
		for _, im := range m.Images {
			cm.Images = append(cm.Images, CanonicalImage{MIME: im.MIME, SHA256: ImageSHA256(im)})
		}
		f.Messages[i] = cm
	}
	for i, t := range req.Tools {
		f.Tools[i] = CanonicalTool{Name: t.Name, Description: t.Description, Parameters: canonicalRaw(t.Parameters)}
	}
	f.Temperature = canonicalFloat(req.Temperature)
	f.TopP = canonicalFloat(req.TopP)
	f.Seed, f.ReasoningEffort = req.Seed, req.ReasoningEffort
	if rf := req.ResponseFormat; rf != nil {
		f.ResponseFormat = &CanonicalResponseFormat{Type: rf.Type, Name: rf.Name, Schema: canonicalRaw(rf.Schema), Strict: rf.Strict}
	}
	return f
}

// ImageSHA256 is the hex SHA-256 of an image's bytes, or its SHA256 field
// when it carries no bytes.
func ImageSHA256(im llm.Image) string {
	if len(im.Data) == 0 {
		return im.SHA256
	}
	sum := sha256.Sum256(im.Data)
	return hex.EncodeToString(sum[:])
}

func canonicalFloat(p *float32) *string {
	if p == nil {
		return nil
	}
	s := strconv.FormatFloat(float64(*p), 'g', -1, 32)
	return &s
}

// canonicalArguments keeps invalid JSON as is: the model's text may be
// broken, and the broken text is what the request sent. A raw text can never
// equal a re-encoded one, because only valid JSON is re-encoded.
func canonicalArguments(s string) string {
	if b, ok := canonicalJSON([]byte(s)); ok {
		return string(b)
	}
	return s
}

// canonicalRaw is for JSON fields (schemas). Invalid JSON becomes a JSON
// string of the raw text: such a request cannot be sent anyway, but its key
// must still be stable.
func canonicalRaw(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return json.RawMessage("null")
	}
	if b, ok := canonicalJSON(raw); ok {
		return b
	}
	return canonicalMarshal(string(raw))
}

// canonicalJSON re-encodes valid JSON with sorted keys: encoding/json writes
// map keys in sorted order, and json.Number keeps each number's text.
func canonicalJSON(raw []byte) (json.RawMessage, bool) {
	if !json.Valid(raw) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	return canonicalMarshal(v), true
}

func canonicalMarshal(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only plain strings, numbers, maps, slices and compact RawMessages
		// reach here; none of them can fail to encode.
		panic("llm: canonical form: " + err.Error())
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// CanonicalArguments returns tool-call arguments in the canonical form used
// by the capture key: valid JSON re-encoded with sorted keys, anything else
// unchanged. The agent uses it to see that two calls are the same.
func CanonicalArguments(s string) string { return canonicalArguments(s) }

package openai

import (
	"bytes"
	"encoding/json"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// Reading a tool call the filter held (textfilter.go): the JSON value of
// each format decoded into calls of offered tools, the depth tracking that
// says when a value is whole, and matching the markers.

// parse reads the calls in the JSON value val[:...], which ends before the
// closing tag if there is one.
func (f *contentFilter) parse() ([]llm.ToolCall, bool) {
	v := f.buf[f.val:]
	var d jsonDepth
	end := 0
	if done, bad := d.scan(v, &end); !done || bad {
		return nil, false
	}
	v = v[:end]
	if f.name != "" {
		args, ok := argumentsText(v)
		return []llm.ToolCall{{Name: f.name, Arguments: args}}, ok
	}
	if v[0] == '{' {
		c, ok := parseTextCall(v, f.tools)
		return []llm.ToolCall{c}, ok
	}
	var items []json.RawMessage
	if json.Unmarshal(v, &items) != nil || len(items) == 0 {
		return nil, false
	}
	calls := make([]llm.ToolCall, len(items))
	for i, it := range items {
		var ok bool
		if calls[i], ok = parseTextCall(it, f.tools); !ok {
			return nil, false
		}
	}
	return calls, true
}

// parseTextCall reads {"name": ..., "arguments"|"parameters": {...}}.
func parseTextCall(v []byte, tools map[string]bool) (llm.ToolCall, bool) {
	var c struct {
		Name       *string         `json:"name"`
		Arguments  json.RawMessage `json:"arguments"`
		Parameters json.RawMessage `json:"parameters"`
	}
	if len(v) == 0 || v[0] != '{' || json.Unmarshal(v, &c) != nil || c.Name == nil || !tools[*c.Name] {
		return llm.ToolCall{}, false
	}
	raw := c.Arguments
	if raw == nil {
		raw = c.Parameters
	}
	args, ok := argumentsText(raw)
	return llm.ToolCall{Name: *c.Name, Arguments: args}, ok
}

// argumentsText returns a call's arguments as compact JSON object text:
// raw is an object, a JSON string holding one, or absent.
func argumentsText(raw []byte) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "{}", true
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		if raw = bytes.TrimSpace([]byte(s)); len(raw) == 0 {
			return "{}", true
		}
	}
	if raw[0] != '{' {
		return "", false
	}
	var out bytes.Buffer
	if json.Compact(&out, raw) != nil {
		return "", false
	}
	return out.String(), true
}

// bareOpening tells whether a bare JSON value opens like a call: an object,
// or an array of objects, whose first key is "name" (or "type", as in
// {"type": "function", "name": ...}). partMatch means more text is needed.
func bareOpening(b []byte) tagMatch {
	more := partMatch
	if len(b) > bareLookahead {
		b, more = b[:bareLookahead], noMatch
	}
	i := 0
	if b[0] == '[' {
		if i = skipSpace(b, 1); i == len(b) {
			return more
		}
		if b[i] != '{' {
			return noMatch
		}
	}
	if i = skipSpace(b, i+1); i == len(b) {
		return more
	}
	if b[i] != '"' {
		return noMatch
	}
	n := bytes.IndexByte(b[i+1:], '"')
	if n < 0 {
		return more
	}
	if key := string(b[i+1 : i+1+n]); key == "name" || key == "type" {
		return fullMatch
	}
	return noMatch
}

// jsonDepth follows a JSON value's nesting byte by byte, so a held call is
// scanned once however it is split.
type jsonDepth struct {
	depth    int
	inString bool
	escaped  bool
}

// scan advances *pos over b until the value closes (done, *pos after it) or
// a byte that cannot be JSON outside a string is met (bad, *pos at it).
// Whether the value is valid JSON is left to the decoder.
func (s *jsonDepth) scan(b []byte, pos *int) (done, bad bool) {
	for i := *pos; i < len(b); i++ {
		c := b[i]
		if s.inString {
			switch {
			case s.escaped:
				s.escaped = false
			case c == '\\':
				s.escaped = true
			case c == '"':
				s.inString = false
			}
			continue
		}
		switch {
		case c == '"':
			s.inString = true
		case c == '{' || c == '[':
			s.depth++
		case c == '}' || c == ']':
			if s.depth--; s.depth == 0 {
				*pos = i + 1
				return true, false
			}
		case !isJSONByte(c):
			*pos = i
			return false, true
		}
	}
	*pos = len(b)
	return false, false
}

type tagMatch uint8

const (
	noMatch   tagMatch = iota
	partMatch          // b is shorter than a tag and starts it: more text is needed
	fullMatch
)

// matchTag reports which of tags b starts with.
func matchTag(b []byte, tags []string) (string, tagMatch) {
	m := noMatch
	for _, t := range tags {
		if len(b) >= len(t) {
			if string(b[:len(t)]) == t {
				return t, fullMatch
			}
		} else if string(b) == t[:len(b)] {
			m = partMatch
		}
	}
	return "", m
}

// partialSuffix returns the length of the longest tail of b that is a
// proper prefix of tag.
func partialSuffix(b []byte, tag string) int {
	for n := min(len(b), len(tag)-1); n > 0; n-- {
		if string(b[len(b)-n:]) == tag[:n] {
			return n
		}
	}
	return 0
}

func hasMarkerByte(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '<' || s[i] == '[' {
			return true
		}
	}
	return false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t'
}

func isNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '_' || c == '-' || c == '.'
}

// isJSONByte reports whether c may appear in JSON outside a string, other
// than a quote or a bracket: whitespace, separators, numbers and literals.
func isJSONByte(c byte) bool {
	return isSpace(c) || c == ',' || c == ':' || c == '-' || c == '+' || c == '.' ||
		'0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

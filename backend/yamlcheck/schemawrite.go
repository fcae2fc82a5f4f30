package yamlcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Obj is a JSON object that keeps its keys in the order written, for
// writing a schema as a person would.
type Obj []Member

// Member is one key of an Obj (a string) and its value (a string, bool,
// int, float64, []any, []string or Obj). It is an array, not a struct, so
// that a schema reads as {"type", "string"} without field names.
type Member [2]any

// Key is the member's key.
func (m Member) Key() string { return m[0].(string) }

// WriteSchema writes a schema as JSON indented by two spaces, ending in a
// newline (see writeSchemaJSON).
func WriteSchema(doc Obj) []byte {
	var b bytes.Buffer
	writeSchemaJSON(&b, doc, "")
	b.WriteByte('\n')
	return b.Bytes()
}

// FormatNumber writes f as JSON would, without an exponent.
func FormatNumber(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// writeSchemaJSON writes v indented by two spaces, with lists of plain
// values, references and other short objects without a description on
// one line, as a person would write the schema.
func writeSchemaJSON(b *bytes.Buffer, v any, indent string) {
	switch v := v.(type) {
	case Obj:
		if oneLine(v) {
			b.WriteString(compactJSON(v))
			return
		}
		b.WriteString("{\n")
		for i, m := range v {
			b.WriteString(indent + "  " + jsonString(m.Key()) + ": ")
			writeSchemaJSON(b, m[1], indent+"  ")
			if i < len(v)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case []any:
		if oneLineList(v) {
			b.WriteString(compactJSON(v))
			return
		}
		b.WriteString("[\n")
		for i, e := range v {
			b.WriteString(indent + "  ")
			writeSchemaJSON(b, e, indent+"  ")
			if i < len(v)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	default:
		b.WriteString(compactJSON(v))
	}
}

func oneLine(o Obj) bool {
	if len(o) > 0 && o[0].Key() == "$ref" && len(o) <= 2 {
		return true
	}
	for _, m := range o {
		if m.Key() == "description" {
			return false
		}
		if inner, ok := m[1].(Obj); ok && !oneLine(inner) {
			return false
		}
	}
	return len(compactJSON(o)) <= 100
}

func oneLineList(l []any) bool {
	for _, e := range l {
		switch e := e.(type) {
		case []any:
			return false
		case Obj:
			if !oneLine(e) {
				return false
			}
		}
	}
	return len(compactJSON(l)) <= 100
}

// compactJSON writes v on one line: { "a": 1 }, ["x", "y"].
func compactJSON(v any) string {
	switch v := v.(type) {
	case Obj:
		if len(v) == 0 {
			return "{}"
		}
		parts := make([]string, len(v))
		for i, m := range v {
			parts[i] = jsonString(m.Key()) + ": " + compactJSON(m[1])
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = compactJSON(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []string:
		parts := make([]any, len(v))
		for i, e := range v {
			parts[i] = e
		}
		return compactJSON(parts)
	case string:
		return jsonString(v)
	case float64:
		return FormatNumber(v)
	case int:
		return strconv.Itoa(v)
	case bool:
		return strconv.FormatBool(v)
	}
	panic(fmt.Sprintf("yamlcheck: no JSON for %T in the schema", v))
}

// jsonString quotes s for JSON, leaving <, > and & as they are.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

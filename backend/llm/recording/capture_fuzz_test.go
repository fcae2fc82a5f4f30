package recording_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"testing"
	"unicode/utf8"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
)

// FuzzCanonicalRequest checks the capture key's canonical form: it never
// panics, it is deterministic, it is valid JSON that decodes to a
// CanonicalForm, Key is the SHA-256 of it, CanonicalArguments is
// idempotent, and the order of object keys (and whitespace and string
// escaping) in tool-call arguments, tool parameters and response schemas
// does not change the key.
func FuzzCanonicalRequest(f *testing.F) {
	for _, s := range []struct {
		model, content, args string
		params               []byte
		temp                 float32
	}{
		{"m", "hello", `{"b":1,"a":[{"y":2,"x":"<&>"}]}`, []byte(`{"type":"object","properties":{"q":{"type":"string"}}}`), 0.2},
		{"gpt-5", "", `{"path":"a.txt"}`, nil, 0},
		{"", "\xff\xfe", `not json`, []byte(`{`), -1},
		{"m", "x", `{"a":1,"a":2}`, []byte(`{"b":{"d":1,"c":2},"a":null}`), 1e30},
		{"m", "x", `{"n":1.0,"m":1e400,"k":-0}`, []byte(`[1,"2",{"z":true}]`), float32(3.4e38)},
		{"m", "x", `{"\u0061":"\u00e9\ud800","b":"\u003c"}`, []byte(" \n{\"a\" : 1 }\n"), 0},
		{"m", "x", `  {"deep":[[[[{"b":[],"a":{}}]]]]}  `, []byte(`"just a string"`), 0},
		{"m", "x", "{\"k\":\"\xff\"}", []byte("{\"\xff\":1,\"\xfe\":2}"), 0},
		{"m", "x", "", []byte(""), 0},
	} {
		f.Add(s.model, s.content, s.args, s.params, s.temp)
	}
	f.Fuzz(func(t *testing.T, model, content, args string, params []byte, temp float32) {
		req := fuzzCanonicalReq(model, content, args, params, temp)
		canon := recording.CanonicalRequest(req)
		if again := recording.CanonicalRequest(req); !bytes.Equal(canon, again) {
			t.Fatalf("not deterministic:\n%s\n%s", canon, again)
		}
		key := recording.Key(req)
		if sum := sha256.Sum256(canon); key != hex.EncodeToString(sum[:]) || key != recording.Key(req) {
			t.Fatalf("CaptureKey %s is not the SHA-256 of the canonical form", key)
		}
		var form recording.CanonicalForm
		if err := json.Unmarshal(canon, &form); err != nil || form.V != recording.CanonicalVersion || len(form.Messages) != 2 || len(form.Tools) != 1 {
			t.Fatalf("the canonical form does not decode (%v): %s", err, canon)
		}
		if got := form.Messages[1].ToolCalls[0].Arguments; !json.Valid([]byte(args)) && utf8.ValidString(args) && got != args {
			t.Fatalf("invalid JSON arguments %q were changed to %q", args, got)
		}
		ca := recording.CanonicalArguments(args)
		if recording.CanonicalArguments(ca) != ca {
			t.Fatalf("CanonicalArguments is not idempotent: %q -> %q -> %q", args, ca, recording.CanonicalArguments(ca))
		}

		// The same request with keys reordered (and re-spaced, re-escaped)
		// everywhere JSON is canonicalized must have the same key.
		rArgs, okArgs := fuzzReorder([]byte(args))
		rParams, okParams := fuzzReorder(params)
		if !okArgs && !okParams {
			return
		}
		a2, p2 := args, params
		if okArgs {
			a2 = string(rArgs)
		}
		if okParams {
			p2 = rParams
		}
		if k2 := recording.Key(fuzzCanonicalReq(model, content, a2, p2, temp)); k2 != key {
			t.Fatalf("reordering keys changed the capture key\nargs   %q -> %q\nparams %q -> %q\n%s\n%s",
				args, a2, params, p2, canon, recording.CanonicalRequest(fuzzCanonicalReq(model, content, a2, p2, temp)))
		}
	})
}

// fuzzCanonicalReq puts the fuzzed values everywhere the canonical form
// reads them.
func fuzzCanonicalReq(model, content, args string, params []byte, temp float32) llm.Request {
	return llm.Request{
		Model: model,
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: content},
			{Role: llm.RoleAssistant, Content: content, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "t", Arguments: args}}},
		},
		Tools:          []llm.Tool{{Name: "t", Description: content, Parameters: params}},
		Temperature:    &temp,
		MaxTokens:      len(content),
		ResponseFormat: &llm.ResponseFormat{Type: "json_schema", Name: "s", Schema: params, Strict: true},
		Stop:           []string{content},
	}
}

// fuzzReorder re-encodes one JSON value with the members of every object in
// reverse order, spaces around every token, and strings escaped by
// encoding/json (HTML escaping on). ok is false when data is not exactly
// one JSON value, or when an object repeats a key (then the order decides
// which value wins, and the key may rightly change).
func fuzzReorder(data []byte) ([]byte, bool) {
	if !json.Valid(data) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var buf bytes.Buffer
	if !fuzzReorderValue(dec, &buf) {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return buf.Bytes(), true
}

func fuzzReorderValue(dec *json.Decoder, buf *bytes.Buffer) bool {
	tok, err := dec.Token()
	if err != nil {
		return false
	}
	switch v := tok.(type) {
	case json.Delim:
		if v == '[' {
			buf.WriteString("[ ")
			for i := 0; dec.More(); i++ {
				if i > 0 {
					buf.WriteString(" , ")
				}
				if !fuzzReorderValue(dec, buf) {
					return false
				}
			}
			buf.WriteString(" ]")
			_, err := dec.Token()
			return err == nil
		}
		type member struct {
			key string
			val []byte
		}
		var members []member
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return false
			}
			k, _ := kt.(string)
			if seen[k] {
				return false
			}
			seen[k] = true
			var val bytes.Buffer
			if !fuzzReorderValue(dec, &val) {
				return false
			}
			members = append(members, member{k, val.Bytes()})
		}
		if _, err := dec.Token(); err != nil {
			return false
		}
		buf.WriteString("{ ")
		for i := len(members) - 1; i >= 0; i-- {
			k, _ := json.Marshal(members[i].key)
			buf.Write(k)
			buf.WriteString(" : ")
			buf.Write(members[i].val)
			if i > 0 {
				buf.WriteString(" , ")
			}
		}
		buf.WriteString(" }")
	case json.Number:
		buf.WriteString(v.String())
	default: // string, bool, nil
		b, err := json.Marshal(v)
		if err != nil {
			return false
		}
		buf.Write(b)
	}
	return true
}

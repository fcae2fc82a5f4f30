package recording_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
)

func capF32(v float32) *float32 { return &v }

// captureKeyBase is a request that uses every keyed field.
func captureKeyBase() llm.Request {
	return llm.Request{
		Model: "qwen3:8b",
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You are terse."},
			{Role: llm.RoleUser, Content: "Weather in Oslo?"},
			{Role: llm.RoleAssistant, Content: "", Reasoning: "need the tool", ToolCalls: []llm.ToolCall{
				{ID: "call_1", Name: "weather", Arguments: `{"city":"Oslo","opts":{"units":"metric","days":2}}`},
			}},
			{Role: llm.RoleTool, ToolCallID: "call_1", Name: "weather", Content: `{"temp":3}`},
		},
		Tools: []llm.Tool{{
			Name:        "weather",
			Description: "Current weather.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city"]}`),
		}},
		Temperature:    capF32(0.2),
		TopP:           capF32(0.9),
		MaxTokens:      512,
		ResponseFormat: &llm.ResponseFormat{Type: "json_schema", Name: "answer", Schema: json.RawMessage(`{"type":"object","b":1,"a":2}`), Strict: true},
		Stop:           []string{"\n\n"},
	}
}

func TestCaptureKey(t *testing.T) {
	base := recording.Key(captureKeyBase())
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(base) {
		t.Fatalf("key %q is not lowercase hex SHA-256", base)
	}
	tests := []struct {
		name   string
		change func(r *llm.Request)
		same   bool
	}{
		{"unchanged", func(r *llm.Request) {}, true},
		{"argument key order", func(r *llm.Request) {
			r.Messages[2].ToolCalls[0].Arguments = `{"opts":{"days":2,"units":"metric"},"city":"Oslo"}`
		}, true},
		{"argument whitespace", func(r *llm.Request) {
			r.Messages[2].ToolCalls[0].Arguments = "{ \"city\" : \"Oslo\",\n \"opts\": {\"units\": \"metric\", \"days\": 2} }"
		}, true},
		{"parameter key order", func(r *llm.Request) {
			r.Tools[0].Parameters = json.RawMessage(`{"required":["city"],"properties":{"days":{"type":"integer"},"city":{"type":"string"}},"type":"object"}`)
		}, true},
		{"schema key order", func(r *llm.Request) {
			r.ResponseFormat.Schema = json.RawMessage(`{"a":2,"b":1,"type":"object"}`)
		}, true},
		{"stop", func(r *llm.Request) { r.Stop = []string{"END"} }, true},
		{"no stop", func(r *llm.Request) { r.Stop = nil }, true},
		{"message reasoning", func(r *llm.Request) { r.Messages[2].Reasoning = "other thoughts" }, true},
		{"no tools", func(r *llm.Request) { r.Tools = nil }, false},

		{"model", func(r *llm.Request) { r.Model = "qwen3:14b" }, false},
		{"message text", func(r *llm.Request) { r.Messages[1].Content = "Weather in Bergen?" }, false},
		{"message role", func(r *llm.Request) { r.Messages[0].Role = llm.RoleUser }, false},
		{"extra message", func(r *llm.Request) {
			r.Messages = append(r.Messages, llm.Message{Role: llm.RoleUser, Content: "thanks"})
		}, false},
		{"tool call id", func(r *llm.Request) { r.Messages[2].ToolCalls[0].ID = "call_2" }, false},
		{"tool call name", func(r *llm.Request) { r.Messages[2].ToolCalls[0].Name = "forecast" }, false},
		{"tool call arguments", func(r *llm.Request) {
			r.Messages[2].ToolCalls[0].Arguments = `{"city":"Oslo","opts":{"units":"metric","days":3}}`
		}, false},
		{"argument number spelling", func(r *llm.Request) {
			r.Messages[2].ToolCalls[0].Arguments = `{"city":"Oslo","opts":{"units":"metric","days":2.0}}`
		}, false},
		{"invalid arguments", func(r *llm.Request) { r.Messages[2].ToolCalls[0].Arguments = `{"city":"Oslo"` }, false},
		{"tool result call id", func(r *llm.Request) { r.Messages[3].ToolCallID = "call_9" }, false},
		{"tool result name", func(r *llm.Request) { r.Messages[3].Name = "forecast" }, false},
		{"tool result content", func(r *llm.Request) { r.Messages[3].Content = `{"temp":4}` }, false},
		{"tool name", func(r *llm.Request) { r.Tools[0].Name = "forecast" }, false},
		{"tool description", func(r *llm.Request) { r.Tools[0].Description = "Weather now." }, false},
		{"tool parameters", func(r *llm.Request) { r.Tools[0].Parameters = json.RawMessage(`{"type":"object"}`) }, false},
		{"extra tool", func(r *llm.Request) { r.Tools = append(r.Tools, llm.Tool{Name: "time"}) }, false},
		{"temperature", func(r *llm.Request) { r.Temperature = capF32(0.7) }, false},
		{"temperature unset", func(r *llm.Request) { r.Temperature = nil }, false},
		{"temperature zero vs unset", func(r *llm.Request) { r.Temperature = capF32(0) }, false},
		{"top_p", func(r *llm.Request) { r.TopP = capF32(1) }, false},
		{"max tokens", func(r *llm.Request) { r.MaxTokens = 1024 }, false},
		{"response format type", func(r *llm.Request) { r.ResponseFormat.Type = "json_object" }, false},
		{"response format name", func(r *llm.Request) { r.ResponseFormat.Name = "reply" }, false},
		{"response format strict", func(r *llm.Request) { r.ResponseFormat.Strict = false }, false},
		{"response format schema", func(r *llm.Request) { r.ResponseFormat.Schema = json.RawMessage(`{"type":"array"}`) }, false},
		{"response format unset", func(r *llm.Request) { r.ResponseFormat = nil }, false},
		{"an image added", func(r *llm.Request) {
			r.Messages[1].Images = []llm.Image{{MIME: "image/png", Data: []byte("png bytes")}}
		}, false},
		{"an empty image list", func(r *llm.Request) { r.Messages[1].Images = []llm.Image{} }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := captureKeyBase()
			tt.change(&req)
			got := recording.Key(req)
			if same := got == base; same != tt.same {
				t.Errorf("same key = %v, want %v\nbase:    %s\nchanged: %s", same, tt.same,
					recording.CanonicalRequest(captureKeyBase()), recording.CanonicalRequest(req))
			}
			if again := recording.Key(req); again != got {
				t.Errorf("key not deterministic: %s then %s", got, again)
			}
		})
	}
}

// TestCanonicalRequestGolden pins the canonical form and its key: if this
// fails, recordings made before the change will no longer replay. Change the
// form deliberately (and bump llm.CanonicalVersion), then update the pins.
func TestCanonicalRequestGolden(t *testing.T) {
	req := llm.Request{
		Model: "m",
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: "a <b> & c"},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
				{ID: "c1", Name: "f", Arguments: `{"z": 1, "a": [ {"y":true,"x":null} ]}`},
				{ID: "c2", Name: "g", Arguments: `not json`},
			}},
			{Role: llm.RoleTool, ToolCallID: "c1", Name: "f", Content: "ok"},
		},
		Tools:       []llm.Tool{{Name: "f", Description: "d", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}, {Name: "g"}},
		Temperature: capF32(0.2),
		MaxTokens:   100,
		Stop:        []string{"x"},
	}
	const wantForm = `{"v":1,"model":"m","messages":[` +
		`{"role":"user","content":"a <b> & c","tool_calls":[],"tool_call_id":"","name":""},` +
		`{"role":"assistant","content":"","tool_calls":[{"id":"c1","name":"f","arguments":"{\"a\":[{\"x\":null,\"y\":true}],\"z\":1}"},{"id":"c2","name":"g","arguments":"not json"}],"tool_call_id":"","name":""},` +
		`{"role":"tool","content":"ok","tool_calls":[],"tool_call_id":"c1","name":"f"}],` +
		`"tools":[{"name":"f","description":"d","parameters":{"properties":{},"type":"object"}},{"name":"g","description":"","parameters":null}],` +
		`"temperature":"0.2","top_p":null,"max_tokens":100,"response_format":null}`
	const wantKey = "bc807122f010f5e4e6ae66be71a620eca4a83460ccbda65e2b9c34ce53380755"
	if got := string(recording.CanonicalRequest(req)); got != wantForm {
		t.Errorf("canonical form changed:\ngot  %s\nwant %s", got, wantForm)
	}
	if got := recording.Key(req); got != wantKey {
		t.Errorf("CaptureKey = %s, want %s", got, wantKey)
	}
}

func TestCanonicalRequestInvalidParameters(t *testing.T) {
	req := llm.Request{Model: "m", Tools: []llm.Tool{{Name: "f", Parameters: json.RawMessage(`{"type":`)}}}
	var f recording.CanonicalForm
	if err := json.Unmarshal(recording.CanonicalRequest(req), &f); err != nil {
		t.Fatalf("canonical form is not valid JSON: %v", err)
	}
	if got := string(f.Tools[0].Parameters); got != `"{\"type\":"` {
		t.Errorf("invalid parameters kept as %s, want a JSON string of the raw text", got)
	}
}

func TestCaptureKeyNilAndEmptyAreEqual(t *testing.T) {
	a := llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}
	b := llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi", ToolCalls: []llm.ToolCall{}}}, Tools: []llm.Tool{}, Stop: []string{}}
	if recording.Key(a) != recording.Key(b) {
		t.Errorf("nil and empty slices give different keys:\n%s\n%s", recording.CanonicalRequest(a), recording.CanonicalRequest(b))
	}
}

// TestCaptureKeyOfImages: an image enters the key by its type and the hash
// of its bytes, so other bytes give another key, the same bytes named or
// sized differently the same key, and a message read back with only the
// image's hash (no bytes) the same key as when it was sent.
func TestCaptureKeyOfImages(t *testing.T) {
	with := func(im ...llm.Image) string {
		return recording.Key(llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "what is this?", Images: im}}})
	}
	png := llm.Image{MIME: "image/png", Data: []byte("\x89PNG one")}
	key := with(png)
	if with(llm.Image{MIME: "image/png", Data: []byte("\x89PNG two")}) == key {
		t.Error("other bytes gave the same key")
	}
	if with(llm.Image{MIME: "image/jpeg", Data: png.Data}) == key {
		t.Error("another type gave the same key")
	}
	if with(llm.Image{MIME: "image/png", Data: png.Data, Name: "other.png", Width: 9, ID: "x"}) != key {
		t.Error("the name, size or id changed the key")
	}
	if with(llm.Image{MIME: "image/png", SHA256: recording.ImageSHA256(png)}) != key {
		t.Error("the image named by its hash gave another key than its bytes")
	}
	if with(png, png) == key {
		t.Error("two images gave the key of one")
	}
	if !strings.Contains(string(recording.CanonicalRequest(llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Images: []llm.Image{png}}}})), `"images":[{"mime":"image/png","sha256":"`) {
		t.Error("the canonical form does not list the image")
	}
}

// TestCaptureKeySeedAndEffort: a seed or a reasoning effort changes the
// key when set, and leaves the form of a request without them as it was
// (the golden form above has neither).
func TestCaptureKeySeedAndEffort(t *testing.T) {
	base := llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}
	if strings.Contains(string(recording.CanonicalRequest(base)), "seed") {
		t.Error("an unset seed is in the canonical form")
	}
	one, two := int64(1), int64(2)
	withSeed := func(s *int64) llm.Request { r := base; r.Seed = s; return r }
	if recording.Key(withSeed(&one)) == recording.Key(base) || recording.Key(withSeed(&one)) == recording.Key(withSeed(&two)) {
		t.Error("the seed does not change the key")
	}
	effort := base
	effort.ReasoningEffort = "high"
	if recording.Key(effort) == recording.Key(base) {
		t.Error("the reasoning effort does not change the key")
	}
}

package tokens

import (
	"encoding/json"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// cookbookMessages are the example messages of OpenAI's cookbook "How to
// count tokens with tiktoken", for which the API reported 129 prompt
// tokens (gpt-3.5-turbo, gpt-4) and 124 (gpt-4o, gpt-4o-mini).
var cookbookMessages = []llm.Message{
	{Role: llm.RoleSystem, Content: "You are a helpful, pattern-following assistant that translates corporate jargon into plain English."},
	{Role: llm.RoleSystem, Name: "example_user", Content: "New synergies will help drive top-line growth."},
	{Role: llm.RoleSystem, Name: "example_assistant", Content: "Things working well together will increase revenue."},
	{Role: llm.RoleSystem, Name: "example_user", Content: "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage."},
	{Role: llm.RoleSystem, Name: "example_assistant", Content: "Let's talk later when we're less busy about how to do better."},
	{Role: llm.RoleUser, Content: "This late pivot means we don't have time to boil the ocean for the client deliverable."},
}

// The same cookbook's tools example: the API reported 105 prompt tokens
// (gpt-3.5-turbo, gpt-4) and 101 (gpt-4o, gpt-4o-mini).
var (
	weatherMessages = []llm.Message{
		{Role: llm.RoleSystem, Content: "You are a helpful assistant that can answer to questions about the weather."},
		{Role: llm.RoleUser, Content: "What's the weather like in San Francisco?"},
	}
	weatherTools = []llm.Tool{{
		Name:        "get_current_weather",
		Description: "Get the current weather in a given location",
		Parameters: json.RawMessage(`{
			"type": "object",
			"properties": {
				"location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
				"unit": {"type": "string", "description": "The unit of temperature to return", "enum": ["celsius", "fahrenheit"]}
			},
			"required": ["location"]
		}`),
	}}
)

// Prompt matches the prompt_tokens OpenAI's API reported for the
// cookbook's examples.
func TestPromptPublished(t *testing.T) {
	tests := []struct {
		name  string
		model string
		msgs  []llm.Message
		tools []llm.Tool
		want  int
	}{
		{"messages gpt-4", "gpt-4", cookbookMessages, nil, 129},
		{"messages gpt-3.5-turbo", "gpt-3.5-turbo", cookbookMessages, nil, 129},
		{"messages gpt-4o", "gpt-4o", cookbookMessages, nil, 124},
		{"messages gpt-4o-mini", "openai/gpt-4o-mini", cookbookMessages, nil, 124},
		{"tools gpt-4", "gpt-4", weatherMessages, weatherTools, 105},
		{"tools gpt-3.5-turbo", "gpt-3.5-turbo", weatherMessages, weatherTools, 105},
		{"tools gpt-4o", "gpt-4o", weatherMessages, weatherTools, 101},
		{"tools gpt-4o-mini", "gpt-4o-mini", weatherMessages, weatherTools, 101},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, _ := c.Prompt(tt.model, tt.msgs, tt.tools); got != tt.want {
				t.Errorf("Prompt = %d, want %d", got, tt.want)
			}
		})
	}
}

// The overhead arithmetic, on the estimate path where every piece's count
// is plain (bytes+3)/4: 3 a message, 1 more with a name, 85 an image, 3
// for the reply, tool calls' names and arguments, and tools as JSON text.
func TestPromptArithmetic(t *testing.T) {
	const model = "llama-3.1-8b-instruct"
	tests := []struct {
		name  string
		msgs  []llm.Message
		tools []llm.Tool
		want  int
	}{
		{"nothing", nil, nil, 0},
		// 3 + role "user" 1 + "abcdefgh" 2, + 3 for the reply
		{"one message", []llm.Message{{Role: llm.RoleUser, Content: "abcdefgh"}}, nil, 3 + 1 + 2 + 3},
		// 3 + role "tool" 1 + "ok" 1 + name: 1 + "get_time" 2, + 3
		{"named", []llm.Message{{Role: llm.RoleTool, Name: "get_time", Content: "ok"}}, nil, 3 + 1 + 1 + 1 + 2 + 3},
		// 3 + "assistant" 3 + "" 0 + calls ("read" 1 + `{"p":"a.go"}` 3) + ("ls" 1 + "{}" 1), + 3
		{"tool calls", []llm.Message{{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
			{ID: "c1", Name: "read", Arguments: `{"p":"a.go"}`},
			{ID: "c2", Name: "ls", Arguments: "{}"},
		}}}, nil, 3 + 3 + 1 + 3 + 1 + 1 + 3},
		// 3 + "user" 1 + "look" 1 + 2 images × 85, + 3
		{"images", []llm.Message{{Role: llm.RoleUser, Content: "look", Images: []llm.Image{{MIME: "image/png"}, {MIME: "image/jpeg"}}}}, nil, 3 + 1 + 1 + 170 + 3},
		// reasoning is not sent to OpenAI and not counted
		{"reasoning ignored", []llm.Message{{Role: llm.RoleAssistant, Content: "done", Reasoning: "long thoughts that are not counted"}}, nil, 3 + 3 + 1 + 3},
		// 3 + "user" 1 + "hi" 1, + 3, + tool ("echo" 1 + "Echo." 2 + `{"type":"object"}` 5)
		{"tools as JSON", []llm.Message{{Role: llm.RoleUser, Content: "hi"}},
			[]llm.Tool{{Name: "echo", Description: "Echo.", Parameters: json.RawMessage(`{"type":"object"}`)}}, 3 + 1 + 1 + 3 + 1 + 2 + 5},
		{"two messages", []llm.Message{{Role: llm.RoleSystem, Content: "abcd"}, {Role: llm.RoleUser, Content: "abcd"}}, nil, (3 + 2 + 1) + (3 + 1 + 1) + 3},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, m := c.Prompt(model, tt.msgs, tt.tools)
			if m != MethodEstimate {
				t.Errorf("method %q, want %q", m, MethodEstimate)
			}
			if got != tt.want {
				t.Errorf("Prompt = %d, want %d", got, tt.want)
			}
		})
	}
}

// On an exact path the overhead is the same: Prompt is the sum of Text
// over the message's parts plus the fixed costs.
func TestPromptOverheadExact(t *testing.T) {
	c := New()
	for _, model := range []string{"gpt-4o", "gpt-4"} {
		t.Run(model, func(t *testing.T) {
			text := func(s string) int { n, _ := c.Text(model, s); return n }
			msgs := []llm.Message{
				{Role: llm.RoleSystem, Content: "Be brief."},
				{Role: llm.RoleUser, Content: "What time is it?", Images: []llm.Image{{MIME: "image/png"}}},
				{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "1", Name: "clock", Arguments: `{"tz":"UTC"}`}}},
				{Role: llm.RoleTool, Name: "clock", ToolCallID: "1", Content: "12:00"},
			}
			want := 3 + text("system") + text("Be brief.") +
				3 + text("user") + text("What time is it?") + 85 +
				3 + text("assistant") + text("clock") + text(`{"tz":"UTC"}`) +
				3 + text("tool") + text("12:00") + 1 + text("clock") +
				3
			if got, _ := c.Prompt(model, msgs, nil); got != want {
				t.Errorf("Prompt = %d, want %d", got, want)
			}
		})
	}
}

// Tool schemas the cookbook's rule does not cover still count: nested
// schemas by their JSON text, and parameters that are not an object as
// their text.
func TestPromptToolSchemas(t *testing.T) {
	c := New()
	const model = "gpt-4o"
	text := func(s string) int { n, _ := c.Text(model, s); return n }
	tests := []struct {
		name   string
		params string
		want   int // beyond funcEnd 12 + funcInit 7 + "f:d"
	}{
		{"no parameters", ``, 0},
		{"no properties", `{"type":"object"}`, 0},
		{"not JSON", `not json`, text("not json")},
		{"flat", `{"properties":{"a":{"type":"string","description":"An a."}}}`, 3 + 3 + text("a:string:An a")},
		{"empty enum", `{"properties":{"a":{"type":"string","enum":[]}}}`, 3 + 3 - 3 + text("a:string:")},
		{"nested items", `{"properties":{"xs":{"type":"array","items":{"type":"integer"}}}}`,
			3 + 3 + text("xs:array:") + text(`{"type":"integer"}`)},
		{"type list", `{"properties":{"a":{"type":["string","null"]}}}`, 3 + 3 + text(`a:["string","null"]:`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tools := []llm.Tool{{Name: "f", Description: "d", Parameters: json.RawMessage(tt.params)}}
			got, _ := c.Prompt(model, nil, tools)
			want := 3 + 12 + 7 + text("f:d") + tt.want // 3: the reply's priming
			if got != want {
				t.Errorf("Prompt = %d, want %d", got, want)
			}
		})
	}
}

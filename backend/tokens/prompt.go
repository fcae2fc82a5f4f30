package tokens

import (
	"encoding/json"
	"strings"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// OpenAI's chat format costs, as its cookbook counts them ("How to count
// tokens with tiktoken", where they match the API's prompt_tokens for
// GPT-3.5 Turbo, GPT-4 and GPT-4o): each message is wrapped as
// <|start|>{role}<|message|>{content}<|end|>, and the reply is primed with
// <|start|>assistant<|message|>. The estimate path uses them too: a chat
// template wraps messages in a few tokens of its own in much the same way.
const (
	perMessage   = 3
	perName      = 1
	replyPriming = 3
	// ImageTokens is what an attached image counts as: OpenAI's flat cost
	// of a low-detail image. A high-detail one costs 85 + 170 per 512-pixel
	// tile, and other servers differ again; Corrected absorbs the
	// difference once a server has reported prompt_tokens.
	ImageTokens = 85
)

// Prompt counts a chat request as the server would see it: each message's
// role, content, name and tool calls (name and arguments) with the chat
// format's overhead per message and for the reply, a flat ImageTokens per
// image, and the tool definitions.
//
// Not counted: reasoning sent back on assistant messages (OpenAI does not
// take it, other servers differ) and tool-call IDs. Tools are counted the
// way OpenAI renders them for exact methods, and as their JSON text, as
// chat templates of open models write them, for the estimate.
func (c *Counter) Prompt(model string, msgs []llm.Message, tools []llm.Tool) (int, Method) {
	m := MethodFor(model)
	if len(msgs) == 0 && len(tools) == 0 {
		return 0, m
	}
	n := replyPriming
	for _, msg := range msgs {
		n += c.message(m, msg)
	}
	return n + c.tools(m, tools), m
}

func (c *Counter) message(m Method, msg llm.Message) int {
	n := perMessage + c.count(m, string(msg.Role)) + c.count(m, msg.Content)
	if msg.Name != "" {
		n += perName + c.count(m, msg.Name)
	}
	for _, tc := range msg.ToolCalls {
		n += c.count(m, tc.Name) + c.count(m, tc.Arguments)
	}
	return n + ImageTokens*len(msg.Images)
}

// toolCosts are the fixed costs of OpenAI's rendering of function
// definitions, from the same cookbook (measured there against the API).
type toolCosts struct {
	funcInit, propInit, propKey, enumInit, enumItem, funcEnd int
}

var (
	o200kTools  = toolCosts{funcInit: 7, propInit: 3, propKey: 3, enumInit: -3, enumItem: 3, funcEnd: 12}
	cl100kTools = toolCosts{funcInit: 10, propInit: 3, propKey: 3, enumInit: -3, enumItem: 3, funcEnd: 12}
)

func (c *Counter) tools(m Method, tools []llm.Tool) int {
	if len(tools) == 0 {
		return 0
	}
	if !m.Exact() {
		n := 0
		for _, t := range tools {
			n += llm.EstimateTokens(t.Name) + llm.EstimateTokens(t.Description) + llm.EstimateTokens(string(t.Parameters))
		}
		return n
	}
	k := cl100kTools
	if m == MethodO200k {
		k = o200kTools
	}
	n := k.funcEnd
	for _, t := range tools {
		n += k.funcInit + c.count(m, t.Name+":"+strings.TrimSuffix(t.Description, "."))
		n += c.params(m, k, t.Parameters)
	}
	return n
}

// property is what OpenAI's rendering reads of a parameter's schema.
type property struct {
	Type        json.RawMessage   `json:"type"`
	Description string            `json:"description"`
	Enum        []json.RawMessage `json:"enum"`
	Items       json.RawMessage   `json:"items"`
	Properties  json.RawMessage   `json:"properties"`
}

// params counts a function's parameters as "name:type:description" lines
// with their enum values. The cookbook's rule covers top-level properties
// only; a nested object or array schema adds its JSON text, roughly what
// it costs. Parameters that are not a JSON object count as their text.
func (c *Counter) params(m Method, k toolCosts, raw json.RawMessage) int {
	if len(raw) == 0 {
		return 0
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		return c.count(m, string(raw))
	}
	if len(schema.Properties) == 0 {
		return 0
	}
	n := k.propInit
	for name, raw := range schema.Properties {
		n += k.propKey
		var p property
		if err := json.Unmarshal(raw, &p); err != nil {
			n += c.count(m, name+":"+string(raw))
			continue
		}
		if p.Enum != nil {
			n += k.enumInit
			for _, e := range p.Enum {
				n += k.enumItem + c.count(m, jsonText(e))
			}
		}
		n += c.count(m, name+":"+jsonText(p.Type)+":"+strings.TrimSuffix(p.Description, "."))
		n += c.count(m, string(p.Items)) + c.count(m, string(p.Properties))
	}
	return n
}

// jsonText is a JSON string's text, or any other JSON value as written.
func jsonText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

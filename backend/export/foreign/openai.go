package foreign

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// Plain OpenAI-format messages: a JSON list of {role, content}, an object
// {"messages": [...]} (one conversation), a list of such objects, JSONL
// with a message a line (one conversation) or JSONL with {"messages":
// [...]} a line (a conversation a line, as fine-tuning data is). Content
// is a string or a list of parts (text, image_url); tool calls and tool
// results are kept as messages.
type oaiMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Name       string          `json:"name"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	Model string `json:"model"`
}

type oaiConversation struct {
	Title    string            `json:"title"`
	Model    string            `json:"model"`
	Messages []json.RawMessage `json:"messages"`
}

func readOpenAI(data []byte) ([]*conv, error) {
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	if !json.Valid(trimmed) {
		return readJSONL(data)
	}
	if trimmed[0] == '{' {
		c, err := readOAIConversation(trimmed, "")
		if err != nil {
			return nil, err
		}
		return []*conv{c}, nil
	}
	var list []json.RawMessage
	_ = json.Unmarshal(trimmed, &list)
	if len(list) > 0 && hasField(list[0], "messages") {
		var out []*conv
		for i, raw := range list {
			c, err := readOAIConversation(raw, fmt.Sprintf("[%d]", i))
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
		return out, nil
	}
	c := newConv("")
	for i, raw := range list {
		if err := c.addOAI(raw, fmt.Sprintf("[%d]", i)); err != nil {
			return nil, err
		}
	}
	return []*conv{c}, nil
}

// readJSONL reads a line at a time; a fault is named by its line.
func readJSONL(data []byte) ([]*conv, error) {
	lines := bytes.Split(data, []byte("\n"))
	var out []*conv
	var one *conv // the conversation of a file of messages
	for i, line := range lines {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		at := fmt.Sprintf("%d:", i+1)
		if !json.Valid(line) {
			var v any
			err := json.Unmarshal(line, &v)
			msg := "is not valid JSON"
			if se, ok := err.(*json.SyntaxError); ok {
				at = fmt.Sprintf("%d:%d:", i+1, se.Offset)
				msg += ": " + se.Error()
			}
			return nil, errAt(at, "%s", msg)
		}
		if hasField(line, "messages") {
			c, err := readOAIConversation(line, at)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
			continue
		}
		if one == nil {
			one = newConv("")
			out = append(out, one)
		}
		if err := one.addOAI(line, at); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func hasField(raw []byte, name string) bool {
	var o map[string]json.RawMessage
	_ = json.Unmarshal(raw, &o)
	_, ok := o[name]
	return ok
}

func readOAIConversation(raw json.RawMessage, at string) (*conv, error) {
	var oc oaiConversation
	if err := decodeAt(raw, &oc, strings.TrimSuffix(at, ":")); err != nil {
		return nil, err
	}
	if oc.Messages == nil {
		return nil, errAt(pathIn(at, "messages"), "is missing")
	}
	c := newConv(oc.Title)
	c.model = oc.Model
	for i, m := range oc.Messages {
		if err := c.addOAI(m, pathIn(at, fmt.Sprintf("messages[%d]", i))); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// pathIn is a path below at, where at may be a line ("3:").
func pathIn(at, p string) string {
	if strings.HasSuffix(at, ":") {
		return at + " " + p
	}
	return joinPath(at, p)
}

// addOAI appends a message to a conversation that is one line of
// messages: each follows the one before.
func (c *conv) addOAI(raw json.RawMessage, at string) error {
	var m oaiMessage
	if err := decodeAt(raw, &m, strings.TrimSuffix(at, ":")); err != nil {
		return err
	}
	role := llm.Role(m.Role)
	switch m.Role {
	case "user", "assistant", "system", "tool":
	case "developer":
		role = llm.RoleSystem
	case "function":
		role = llm.RoleTool
	default:
		return errAt(pathIn(at, "role"), "is %q, which is not a role a chat message can have", m.Role)
	}
	text, err := openAIContent(c, m.Content, pathIn(at, "content"))
	if err != nil {
		return err
	}
	msg := &llm.Message{Role: role, Content: text, ToolCallID: m.ToolCallID}
	if role == llm.RoleTool {
		msg.Name = m.Name
	}
	for _, tc := range m.ToolCalls {
		args := string(tc.Function.Arguments)
		var s string
		if json.Unmarshal(tc.Function.Arguments, &s) == nil {
			args = s // arguments are a JSON string holding JSON
		}
		msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: args})
	}
	id := fmt.Sprintf("m%d", len(c.order))
	n := &node{id: id, model: m.Model}
	if len(c.order) > 0 {
		n.parent = c.order[len(c.order)-1]
	}
	if text != "" || len(msg.ToolCalls) > 0 || role == llm.RoleTool {
		n.msg = msg
	}
	c.add(n)
	c.link()
	c.current = id
	return nil
}

// openAIContent is a message's text: a string, or a list of parts whose
// text parts are kept; an image part is named as a missing attachment
// (an image given by address) or counted as left out (inline).
func openAIContent(c *conv, raw json.RawMessage, at string) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errAt(at, "is neither text nor a list of parts")
	}
	var out []string
	for i, p := range parts {
		pat := fmt.Sprintf("%s[%d]", at, i)
		var part struct {
			Type     string          `json:"type"`
			Text     string          `json:"text"`
			ImageURL json.RawMessage `json:"image_url"`
		}
		if err := decodeAt(p, &part, pat); err != nil {
			return "", err
		}
		switch part.Type {
		case "text", "input_text", "output_text":
			out = append(out, part.Text)
		case "image_url", "input_image", "image":
			var u struct {
				URL string `json:"url"`
			}
			if json.Unmarshal(part.ImageURL, &u) != nil {
				_ = json.Unmarshal(part.ImageURL, &u.URL)
			}
			if strings.HasPrefix(u.URL, "data:") {
				c.left.add("inline image", "inline images", 1)
				continue
			}
			out = append(out, attachmentOf(c, "image", u.URL))
		default:
			c.left.add(part.Type+" part", part.Type+" parts", 1)
		}
	}
	return strings.Join(out, "\n"), nil
}

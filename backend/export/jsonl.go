package export

import (
	"context"
	"encoding/json"
	"io"
	"strings"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// writeJSONL writes the session as chat fine-tuning data in OpenAI's
// format: one JSON object per line, {"messages": [...]}.
//
// There is one line per completed turn, holding the conversation from the
// start of the session up to and including that turn, which is how chat
// data is usually exported: each line teaches one answer in its context.
// So that a trainer learns each answer once, the assistant messages of
// earlier turns carry "weight": 0 (OpenAI's switch for messages that are
// context only). Turns that did not complete (stopped, failed, interrupted,
// running) get no line of their own, since their answers are not ones to
// learn, but stay in the context of later lines, as the model saw them.
// Agentdeck does not store system prompts, so lines have no system
// message; reasoning text is left out.
func writeJSONL(ctx context.Context, w io.Writer, doc *Document) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	var convo []chatMessage
	for i := range doc.Turns {
		if err := ctx.Err(); err != nil {
			return err
		}
		t := &doc.Turns[i]
		// Messages of earlier turns are context only.
		for j := range convo {
			if convo[j].Role == string(llm.RoleAssistant) && convo[j].Weight == nil {
				convo[j].Weight = new(int)
			}
		}
		answered := map[string]bool{}
		for _, m := range t.Messages {
			if m.Role == llm.RoleTool {
				answered[m.ToolCallID] = true
			}
		}
		answers := false
		for _, m := range t.Messages {
			cm, ok := toChatMessage(m, answered)
			if !ok {
				continue
			}
			if cm.Role == string(llm.RoleAssistant) {
				answers = true
			}
			convo = append(convo, cm)
		}
		if t.State != StateCompleted || !answers || convo[len(convo)-1].Role != string(llm.RoleAssistant) {
			continue
		}
		if err := enc.Encode(chatLine{Messages: convo}); err != nil {
			return err
		}
	}
	return nil
}

// chatLine is one training example.
type chatLine struct {
	Messages []chatMessage `json:"messages"`
}

type chatMessage struct {
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	Weight     *int           `json:"weight,omitempty"`
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// toChatMessage converts a stored message. Trainers reject a tool call
// with no tool message answering it (a turn stopped mid-call) and an empty
// assistant message, so those are dropped.
func toChatMessage(m llm.Message, answered map[string]bool) (chatMessage, bool) {
	cm := chatMessage{Role: string(m.Role), Content: m.Content}
	switch m.Role {
	case llm.RoleUser, llm.RoleSystem:
	case llm.RoleAssistant:
		for _, tc := range m.ToolCalls {
			if !answered[tc.ID] {
				continue
			}
			cm.ToolCalls = append(cm.ToolCalls, chatToolCall{ID: tc.ID, Type: "function", Function: chatFunction{Name: tc.Name, Arguments: tc.Arguments}})
		}
		if strings.TrimSpace(m.Content) == "" && len(cm.ToolCalls) == 0 {
			return cm, false
		}
	case llm.RoleTool:
		cm.ToolCallID = m.ToolCallID
	default:
		return cm, false
	}
	return cm, true
}

package foreign

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// An LM Studio conversation file (<createdAt>.conversation.json): a name,
// createdAt in milliseconds, a system prompt, the last model used, and
// messages in order, each with its versions (an edit or a regeneration)
// and the one selected. The messages after a message follow its
// selected version, so the others are branches that end there.
type lmsConversation struct {
	Name          string  `json:"name"`
	CreatedAt     float64 `json:"createdAt"`
	SystemPrompt  string  `json:"systemPrompt"`
	LastUsedModel struct {
		Identifier string `json:"identifier"`
	} `json:"lastUsedModel"`
	Messages []struct {
		Versions          []json.RawMessage `json:"versions"`
		CurrentlySelected int               `json:"currentlySelected"`
	} `json:"messages"`
	AssistantLastMessagedAt float64 `json:"assistantLastMessagedAt"`
}

type lmsVersion struct {
	Type       string            `json:"type"`
	Role       string            `json:"role"`
	Content    []json.RawMessage `json:"content"`
	Steps      []lmsStep         `json:"steps"`
	SenderInfo struct {
		SenderName string `json:"senderName"`
	} `json:"senderInfo"`
}

type lmsStep struct {
	Type    string            `json:"type"`
	Content []json.RawMessage `json:"content"`
	Style   *struct {
		Type string `json:"type"`
	} `json:"style"`
	GenInfo *struct {
		Identifier string `json:"identifier"`
	} `json:"genInfo"`
}

type lmsPart struct {
	Type           string `json:"type"`
	Text           string `json:"text"`
	Name           string `json:"name"`
	FileIdentifier string `json:"fileIdentifier"`
	Identifier     string `json:"identifier"`
	FileType       string `json:"fileType"`
}

func readLMStudio(data []byte) ([]*conv, error) {
	var lc lmsConversation
	if err := decodeAt(data, &lc, ""); err != nil {
		return nil, err
	}
	c := newConv(lc.Name)
	c.created, c.model = epochAny(lc.CreatedAt), lc.LastUsedModel.Identifier
	c.updated = epochAny(lc.AssistantLastMessagedAt)
	parent := ""
	if strings.TrimSpace(lc.SystemPrompt) != "" {
		c.add(&node{id: "system", msg: &llm.Message{Role: llm.RoleSystem, Content: lc.SystemPrompt}})
		parent = "system"
	}
	for i, m := range lc.Messages {
		at := fmt.Sprintf("messages[%d]", i)
		if len(m.Versions) == 0 {
			return nil, errAt(at+".versions", "is empty")
		}
		if m.CurrentlySelected < 0 || m.CurrentlySelected >= len(m.Versions) {
			return nil, errAt(at+".currentlySelected", "is %d, but the message has %d versions", m.CurrentlySelected, len(m.Versions))
		}
		for j, vraw := range m.Versions {
			n, err := lmsNode(c, vraw, fmt.Sprintf("%s.versions[%d]", at, j))
			if err != nil {
				return nil, err
			}
			n.id, n.parent = fmt.Sprintf("%d.%d", i, j), parent
			c.add(n)
		}
		parent = fmt.Sprintf("%d.%d", i, m.CurrentlySelected)
	}
	c.current = parent
	c.link()
	return []*conv{c}, nil
}

func lmsNode(c *conv, raw json.RawMessage, at string) (*node, error) {
	var v lmsVersion
	if err := decodeAt(raw, &v, at); err != nil {
		return nil, err
	}
	role := llm.Role(v.Role)
	switch role {
	case llm.RoleUser, llm.RoleAssistant, llm.RoleSystem:
	case llm.RoleTool:
		// A tool's result: its call is in a step the import leaves out.
		c.left.add("tool call", "tool calls", 1)
		return &node{}, nil
	default:
		return nil, errAt(at+".role", "is %q, which is not a role a chat message can have", v.Role)
	}
	n := &node{model: v.SenderInfo.SenderName}
	var text []string
	parts := func(ps []json.RawMessage, pat string) error {
		for k, p := range ps {
			var part lmsPart
			if err := decodeAt(p, &part, fmt.Sprintf("%s[%d]", pat, k)); err != nil {
				return err
			}
			switch part.Type {
			case "text":
				text = append(text, part.Text)
			case "file":
				text = append(text, attachmentOf(c, part.FileType, firstNonEmpty(part.Name, part.FileIdentifier, part.Identifier)))
			case "toolCallRequest", "toolCallResult":
				c.left.add("tool call", "tool calls", 1)
			default:
				c.left.add(part.Type+" part", part.Type+" parts", 1)
			}
		}
		return nil
	}
	if err := parts(v.Content, at+".content"); err != nil {
		return nil, err
	}
	for k, s := range v.Steps {
		sat := fmt.Sprintf("%s.steps[%d]", at, k)
		if s.GenInfo != nil && s.GenInfo.Identifier != "" {
			n.model = s.GenInfo.Identifier
		}
		if s.Type != "contentBlock" {
			continue // debug info, tool status: the app's own bookkeeping
		}
		if s.Style != nil && s.Style.Type == "thinking" {
			c.left.add("reasoning block", "reasoning blocks", 1)
			continue
		}
		if err := parts(s.Content, sat+".content"); err != nil {
			return nil, err
		}
	}
	if role == llm.RoleUser {
		n.model = ""
	}
	// An empty version still holds its place in the tree: what follows
	// it hangs from it.
	n.msg = &llm.Message{Role: role, Content: strings.TrimSpace(strings.Join(text, "\n"))}
	return n, nil
}

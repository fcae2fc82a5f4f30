package foreign

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// An Open WebUI chat export: a list of {id, title, chat, created_at,
// updated_at} (the export of all chats), or one of them, or the chat
// object itself. The chat holds the message tree (history.messages,
// linked by parentId and childrenIds) and the selected leaf
// (history.currentId); its messages list is the active branch only, so
// the tree is what is read.
type webuiItem struct {
	Title     string          `json:"title"`
	Chat      json.RawMessage `json:"chat"`
	CreatedAt float64         `json:"created_at"`
	UpdatedAt float64         `json:"updated_at"`
}

type webuiChat struct {
	Title   string   `json:"title"`
	Models  []string `json:"models"`
	History *struct {
		Messages  map[string]json.RawMessage `json:"messages"`
		CurrentID string                     `json:"currentId"`
	} `json:"history"`
	Messages  []json.RawMessage `json:"messages"`
	Timestamp float64           `json:"timestamp"`
}

type webuiMessage struct {
	ID          string          `json:"id"`
	ParentID    *string         `json:"parentId"`
	ChildrenIDs []string        `json:"childrenIds"`
	Role        string          `json:"role"`
	Content     json.RawMessage `json:"content"`
	Timestamp   float64         `json:"timestamp"`
	Model       string          `json:"model"`
	Files       []struct {
		Type string `json:"type"`
		Name string `json:"name"`
		URL  string `json:"url"`
	} `json:"files"`
}

func readOpenWebUI(data []byte) ([]*conv, error) {
	var raws []json.RawMessage
	at := func(i int) string { return fmt.Sprintf("[%d]", i) }
	if json.Unmarshal(data, &raws) != nil {
		raws = []json.RawMessage{data}
		at = func(int) string { return "" }
	}
	var out []*conv
	for i, raw := range raws {
		c, err := readWebUIItem(raw, at(i))
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func readWebUIItem(raw json.RawMessage, at string) (*conv, error) {
	var item webuiItem
	if err := decodeAt(raw, &item, at); err != nil {
		return nil, err
	}
	chatRaw, chatAt := item.Chat, joinPath(at, "chat")
	if len(chatRaw) == 0 || string(chatRaw) == "null" {
		chatRaw, chatAt = raw, at // the chat object itself
	}
	var ch webuiChat
	if err := decodeAt(chatRaw, &ch, chatAt); err != nil {
		return nil, err
	}
	if ch.History == nil || ch.History.Messages == nil {
		return nil, errAt(joinPath(chatAt, "history.messages"), "is missing: this is not an Open WebUI chat")
	}
	title := item.Title
	if title == "" {
		title = ch.Title
	}
	c := newConv(title)
	c.created, c.updated = epochAny(item.CreatedAt), epochAny(item.UpdatedAt)
	if c.created.IsZero() {
		c.created = epochAny(ch.Timestamp)
	}
	if len(ch.Models) > 0 {
		c.model = ch.Models[0]
	}
	c.current = ch.History.CurrentID
	hat := joinPath(chatAt, "history.messages")
	for id, mraw := range ch.History.Messages {
		n, err := webuiNode(c, id, mraw, hat+"."+id, ch.History.Messages)
		if err != nil {
			return nil, err
		}
		c.nodes[id] = n
	}
	if c.current != "" && c.nodes[c.current] == nil {
		return nil, errAt(joinPath(chatAt, "history.currentId"), "names message %q, which the chat lacks", c.current)
	}
	c.order = treeOrder(c.nodes)
	if err := unreached(c, hat, "parentId"); err != nil {
		return nil, err
	}
	return c, nil
}

func webuiNode(c *conv, id string, raw json.RawMessage, at string, all map[string]json.RawMessage) (*node, error) {
	var m webuiMessage
	if err := decodeAt(raw, &m, at); err != nil {
		return nil, err
	}
	n := &node{id: id, children: m.ChildrenIDs, at: epochAny(m.Timestamp), model: m.Model}
	if m.ParentID != nil {
		n.parent = *m.ParentID
		if _, ok := all[n.parent]; !ok {
			return nil, errAt(at+".parentId", "names message %q, which the chat lacks", n.parent)
		}
	}
	for i, k := range m.ChildrenIDs {
		if _, ok := all[k]; !ok {
			return nil, errAt(fmt.Sprintf("%s.childrenIds[%d]", at, i), "names message %q, which the chat lacks", k)
		}
	}
	role := llm.Role(m.Role)
	switch role {
	case llm.RoleUser, llm.RoleAssistant, llm.RoleSystem:
	default:
		return nil, errAt(at+".role", "is %q, which is not a role a chat message can have", m.Role)
	}
	text, err := openAIContent(c, m.Content, at+".content")
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, f := range m.Files {
		missing = append(missing, attachmentOf(c, f.Type, firstNonEmpty(f.Name, f.URL)))
	}
	if len(missing) > 0 {
		text = strings.TrimSpace(text + "\n" + strings.Join(missing, "\n"))
	}
	if strings.TrimSpace(text) != "" {
		n.msg = &llm.Message{Role: role, Content: text}
	}
	return n, nil
}

// attachmentOf names an attachment the file does not hold, and counts it.
func attachmentOf(c *conv, kind, name string) string {
	if kind == "image" {
		c.left.add("image not in the file", "images not in the file", 1)
		if strings.HasPrefix(name, "data:") {
			name = "(inline)"
		}
		return missingMark + "image " + name + "]"
	}
	c.left.add("attachment not in the file", "attachments not in the file", 1)
	return missingMark + name + "]"
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return "(unnamed)"
}

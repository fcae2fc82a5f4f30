package foreign

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// A ChatGPT data export's conversations.json: a list of conversations,
// each a tree of nodes (mapping) with the selected leaf (current_node).
type gptConversation struct {
	ID          string                     `json:"id"`
	Title       string                     `json:"title"`
	CreateTime  float64                    `json:"create_time"`
	UpdateTime  float64                    `json:"update_time"`
	Mapping     map[string]json.RawMessage `json:"mapping"`
	CurrentNode string                     `json:"current_node"`
	Model       string                     `json:"default_model_slug"`
}

type gptNode struct {
	ID       string          `json:"id"`
	Parent   *string         `json:"parent"`
	Children []string        `json:"children"`
	Message  json.RawMessage `json:"message"`
}

type gptMessage struct {
	Author struct {
		Role string `json:"role"`
		Name string `json:"name"`
	} `json:"author"`
	CreateTime *float64        `json:"create_time"`
	Content    json.RawMessage `json:"content"`
	Recipient  string          `json:"recipient"`
	Metadata   struct {
		ModelSlug string `json:"model_slug"`
		Hidden    bool   `json:"is_visually_hidden_from_conversation"`
	} `json:"metadata"`
}

type gptContent struct {
	ContentType string            `json:"content_type"`
	Parts       []json.RawMessage `json:"parts"`
	Text        string            `json:"text"`
	Language    string            `json:"language"`
	Title       string            `json:"title"`
	URL         string            `json:"url"`
	Result      string            `json:"result"`
}

func readChatGPT(data []byte) ([]*conv, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		// One conversation on its own, as some tools save it.
		raws = []json.RawMessage{data}
	}
	var out []*conv
	for i, raw := range raws {
		c, err := readGPTConversation(raw, fmt.Sprintf("[%d]", i))
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func readGPTConversation(raw json.RawMessage, at string) (*conv, error) {
	var g gptConversation
	if err := decodeAt(raw, &g, at); err != nil {
		return nil, err
	}
	if g.Mapping == nil {
		return nil, errAt(at+".mapping", "is missing: this is not a ChatGPT conversation")
	}
	c := newConv(g.Title)
	c.created, c.updated, c.current, c.model = epoch(g.CreateTime), epoch(g.UpdateTime), g.CurrentNode, g.Model
	// The file's map has no order; the tree's own links give it (below).
	for id, nraw := range g.Mapping {
		nat := at + ".mapping." + id
		var gn gptNode
		if err := decodeAt(nraw, &gn, nat); err != nil {
			return nil, err
		}
		n := &node{id: id, children: gn.Children}
		if gn.Parent != nil {
			n.parent = *gn.Parent
			if _, ok := g.Mapping[n.parent]; !ok {
				return nil, errAt(nat+".parent", "names node %q, which the conversation lacks", n.parent)
			}
		}
		for i, k := range gn.Children {
			if _, ok := g.Mapping[k]; !ok {
				return nil, errAt(fmt.Sprintf("%s.children[%d]", nat, i), "names node %q, which the conversation lacks", k)
			}
		}
		if err := gptMessageOf(c, n, gn.Message, nat+".message"); err != nil {
			return nil, err
		}
		c.nodes[id] = n
	}
	if g.CurrentNode != "" && c.nodes[g.CurrentNode] == nil {
		return nil, errAt(at+".current_node", "names node %q, which the conversation lacks", g.CurrentNode)
	}
	c.order = treeOrder(c.nodes)
	if err := unreached(c, at+".mapping", "parent"); err != nil {
		return nil, err
	}
	return c, nil
}

// unreached refuses a tree with a node no root leads to: a loop of
// parents, which no reader can start from.
func unreached(c *conv, at, parentField string) error {
	if len(c.order) == len(c.nodes) {
		return nil
	}
	reached := map[string]bool{}
	for _, id := range c.order {
		reached[id] = true
	}
	var lost []string
	for id := range c.nodes {
		if !reached[id] {
			lost = append(lost, id)
		}
	}
	sortStrings(lost)
	return errAt(at+"."+lost[0]+"."+parentField, "makes a loop: the message is among its own parents")
}

// treeOrder lists a map's nodes parents first, each parent's children in
// its order, from the roots (sorted by id, so the result is stable).
func treeOrder(nodes map[string]*node) []string {
	var roots []string
	for id, n := range nodes {
		if nodes[n.parent] == nil {
			roots = append(roots, id)
		}
	}
	sortStrings(roots)
	var out []string
	seen := map[string]bool{}
	var walk func(string)
	walk = func(id string) {
		if seen[id] || nodes[id] == nil {
			return
		}
		seen[id] = true
		out = append(out, id)
		for _, k := range nodes[id].children {
			walk(k)
		}
	}
	for _, r := range roots {
		walk(r)
	}
	return out
}

// gptMessageOf fills n's message from the node's, or leaves it skipped.
func gptMessageOf(c *conv, n *node, raw json.RawMessage, at string) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var m gptMessage
	if err := decodeAt(raw, &m, at); err != nil {
		return err
	}
	if m.CreateTime != nil {
		n.at = epoch(*m.CreateTime)
	}
	n.model = m.Metadata.ModelSlug
	var content gptContent
	if err := decodeAt(m.Content, &content, at+".content"); err != nil {
		return err
	}
	role := llm.Role(m.Author.Role)
	switch role {
	case llm.RoleUser, llm.RoleAssistant, llm.RoleSystem:
	case llm.RoleTool:
		// A tool's output (code interpreter, browsing, image generation)
		// answers no call the file keeps: left out, counted.
		gptLeaveTool(c, content)
		return nil
	default:
		return errAt(at+".author.role", "is %q, which is not a role a chat message can have", m.Author.Role)
	}
	text, err := gptText(c, content, at+".content")
	if err != nil {
		return err
	}
	if strings.TrimSpace(text) == "" {
		return nil // hidden system messages, empty placeholders
	}
	n.msg = &llm.Message{Role: role, Content: text}
	return nil
}

// gptText is the text of a message's content; what is not text is
// counted as left out.
func gptText(c *conv, ct gptContent, at string) (string, error) {
	switch ct.ContentType {
	case "text", "multimodal_text":
		var parts []string
		for i, p := range ct.Parts {
			s, err := gptPart(c, p, fmt.Sprintf("%s.parts[%d]", at, i))
			if err != nil {
				return "", err
			}
			if s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "\n"), nil
	case "code":
		if strings.TrimSpace(ct.Text) == "" {
			return "", nil
		}
		return "```" + ct.Language + "\n" + strings.TrimRight(ct.Text, "\n") + "\n```", nil
	case "tether_quote":
		q := "> " + strings.ReplaceAll(strings.TrimSpace(ct.Text), "\n", "\n> ")
		if ct.Title != "" || ct.URL != "" {
			q += "\n\n— " + strings.TrimSpace(ct.Title+" "+ct.URL)
		}
		return q, nil
	case "user_editable_context":
		c.left.add("custom instructions block", "custom instructions blocks", 1)
	case "model_editable_context":
		c.left.add("memory block", "memory blocks", 1)
	case "thoughts", "reasoning_recap":
		c.left.add("reasoning block", "reasoning blocks", 1)
	case "tether_browsing_display":
		c.left.add("browsing result", "browsing results", 1)
	case "":
		return "", errAt(at+".content_type", "is missing")
	default:
		c.left.add(ct.ContentType+" message", ct.ContentType+" messages", 1)
	}
	return "", nil
}

// gptPart is one part of a text or multimodal message: a string, or an
// object (an image, audio, a transcription).
func gptPart(c *conv, raw json.RawMessage, at string) (string, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var p struct {
		ContentType  string `json:"content_type"`
		AssetPointer string `json:"asset_pointer"`
		Text         string `json:"text"`
	}
	if err := decodeAt(raw, &p, at); err != nil {
		return "", err
	}
	switch p.ContentType {
	case "image_asset_pointer":
		c.left.add("image not in the file", "images not in the file", 1)
		return missingMark + "image " + assetName(p.AssetPointer) + "]", nil
	case "audio_transcription":
		return p.Text, nil
	case "audio_asset_pointer", "real_time_user_audio_video_asset_pointer":
		c.left.add("audio recording not in the file", "audio recordings not in the file", 1)
		return "", nil
	}
	c.left.add("part of another kind", "parts of other kinds", 1)
	return "", nil
}

// assetName is an asset pointer's file id (file-service://file-abc).
func assetName(p string) string {
	if i := strings.LastIndex(p, "://"); i >= 0 {
		p = p[i+3:]
	}
	if p == "" {
		return "(unnamed)"
	}
	return p
}

func gptLeaveTool(c *conv, ct gptContent) {
	switch ct.ContentType {
	case "execution_output":
		c.left.add("code interpreter output", "code interpreter outputs", 1)
	case "tether_browsing_display", "tether_quote":
		c.left.add("browsing result", "browsing results", 1)
	case "multimodal_text":
		c.left.add("generated image not in the file", "generated images not in the file", 1)
	default:
		c.left.add("tool message", "tool messages", 1)
	}
}

package export

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"slices"
	"strings"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// writeJSONL writes the session as chat fine-tuning data in OpenAI's
// format: one JSON object per line, {"messages": [...]}.
//
// There is one line per completed turn, holding the conversation from the
// start of the session up to and including that turn along its branch (the
// turns it follows, as the model was sent them), which is how chat data is
// usually exported: each line teaches one answer in its context. So that a
// trainer learns each answer once, the assistant messages of earlier turns
// carry "weight": 0 (OpenAI's switch for messages that are context only).
// Turns that did not complete (stopped, failed, interrupted, running) get
// no line of their own, since their answers are not ones to learn, but
// stay in the context of the lines after them, as the model saw them.
// Agentdeck does not store system prompts, so lines have no system
// message; reasoning text is left out.
//
// A user message with images is written as the model was sent it, and as
// OpenAI's vision fine-tuning data has it: its content is parts, a text
// part and an image_url part per image holding a data URL of the bytes.
// That is the one form that keeps the example whole (the answer is about
// the image), and it is large: a line holds every image of its context,
// so an image is repeated, about a third larger as base64, in each later
// line of its branch. Trainers have their own limits (commonly PNG, JPEG
// and WebP, about 10 images of 10 MB per example); the file does not cut
// to fit them. An image whose bytes are no longer stored is left out.
//
// A continuation (Turn.Continues) is written as the model was sent it. A
// server that continued the partial answer as its prefix was sent no
// message: the two parts are one assistant message, trained with the
// continuation's line. One sent an instruction to go on has it as a user
// message between the two.
func writeJSONL(ctx context.Context, w io.Writer, doc *Document) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	turns := doc.Turns
	own := make([][]chatMessage, len(turns))
	images := imageURLs(doc.Images)
	for i := range turns {
		own[i] = chatMessages(&turns[i], images)
	}
	parent := parentsOf(doc)
	for i := range turns {
		if err := ctx.Err(); err != nil {
			return err
		}
		if turns[i].State != StateCompleted {
			continue
		}
		var path []int
		for j := i; j >= 0; j = parent[j] {
			path = append(path, j)
		}
		slices.Reverse(path)
		convo, answers := conversationTo(turns, own, path)
		if !answers || convo[len(convo)-1].Role != string(llm.RoleAssistant) {
			continue
		}
		if err := enc.Encode(chatLine{Messages: convo}); err != nil {
			return err
		}
	}
	return nil
}

// parentsOf is, for each turn of doc, the index of the turn it follows, -1
// for none. A document that names no active turn is one line of turns.
func parentsOf(doc *Document) []int {
	byID := map[string]int{}
	for i, t := range doc.Turns {
		byID[t.ID] = i
	}
	parent := make([]int, len(doc.Turns))
	for i, t := range doc.Turns {
		j, ok := byID[t.ParentTurnID]
		switch {
		case doc.Session.ActiveTurnID == "":
			j = i - 1
		case !ok || j >= i:
			j = -1
		}
		parent[i] = j
	}
	return parent
}

// conversationTo is the conversation along path (indexes of turns, the
// first message's first) as a line holds it: the last turn's assistant
// messages trained, the others' context only (weight 0), a continuation's
// first message joined to the answer it continues when both are text.
// answers reports whether the last turn has an answer of its own.
func conversationTo(turns []Turn, own [][]chatMessage, path []int) (convo []chatMessage, answers bool) {
	zero := new(int)
	for k, j := range path {
		mine := k == len(path)-1
		msgs := own[j]
		if n := len(convo); turns[j].Continues && n > 0 && len(msgs) > 0 && plainAnswer(msgs[0]) && plainAnswer(convo[n-1]) {
			convo[n-1].Content += msgs[0].Content
			if mine {
				convo[n-1].Weight, answers = nil, true
			}
			msgs = msgs[1:]
		}
		for _, m := range msgs {
			if m.Role == string(llm.RoleAssistant) {
				if mine {
					answers = true
				} else {
					m.Weight = zero
				}
			}
			convo = append(convo, m)
		}
	}
	return convo, answers
}

// chatMessages are a turn's messages as a line holds them. A
// continuation's empty message (a server continuing the partial answer as
// a prefix was sent none) is left out.
func chatMessages(t *Turn, images map[string]string) []chatMessage {
	answered := map[string]bool{}
	for _, m := range t.Messages {
		if m.Role == llm.RoleTool {
			answered[m.ToolCallID] = true
		}
	}
	var out []chatMessage
	for _, m := range t.Messages {
		cm, ok := toChatMessage(m, answered, images)
		if !ok || (t.Continues && m.Role == llm.RoleUser && strings.TrimSpace(m.Content) == "") {
			continue
		}
		out = append(out, cm)
	}
	return out
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
	// images are the data URLs of a user message's images; with them
	// the content is written as parts (MarshalJSON).
	images []string
}

// chatPart is one content part of a message with images, in the form the
// model was sent it (llm's wire format).
type chatPart struct {
	Type     string        `json:"type"`
	Text     string        `json:"text,omitempty"`
	ImageURL *chatImageURL `json:"image_url,omitempty"`
}

type chatImageURL struct {
	URL string `json:"url"`
}

// MarshalJSON writes the content as text, or as a text part and an
// image_url part per image when the message has images. HTML characters
// are left as they are, as the line's encoder leaves them.
func (m chatMessage) MarshalJSON() ([]byte, error) {
	type plain chatMessage
	var v any = plain(m)
	if len(m.images) > 0 {
		parts := make([]chatPart, 0, len(m.images)+1)
		if m.Content != "" {
			parts = append(parts, chatPart{Type: "text", Text: m.Content})
		}
		for _, u := range m.images {
			parts = append(parts, chatPart{Type: "image_url", ImageURL: &chatImageURL{URL: u}})
		}
		v = struct {
			plain
			Content []chatPart `json:"content"`
		}{plain(m), parts}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// imageURLs are the images' data URLs, by id, each made once however
// many lines repeat it.
func imageURLs(ims []Image) map[string]string {
	urls := map[string]string{}
	for _, im := range ims {
		if len(im.Data) > 0 {
			urls[im.ID] = "data:" + im.MIME + ";base64," + base64.StdEncoding.EncodeToString(im.Data)
		}
	}
	return urls
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
func toChatMessage(m llm.Message, answered map[string]bool, images map[string]string) (chatMessage, bool) {
	cm := chatMessage{Role: string(m.Role), Content: m.Content}
	switch m.Role {
	case llm.RoleUser:
		for _, im := range m.Images {
			if u, ok := images[im.ID]; ok {
				cm.images = append(cm.images, u)
			}
		}
	case llm.RoleSystem:
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

// plainAnswer reports whether m is answer text: an assistant message with
// no tool calls.
func plainAnswer(m chatMessage) bool {
	return m.Role == string(llm.RoleAssistant) && len(m.ToolCalls) == 0
}

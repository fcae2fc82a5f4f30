package openai

import (
	"encoding/json"
	"strings"
)

// detailsText is the readable reasoning in one delta's reasoning_details:
// the text of its reasoning.text blocks and the summary of its
// reasoning.summary blocks, in order (encrypted blocks and signatures
// carry none). last is the type and index of the block the previous
// delta's text came from: a new block starts on a new paragraph. It is
// read only when the delta has no reasoning field of its own, since
// OpenRouter sends the same text in both.
func detailsText(raw json.RawMessage, last *string) string {
	var items []struct {
		Type    string          `json:"type"`
		Index   json.RawMessage `json:"index"`
		Text    string          `json:"text"`
		Summary string          `json:"summary"`
	}
	if json.Unmarshal(raw, &items) != nil {
		return ""
	}
	var b strings.Builder
	for _, it := range items {
		text := it.Text
		if it.Type == "reasoning.summary" {
			text = it.Summary
		} else if it.Type != "reasoning.text" {
			continue
		}
		if text == "" {
			continue
		}
		key := it.Type + "\x00" + string(it.Index)
		if *last != "" && key != *last {
			b.WriteString("\n\n")
		}
		*last = key
		b.WriteString(text)
	}
	return b.String()
}

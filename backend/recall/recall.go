// Package recall is the recall tool: the model searches the user's
// earlier sessions and gets short excerpts with their session and date.
package recall

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Name is the tool's name, by which a workflow's agent asks for it.
const Name = "recall"

// New returns the recall tool over search.
func New(search Searcher) tool.Tool { return &recallTool{search: search} }

// Searcher finds excerpts of earlier sessions (the store's full-text
// search).
type Searcher interface {
	SearchMemory(ctx context.Context, query string, limit int) ([]turn.Memory, error)
}

// recallTool lets the model search earlier sessions.
type recallTool struct {
	search Searcher
}

func (t *recallTool) Spec() tool.Spec {
	return tool.Spec{
		Name:        Name,
		Description: "Search the user's earlier sessions for something said or found before. Returns short excerpts with their session and date.",
		Parameters: json.RawMessage(`{
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": 200},
    "limit": {"type": "integer", "minimum": 1, "maximum": 20}
  },
  "required": ["query"],
  "additionalProperties": false
}`),
	}
}

func (t *recallTool) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	var in struct {
		Query string `json:"query"`
		Limit int    `json:"limit"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return "", err
	}
	if in.Limit == 0 {
		in.Limit = 5
	}
	found, err := t.search.SearchMemory(ctx, in.Query, in.Limit)
	if err != nil {
		return "", fmt.Errorf("searching earlier sessions failed: %w", err)
	}
	tool.Emit(ctx, turn.Draft{Data: turn.MemoryData{Count: len(found)}})
	if len(found) == 0 {
		return "Nothing in earlier sessions matches " + in.Query + ".", nil
	}
	var b strings.Builder
	for _, m := range found {
		fmt.Fprintf(&b, "- %s, session %q: %s\n", m.At.Format("2006-01-02"), m.SessionTitle, strings.TrimSpace(m.Excerpt))
	}
	return b.String(), nil
}

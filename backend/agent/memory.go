package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// ToolRecall is the name of the memory tool.
const ToolRecall = "recall"

// Memory is one excerpt from an earlier session.
type Memory struct {
	SessionID    string    `json:"session_id"`
	SessionTitle string    `json:"session_title"`
	At           time.Time `json:"at"`
	Excerpt      string    `json:"excerpt"`
}

// MemorySearcher finds excerpts of earlier sessions (the store's full-text
// search in the app).
type MemorySearcher interface {
	SearchMemory(ctx context.Context, query string, limit int) ([]Memory, error)
}

// recallTool lets the model search earlier sessions.
type recallTool struct {
	search MemorySearcher
	emit   func(ctx context.Context, d Draft)
}

func (t *recallTool) Spec() ToolSpec {
	return ToolSpec{
		Name:        ToolRecall,
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
	t.emit(ctx, Draft{Type: EventMemoryRecalled, Data: MemoryData{Count: len(found)}})
	if len(found) == 0 {
		return "Nothing in earlier sessions matches " + in.Query + ".", nil
	}
	var b strings.Builder
	for _, m := range found {
		fmt.Fprintf(&b, "- %s, session %q: %s\n", m.At.Format("2006-01-02"), m.SessionTitle, strings.TrimSpace(m.Excerpt))
	}
	return b.String(), nil
}

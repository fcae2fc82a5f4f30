package cite

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentdeck/agentdeck/backend/knowledge"
	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Name is the tool's name, by which a workflow's agent asks for it.
const Name = "search_knowledge"

// DefaultLimit and MaxLimit bound how many passages one call gives.
const (
	DefaultLimit = 5
	MaxLimit     = 20
)

// Instruction is the line the output ends with.
const Instruction = "Cite passages as [n]."

// Searcher finds passages (knowledge.Library's Search).
type Searcher interface {
	Search(ctx context.Context, sc knowledge.Place, query string, limit int) (knowledge.Results, error)
}

// NewTool returns search_knowledge over the documents of place, numbering
// the passages it gives from numbers (the turn's).
func NewTool(s Searcher, place knowledge.Place, numbers *knowledge.Numbers) tool.Tool {
	return &searchTool{search: s, place: place, numbers: numbers}
}

type searchTool struct {
	search  Searcher
	place   knowledge.Place
	numbers *knowledge.Numbers
}

func (t *searchTool) Spec() tool.Spec {
	return tool.Spec{
		Name: Name,
		Description: "Search the documents the user attached (PDF, DOCX, Markdown, HTML, text) for passages that answer a question. " +
			"Each passage comes with a number n, its document, page and heading. When your answer uses a passage, cite it as [n] right after the claim, e.g. [1] or [2, 3]. " +
			"Cite only numbers this tool gave you.",
		Parameters: json.RawMessage(`{
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": 1000, "description": "What to look for, in words the documents may use"},
    "limit": {"type": "integer", "minimum": 1, "maximum": 20, "description": "How many passages (default 5)"}
  },
  "required": ["query"]
}`),
		Recorded: true,
	}
}

// output is what the model gets, and what a replay reads the sources from.
type output struct {
	Mode     knowledge.Mode `json:"mode"`
	Passages []passage      `json:"passages"`
	Note     string         `json:"note"`
}

// passage is one source as the model sees it: everything a turn.Source
// holds, so the output alone rebuilds it.
type passage struct {
	N          int    `json:"n"`
	Document   string `json:"document"`
	Page       int    `json:"page,omitempty"`
	Heading    string `json:"heading,omitempty"`
	Text       string `json:"text"`
	DocumentID string `json:"document_id"`
	PassageID  int64  `json:"passage_id"`
	Version    string `json:"version"`
	URL        string `json:"url,omitempty"`
}

func (t *searchTool) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	var in struct {
		Query string `json:"query"`
		Limit int    `json:"limit"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return "", fmt.Errorf("expected {query, limit}: %v", err)
	}
	if strings.TrimSpace(in.Query) == "" {
		return "", fmt.Errorf("the query is empty: say what to look for")
	}
	limit := in.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	res, err := t.search.Search(ctx, t.place, in.Query, min(limit, MaxLimit))
	if err != nil {
		return "", fmt.Errorf("the documents could not be searched: %v", err)
	}
	out := output{Mode: res.Mode, Passages: make([]passage, len(res.Hits)), Note: Instruction}
	if len(res.Hits) == 0 {
		out.Note = "No passage matches. Try other words, or answer without the documents and say so."
	}
	first := t.numbers.Take(len(res.Hits))
	for i, h := range res.Hits {
		out.Passages[i] = passage{N: first + i, Document: h.Document, Page: h.Page, Heading: h.Heading, Text: h.Text,
			DocumentID: h.DocumentID, PassageID: h.ID, Version: h.Version, URL: h.URL}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "", err
	}
	emitSources(ctx, out)
	return string(b), nil
}

// Replayed re-emits the sources a recorded output gave, and takes their
// numbers so later sources of the replay follow them.
func (t *searchTool) Replayed(ctx context.Context, _ json.RawMessage, recorded string) {
	var out output
	if json.Unmarshal([]byte(recorded), &out) != nil {
		return
	}
	last := 0
	for _, p := range out.Passages {
		last = max(last, p.N)
	}
	t.numbers.Seen(last)
	emitSources(ctx, out)
}

// emitSources reports the passages given as the turn's sources (the
// agent's emitter links the event to the call).
func emitSources(ctx context.Context, out output) {
	if len(out.Passages) == 0 {
		return
	}
	tool.Emit(ctx, turn.Draft{Data: turn.SourcesData{Sources: sources(out)}})
}

// sources are the turn.Sources of an output.
func sources(out output) []turn.Source {
	src := make([]turn.Source, len(out.Passages))
	for i, p := range out.Passages {
		src[i] = turn.Source{N: p.N, Kind: turn.SourcePassage, DocumentID: p.DocumentID, PassageID: p.PassageID, Version: p.Version,
			Document: p.Document, Page: p.Page, Heading: p.Heading, URL: p.URL, Text: p.Text}
	}
	return src
}

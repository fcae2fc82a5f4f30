package export

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/turn"
)

func TestSourceLine(t *testing.T) {
	long := "one two three four five six seven eight nine ten eleven twelve thirteen"
	tests := []struct {
		name string
		in   turn.Source
		want string
	}{
		{"a passage with a page", turn.Source{N: 1, Kind: turn.SourcePassage, Document: "report.pdf", Page: 3, Text: "Revenue rose\nby a  third."},
			`report.pdf, p. 3 — "Revenue rose by a third."`},
		{"cut after twelve words", turn.Source{Kind: turn.SourcePassage, Document: "notes.md", Page: 1, Text: long},
			`notes.md, p. 1 — "one two three four five six seven eight nine ten eleven twelve…"`},
		{"a web page names its address", turn.Source{Kind: turn.SourcePage, Document: "Quinces", Page: 1, URL: "https://example.com/q", Text: "Quinces need frost."},
			`Quinces, https://example.com/q — "Quinces need frost."`},
		{"no text, no name", turn.Source{Kind: turn.SourcePassage}, `(untitled)`},
		{"a quote inside", turn.Source{Document: "a.txt", Text: `He said "no".`}, `a.txt — "He said "no"."`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SourceLine(tt.in); got != tt.want {
				t.Fatalf("SourceLine = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestVersionOf(t *testing.T) {
	tests := []struct {
		images    int
		placed    bool
		documents int
		groups    int
		reruns    int
		made      int
		reviews   int
		want      int
	}{
		{0, false, 0, 0, 0, 0, 0, 3},
		{1, false, 0, 0, 0, 0, 0, 5},
		{1, true, 0, 0, 0, 0, 0, 6},
		{0, false, 1, 0, 0, 0, 0, 7},
		{2, true, 3, 0, 0, 0, 0, 7},
		{0, false, 0, 1, 0, 0, 0, 8},
		{2, true, 3, 2, 0, 0, 0, 8},
		{0, false, 0, 0, 1, 0, 0, 9},
		{2, true, 3, 2, 1, 0, 0, 9},
		{0, false, 0, 0, 0, 1, 0, 10},
		{2, true, 3, 2, 1, 4, 0, 10},
		{0, false, 0, 0, 0, 0, 1, 11},
		{2, true, 3, 2, 1, 4, 5, 11},
	}
	for _, tt := range tests {
		h := &Head{Images: tt.images, Documents: tt.documents, Groups: make([]Group, tt.groups), Reruns: tt.reruns, Made: tt.made, Reviews: tt.reviews}
		if tt.placed {
			h.Session.Tags = []string{"t"}
		}
		if got := versionOf(h); got != tt.want {
			t.Errorf("versionOf(%+v) = %d, want %d", tt, got, tt.want)
		}
	}
	if Version != 11 {
		t.Fatalf("Version = %d: a new version needs its paragraph in document.go and a case here", Version)
	}
}

// A Markdown transcript lists the session's documents under its header,
// and each turn's sources as footnotes after its answer, numbered as the
// answer cites them, escaped so no bracket reads as a link.
func TestMarkdownDocumentsAndSources(t *testing.T) {
	data, _ := json.Marshal(turn.SourcesData{CallID: "c", Sources: []turn.Source{
		{N: 1, Kind: turn.SourcePassage, Document: "report.pdf", Page: 3, Text: "Revenue rose by a third."},
		{N: 2, Kind: turn.SourcePage, Document: "Q [page]", URL: "https://example.com/q", Text: "Quinces *need* frost."},
	}})
	doc := Document{Format: FormatName, Version: Version, Session: Session{ID: "s", Title: "t", Workflow: "chat"},
		Documents: []KnowledgeDocument{{ID: "d1", Name: "report.pdf", Format: "pdf", Pages: 4, Note: "scanned: no text layer on page 4"}, {ID: "d2", Name: "notes_1.md", Format: "markdown", Pages: 1}},
		Turns: []Turn{{ID: "t1", Seq: 1, UserMessage: "What rose?", State: StateCompleted, FinalText: "Revenue [1], quinces [2].",
			Events: []turn.Event{{ID: "e1", Seq: 1, Type: turn.EventSources, Data: data}}}}}
	var b bytes.Buffer
	if err := writeMarkdown(context.Background(), &b, &doc, nil, nil); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"## Documents\n\n- report.pdf (pdf, 4 pages) — _scanned: no text layer on page 4_\n- notes\\_1.md (markdown)\n\n",
		"#### Sources\n\n- \\[1\\] report.pdf, p. 3 — \"Revenue rose by a third.\"\n- \\[2\\] Q \\[page\\], https://example.com/q — \"Quinces \\*need\\* frost.\"\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("no %q in\n%s", want, md)
		}
	}
	if strings.Index(md, "Revenue [1]") > strings.Index(md, "#### Sources") {
		t.Errorf("the footnotes come before the answer:\n%s", md)
	}
}

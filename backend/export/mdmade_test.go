package export

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// An artifact a tool made is written as its source under its title; one
// from a block of the answer is not written twice; a code run is its code
// and what it printed, returned or stopped with.
func TestMarkdownArtifactsAndCodeRuns(t *testing.T) {
	ev := func(seq int64, p turn.Payload) turn.Event {
		b, _ := json.Marshal(p)
		return turn.Event{Seq: seq, Type: p.EventType(), Data: b}
	}
	page := "<title>Page</title><p>block</p>"
	doc := &Document{Session: Session{Title: "s"}, Turns: []Turn{{ID: "a", Seq: 1, State: StateCompleted, UserMessage: "Draw",
		FinalText: "```html\n" + page + "\n```",
		Messages:  []llm.Message{{Role: llm.RoleUser, Content: "Draw"}, {Role: llm.RoleAssistant, Content: "```html\n" + page + "\n```"}},
		Events: []turn.Event{
			ev(1, turn.ArtifactData{Key: "dots", Title: "Dots | v1", Kind: "svg", Content: "<svg>\n<circle r=\"3\"/>\n</svg>\n", Source: turn.ArtifactFromTool, CallID: "c1"}),
			ev(2, turn.CodeRunData{CallID: "c2", Code: "print(1 + 1)\nreturn 2", Output: "2\n", Value: "2"}),
			ev(3, turn.CodeRunData{CallID: "c3", Code: "while True: pass", Error: &turn.CodeError{Message: "too many steps", Limit: "steps"}}),
			ev(4, turn.CodeRunData{CallID: "c4", Code: "x = y", Error: &turn.CodeError{Message: "undefined: y", Line: 1, Col: 5}}),
			ev(5, turn.ArtifactData{Key: "html", Title: "Page", Kind: "html", Content: page + "\n", Source: turn.ArtifactFromBlock}),
		}}}}
	var b strings.Builder
	if err := writeMarkdown(context.Background(), &b, doc, nil, nil); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"#### Artifact: Dots \\| v1\n\n```svg\n<svg>\n<circle r=\"3\"/>\n</svg>\n```\n",
		"#### Code run\n\n```python\nprint(1 + 1)\nreturn 2\n```\n\nOutput:\n\n```text\n2\n```\n\nReturned: `2`\n",
		"```python\nwhile True: pass\n```\n\nStopped at the steps limit: too many steps\n",
		"Error at line 1, column 5: undefined: y\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the transcript lacks\n%s\ngot\n%s", want, got)
		}
	}
	if n := strings.Count(got, "<p>block</p>"); n != 1 {
		t.Errorf("the block's page is written %d times, want once (in the answer)", n)
	}
}

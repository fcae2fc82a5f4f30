package artifact

import (
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/turn"
)

const page = "<!doctype html>\n<html><head><title>Counter  v1</title></head><body><button>+1</button></body></html>\n"

func TestBlocks(t *testing.T) {
	svg := `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><title>A dot</title><circle r="4"/></svg>` + "\n"
	tests := []struct {
		name   string
		answer string
		want   []turn.ArtifactData // Content checked by prefix only
	}{
		{"none", "Just text.", nil},
		{"html with a title", "Here:\n\n```html\n" + page + "```\n\nDone.", []turn.ArtifactData{{Key: "html", Title: "Counter v1", Kind: "html", Content: "<!doctype html>"}}},
		{"html without a title", "```html\n<p>hi</p>\n```", []turn.ArtifactData{{Key: "html", Title: DefaultHTMLTitle, Kind: "html", Content: "<p>hi</p>\n"}}},
		{"info string in capitals and with more words", "```HTML demo\n<p>hi</p>\n```", []turn.ArtifactData{{Key: "html", Title: DefaultHTMLTitle, Kind: "html", Content: "<p>hi</p>"}}},
		{"svg with a title", "```svg\n" + svg + "```", []turn.ArtifactData{{Key: "svg", Title: "A dot", Kind: "svg", Content: "<svg"}}},
		{"svg without a title", "```svg\n<svg><rect/></svg>\n```", []turn.ArtifactData{{Key: "svg", Title: DefaultSVGTitle, Kind: "svg", Content: "<svg><rect/>"}}},
		{"svg that does not parse", "```svg\n<svg><rect></svg>\n```", nil},
		{"svg whose root is not svg", "```svg\n<g/>\n```", nil},
		{"tilde fence", "~~~html\n<p>tilde</p>\n~~~\n", []turn.ArtifactData{{Key: "html", Title: DefaultHTMLTitle, Kind: "html", Content: "<p>tilde</p>"}}},
		{"indented fence", "   ```html\n   <p>indented</p>\n   ```\n", []turn.ArtifactData{{Key: "html", Title: DefaultHTMLTitle, Kind: "html", Content: "<p>indented</p>"}}},
		{"four spaces is an indented code block, not a fence", "    ```html\n    <p>code</p>\n    ```\n", nil},
		{"in a list item", "1. A page:\n\n   ```html\n   <p>listed</p>\n   ```\n", []turn.ArtifactData{{Key: "html", Title: DefaultHTMLTitle, Kind: "html", Content: "<p>listed</p>"}}},
		{"in a quote", "> ```html\n> <p>quoted</p>\n> ```\n", []turn.ArtifactData{{Key: "html", Title: DefaultHTMLTitle, Kind: "html", Content: "<p>quoted</p>"}}},
		{"shown inside a longer fence", "````markdown\n```html\n<p>shown</p>\n```\n````\n", nil},
		{"unterminated", "```html\n<p>cut off", nil},
		{"unterminated after a closed one", "```html\n<p>one</p>\n```\n\n```html\n<p>two", []turn.ArtifactData{{Key: "html", Title: DefaultHTMLTitle, Kind: "html", Content: "<p>one</p>"}}},
		{"closed by a shorter fence is not closed", "````html\n<p>x</p>\n```\n", nil},
		{"ended by its list item is not closed", "- ```html\n  <p>x</p>\n\nafter\n", nil},
		{"empty", "```html\n```\n", nil},
		{"other languages", "```go\nfunc main() {}\n```\n```mermaid\ngraph TD; A-->B\n```", nil},
		{"two in order", "```svg\n<svg/>\n```\ntext\n```html\n<b>2</b>\n```", []turn.ArtifactData{{Key: "svg", Title: DefaultSVGTitle, Kind: "svg", Content: "<svg/>"}, {Key: "html", Title: DefaultHTMLTitle, Kind: "html", Content: "<b>2</b>"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Blocks(tt.answer)
			if len(got) != len(tt.want) {
				t.Fatalf("%d artifacts, want %d: %+v", len(got), len(tt.want), got)
			}
			for i, w := range tt.want {
				g := got[i]
				if g.Key != w.Key || g.Title != w.Title || g.Kind != w.Kind || g.Source != turn.ArtifactFromBlock || g.CallID != "" || !strings.HasPrefix(g.Content, w.Content) {
					t.Errorf("artifact %d: %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

// The same answer gives the same artifacts: a replay emits what the
// original did.
func TestBlocksDeterministic(t *testing.T) {
	a := "```html\n" + page + "```\n\n```svg\n<svg/>\n```\n"
	first := Blocks(a)
	for range 3 {
		again := Blocks(a)
		if len(again) != len(first) || again[0] != first[0] || again[1] != first[1] {
			t.Fatalf("%+v, then %+v", first, again)
		}
	}
}

func TestBlocksContentIsTheSource(t *testing.T) {
	got := Blocks("```html\n" + page + "```\n")
	if len(got) != 1 || got[0].Content != page {
		t.Fatalf("%+v", got)
	}
	// A block over the limit stays code.
	big := "```html\n<p>" + strings.Repeat("x", MaxContent) + "</p>\n```\n"
	if got := Blocks(big); len(got) != 0 {
		t.Fatalf("an oversized block became an artifact")
	}
}

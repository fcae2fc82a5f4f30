package web

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"

	"github.com/agentdeck/agentdeck/backend/knowledge"
	"github.com/agentdeck/agentdeck/backend/knowledge/extract"
)

// HTML to Markdown, as blocks under their headings: what a page's main
// text becomes for the model and for a document's passages. The
// conversion is the document reader's (extract.HTMLBlocks), so a page
// read by fetch_url and an HTML file added as a document read alike.

// blocksOf converts an HTML tree to blocks in reading order. Each block's
// Heading is the path of headings above it ("Results › Revenue").
func blocksOf(n *html.Node) []knowledge.Block {
	var buf bytes.Buffer
	if err := html.Render(&buf, n); err != nil {
		return nil
	}
	blocks, _, err := extract.HTMLBlocks(&buf)
	if err != nil {
		return nil
	}
	return blocks
}

// Markdown renders blocks as one Markdown text, each heading once, as a
// Markdown heading one level below the title's.
func Markdown(title string, blocks []knowledge.Block) string {
	var b strings.Builder
	if title != "" {
		b.WriteString("# " + title + "\n\n")
	}
	var shown []string
	for _, bl := range blocks {
		path := splitPath(bl.Heading)
		// Print the levels of the path that differ from the last one shown.
		common := 0
		for common < len(path) && common < len(shown) && path[common] == shown[common] {
			common++
		}
		for i := common; i < len(path); i++ {
			b.WriteString(strings.Repeat("#", min(i+2, 6)) + " " + path[i] + "\n\n")
		}
		shown = path
		b.WriteString(bl.Text + "\n\n")
	}
	return strings.TrimSpace(b.String())
}

const headingSep = " › "

func splitPath(h string) []string {
	if h == "" {
		return nil
	}
	return strings.Split(h, headingSep)
}

// textOf is the text of a node and its children, spaces collapsed.
func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
			walk(ch)
		}
	}
	walk(n)
	return oneLine(b.String())
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

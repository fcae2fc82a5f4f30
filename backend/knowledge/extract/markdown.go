package extract

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/agentdeck/agentdeck/backend/knowledge"
)

// Markdown is parsed with goldmark (CommonMark), not a line scanner: the
// rules that decide what a line is — a "---" under a paragraph is a setext
// heading, under a blank line a rule; a "#" inside a fence or an indented
// code block is code; a fence may be ``` or ~~~ of any length and is
// closed only by one at least as long — are many, and a scanner that gets
// one wrong files passages under the wrong heading. Goldmark gives the
// blocks and where each starts; a block's text is the source itself, from
// its line to the next block's, so what is stored and cited is what the
// file says, markup and all.

// readMarkdown reads a Markdown file: blocks under their heading path.
func readMarkdown(name string, b []byte) (knowledge.Extracted, error) {
	s, err := utf8Text(name, b)
	if err != nil {
		return knowledge.Extracted{}, err
	}
	body, title := frontMatter(s)
	blocks, h1 := markdownBlocks([]byte(body))
	if title == "" {
		title = h1
	}
	return knowledge.Extracted{
		Format: knowledge.FormatMarkdown,
		Title:  title,
		Pages:  []knowledge.Page{{Number: 1, Blocks: blocks}},
	}, nil
}

// markdownBlocks cuts Markdown source into blocks (a paragraph, a list, a
// table, a fenced code block, each as written) under their heading path,
// and returns the text of the first level-1 heading as its title. Only
// headings at the top level count (one inside a list or a quote is text).
func markdownBlocks(src []byte) (blocks []knowledge.Block, title string) {
	doc := goldmark.DefaultParser().Parse(text.NewReader(src))
	var path headingPath
	var starts []int
	var nodes []ast.Node
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if at := blockStart(n, src); at >= 0 {
			starts = append(starts, at)
			nodes = append(nodes, n)
		}
	}
	for i, n := range nodes {
		if h, ok := n.(*ast.Heading); ok {
			t := inlineText(h, src)
			path.set(h.Level, t)
			if title == "" && h.Level == 1 {
				title = t
			}
			continue
		}
		end := len(src)
		if i+1 < len(nodes) {
			end = starts[i+1]
		}
		if t := strings.TrimSpace(string(src[starts[i]:end])); t != "" {
			blocks = append(blocks, knowledge.Block{Heading: path.String(), Text: t})
		}
	}
	return blocks, title
}

// blockStart is the offset of the start of the line a block begins on,
// or -1 when goldmark kept no position for it.
func blockStart(n ast.Node, src []byte) int {
	at := n.Pos()
	if at < 0 && n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
		at = n.Lines().At(0).Start
	}
	if at < 0 || at > len(src) {
		return -1
	}
	return bytes.LastIndexByte(src[:at], '\n') + 1
}

// inlineText is the plain text of a node's inline content: a heading's
// words without emphasis marks or link targets.
func inlineText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return strings.Join(strings.Fields(b.String()), " ")
}

// frontMatter splits off a YAML front matter block ("---" lines at the
// very top), which goldmark would read as a rule and a setext heading,
// and returns its title: field, if any.
func frontMatter(s string) (body, title string) {
	if !strings.HasPrefix(s, "---\n") {
		return s, ""
	}
	end := strings.Index(s[4:], "\n---\n")
	if end < 0 {
		return s, ""
	}
	for _, line := range strings.Split(s[4:4+end], "\n") {
		if v, ok := strings.CutPrefix(line, "title:"); ok {
			title = strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return s[4+end+5:], title
}

// headingPath is the headings above the current block, by level (1–9;
// level 0 is a document's title paragraph in a DOCX).
type headingPath [10]string

// set makes t the heading at level, forgetting those below it.
func (p *headingPath) set(level int, t string) {
	level = min(max(level, 0), len(p)-1)
	p[level] = t
	for i := level + 1; i < len(p); i++ {
		p[i] = ""
	}
}

// String joins the path's headings, outermost first, skipping levels a
// document jumped over.
func (p *headingPath) String() string {
	var parts []string
	for _, h := range p {
		if h != "" {
			parts = append(parts, h)
		}
	}
	return strings.Join(parts, " › ")
}

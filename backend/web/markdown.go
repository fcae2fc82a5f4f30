package web

import (
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/agentdeck/agentdeck/backend/knowledge"
)

// HTML to Markdown, as blocks under their headings: what a page's main
// text becomes for the model and for a document's passages. It keeps
// what carries meaning in text (headings, paragraphs, lists, tables, code,
// quotes, links, emphasis) and drops what does not (scripts, styles,
// navigation, forms, images).

// blocksOf converts an HTML tree to blocks in reading order. Each block's
// Heading is the path of headings above it ("Results › Revenue").
func blocksOf(n *html.Node) []knowledge.Block {
	c := &converter{}
	c.walk(n)
	c.flush()
	return c.blocks
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

// skipped are elements whose content is never text of the page.
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Nav: true, atom.Header: true, atom.Footer: true, atom.Aside: true,
	atom.Form: true, atom.Button: true, atom.Select: true, atom.Input: true, atom.Textarea: true,
	atom.Iframe: true, atom.Svg: true, atom.Math: true, atom.Canvas: true, atom.Img: true,
	atom.Picture: true, atom.Video: true, atom.Audio: true, atom.Object: true, atom.Embed: true,
	atom.Head: true, atom.Title: true, atom.Meta: true, atom.Link: true,
}

// containers are block elements whose children are walked as blocks.
var containers = map[atom.Atom]bool{
	atom.Html: true, atom.Body: true, atom.Div: true, atom.Section: true, atom.Article: true,
	atom.Main: true, atom.Figure: true, atom.Details: true, atom.Dl: true, atom.Center: true,
}

// paragraphs are block elements whose content is one paragraph of text.
var paragraphs = map[atom.Atom]bool{
	atom.P: true, atom.Figcaption: true, atom.Summary: true, atom.Dt: true, atom.Dd: true,
	atom.Address: true, atom.Caption: true,
}

var headingLevel = map[atom.Atom]int{atom.H1: 1, atom.H2: 2, atom.H3: 3, atom.H4: 4, atom.H5: 5, atom.H6: 6}

// converter gathers blocks as it walks the tree.
type converter struct {
	blocks   []knowledge.Block
	headings [6]string // the current heading of each level
	cur      strings.Builder
}

func (c *converter) walk(n *html.Node) {
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		c.node(ch)
	}
}

func (c *converter) node(n *html.Node) {
	switch {
	case n.Type == html.TextNode:
		c.cur.WriteString(collapse(n.Data))
		return
	case n.Type == html.DocumentNode:
		c.walk(n)
		return
	case n.Type != html.ElementNode || skipped[n.DataAtom]:
		return
	}
	if lvl, ok := headingLevel[n.DataAtom]; ok {
		c.flush()
		c.heading(lvl, oneLine(inline(n)))
		return
	}
	switch {
	case containers[n.DataAtom]:
		c.flush()
		c.walk(n)
		c.flush()
	case paragraphs[n.DataAtom]:
		c.block(tidy(inline(n)))
	case n.DataAtom == atom.Ul || n.DataAtom == atom.Ol:
		c.block(list(n, 0))
	case n.DataAtom == atom.Pre:
		c.block("```\n" + strings.Trim(textOf(n), "\n") + "\n```")
	case n.DataAtom == atom.Blockquote:
		sub := blocksOf(n)
		var lines []string
		for _, b := range sub {
			lines = append(lines, b.Text)
		}
		c.block(quote(strings.Join(lines, "\n\n")))
	case n.DataAtom == atom.Table:
		c.block(table(n))
	case n.DataAtom == atom.Hr:
		c.flush()
	default:
		c.cur.WriteString(inline(n))
	}
}

// heading makes title the heading of level lvl, and forgets the deeper ones.
func (c *converter) heading(lvl int, title string) {
	if title == "" {
		return
	}
	c.headings[lvl-1] = title
	for i := lvl; i < len(c.headings); i++ {
		c.headings[i] = ""
	}
}

func (c *converter) path() string {
	var p []string
	for _, h := range c.headings {
		if h != "" {
			p = append(p, h)
		}
	}
	return strings.Join(p, headingSep)
}

// block ends the running text and adds text, as it is (a list's
// indents, a code block's lines), as a block of its own.
func (c *converter) block(text string) {
	c.flush()
	if text = strings.Trim(text, "\n"); strings.TrimSpace(text) != "" {
		c.blocks = append(c.blocks, knowledge.Block{Heading: c.path(), Text: text})
	}
}

func (c *converter) flush() {
	text := tidy(c.cur.String())
	c.cur.Reset()
	if text != "" {
		c.blocks = append(c.blocks, knowledge.Block{Heading: c.path(), Text: text})
	}
}

// inline renders an element's content as one run of Markdown text.
func inline(n *html.Node) string {
	var b strings.Builder
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		b.WriteString(inlineOne(ch))
	}
	return b.String()
}

// inlineOne renders one node inside a run of text.
func inlineOne(n *html.Node) string {
	switch {
	case n.Type == html.TextNode:
		return collapse(n.Data)
	case n.Type != html.ElementNode || skipped[n.DataAtom]:
		return ""
	case n.DataAtom == atom.Br:
		return "\n"
	case n.DataAtom == atom.A:
		return link(n)
	case n.DataAtom == atom.Strong || n.DataAtom == atom.B:
		return wrap("**", inline(n))
	case n.DataAtom == atom.Em || n.DataAtom == atom.I:
		return wrap("*", inline(n))
	case n.DataAtom == atom.Code || n.DataAtom == atom.Kbd || n.DataAtom == atom.Samp:
		return wrap("`", textOf(n))
	case n.DataAtom == atom.Ul || n.DataAtom == atom.Ol:
		return "\n" + list(n, 0) + "\n"
	case paragraphs[n.DataAtom] || containers[n.DataAtom] || headingLevel[n.DataAtom] > 0:
		return "\n" + inline(n) + "\n"
	}
	return inline(n)
}

// link is a link in Markdown, or its text alone when its target is not a
// web address or is the text itself.
func link(a *html.Node) string {
	text := strings.TrimSpace(inline(a))
	href := attr(a, "href")
	if text == "" || !(strings.HasPrefix(href, "http://") || strings.HasPrefix(href, "https://")) || href == text {
		return text
	}
	return "[" + text + "](" + href + ")"
}

// list renders a list as Markdown, nested lists indented.
func list(n *html.Node, depth int) string {
	var lines []string
	i := 0
	for li := n.FirstChild; li != nil; li = li.NextSibling {
		if li.Type != html.ElementNode || li.DataAtom != atom.Li {
			continue
		}
		i++
		marker := "- "
		if n.DataAtom == atom.Ol {
			marker = strconv.Itoa(i) + ". "
		}
		indent := strings.Repeat("  ", depth)
		var own strings.Builder
		var nested []string
		for ch := li.FirstChild; ch != nil; ch = ch.NextSibling {
			if ch.Type == html.ElementNode && (ch.DataAtom == atom.Ul || ch.DataAtom == atom.Ol) {
				nested = append(nested, list(ch, depth+1))
				continue
			}
			own.WriteString(inlineOne(ch))
		}
		text := strings.ReplaceAll(tidy(own.String()), "\n", "\n"+indent+"  ")
		lines = append(lines, indent+marker+text)
		lines = append(lines, nested...)
	}
	return strings.Join(lines, "\n")
}

// table renders a table as Markdown, its first row the header.
func table(n *html.Node) string {
	var rows [][]string
	var visit func(*html.Node)
	visit = func(x *html.Node) {
		for ch := x.FirstChild; ch != nil; ch = ch.NextSibling {
			if ch.Type != html.ElementNode {
				continue
			}
			switch ch.DataAtom {
			case atom.Tr:
				var cells []string
				for td := ch.FirstChild; td != nil; td = td.NextSibling {
					if td.Type == html.ElementNode && (td.DataAtom == atom.Td || td.DataAtom == atom.Th) {
						cells = append(cells, strings.ReplaceAll(oneLine(inline(td)), "|", `\|`))
					}
				}
				rows = append(rows, cells)
			case atom.Thead, atom.Tbody, atom.Tfoot:
				visit(ch)
			}
		}
	}
	visit(n)
	width := 0
	for _, r := range rows {
		width = max(width, len(r))
	}
	if width == 0 {
		return ""
	}
	var b strings.Builder
	for i, r := range rows {
		for len(r) < width {
			r = append(r, "")
		}
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
		if i == 0 {
			b.WriteString("|" + strings.Repeat(" --- |", width) + "\n")
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// quote marks every line of text as quoted.
func quote(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight("> "+l, " ")
	}
	return strings.Join(lines, "\n")
}

// textOf is an element's text as written (for code: spaces kept).
func textOf(n *html.Node) string {
	var b strings.Builder
	var visit func(*html.Node)
	visit = func(x *html.Node) {
		if x.Type == html.TextNode {
			b.WriteString(x.Data)
		}
		for ch := x.FirstChild; ch != nil; ch = ch.NextSibling {
			visit(ch)
		}
	}
	visit(n)
	return b.String()
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func wrap(mark, s string) string {
	if t := strings.TrimSpace(s); t != "" {
		return mark + t + mark
	}
	return s
}

// collapse turns runs of white space into one space, as a browser shows them.
func collapse(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' {
			space = true
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	if space {
		b.WriteByte(' ')
	}
	return b.String()
}

// tidy trims each line and drops blank lines beyond one.
func tidy(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	blank := false
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			blank = len(out) > 0
			continue
		}
		if blank {
			out = append(out, "")
			blank = false
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

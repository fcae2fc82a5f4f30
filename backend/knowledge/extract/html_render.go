package extract

import (
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// maxHTMLDepth bounds the walk, so no page can grow the stack without
// end. The parser already refuses a page with more than 512 elements open
// at once, so this leaves out nothing it reads.
const maxHTMLDepth = 600

// converter walks an HTML tree and emits blocks: text gathers in para
// until a block element ends it.
type converter struct {
	out     []mdBlock
	path    headingPath
	para    strings.Builder
	title   string
	firstH1 string
	// nested is true for a converter rendering inside a list item, a cell
	// or a quote: headings there are bold text, not part of the path.
	nested bool
}

// dropped are the elements whose content is not the page's text.
var dropped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Nav: true, atom.Aside: true, atom.Footer: true, atom.Form: true,
	atom.Button: true, atom.Input: true, atom.Select: true, atom.Textarea: true,
	atom.Iframe: true, atom.Svg: true, atom.Canvas: true, atom.Object: true,
	atom.Embed: true, atom.Math: true, atom.Dialog: true, atom.Menu: true,
}

// containers are block elements whose children are walked in place.
var containers = map[atom.Atom]bool{
	atom.Html: true, atom.Body: true, atom.P: true, atom.Div: true, atom.Section: true,
	atom.Article: true, atom.Main: true, atom.Header: true, atom.Figure: true,
	atom.Figcaption: true, atom.Address: true, atom.Details: true, atom.Summary: true,
	atom.Center: true, atom.Fieldset: true, atom.Dl: true, atom.Dt: true, atom.Dd: true,
	atom.Li: true, atom.Td: true, atom.Th: true, atom.Tr: true, atom.Caption: true,
	atom.Hgroup: true, atom.Legend: true,
}

// blockish are the elements that start a new block: an inline element
// holding one of them is walked as a container.
var blockish = func() map[atom.Atom]bool {
	m := map[atom.Atom]bool{
		atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
		atom.Ul: true, atom.Ol: true, atom.Table: true, atom.Pre: true, atom.Blockquote: true, atom.Hr: true,
	}
	for a := range containers {
		m[a] = true
	}
	return m
}()

func (c *converter) walk(n *html.Node, depth int) {
	if depth > maxHTMLDepth {
		return
	}
	switch n.Type {
	case html.DocumentNode:
		c.children(n, depth)
		return
	case html.TextNode:
		c.para.WriteString(collapse(n.Data))
		return
	case html.ElementNode:
	default:
		return
	}
	if skipped(n) {
		return
	}
	switch a := n.DataAtom; {
	case a == atom.Head:
		if t := find(n, atom.Title); t != nil {
			c.title = strings.Join(strings.Fields(textOf(t)), " ")
		}
	case headingLevel(a) > 0:
		c.heading(n, headingLevel(a))
	case a == atom.Ul || a == atom.Ol:
		c.block(c.list(n, depth))
	case a == atom.Table:
		c.block(c.table(n, depth))
	case a == atom.Pre:
		c.block(fenced(n))
	case a == atom.Blockquote:
		c.block(prefixLines(c.nestedText(n, depth, "\n\n"), "> "))
	case a == atom.Hr:
		c.flush()
	case a == atom.Br:
		c.para.WriteString("\n")
	case a == atom.Img:
		c.para.WriteString(image(n))
	case containers[a] || hasBlock(n):
		c.flush()
		c.children(n, depth)
		c.flush()
	default:
		c.inline(n, depth)
	}
}

func (c *converter) children(n *html.Node, depth int) {
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		c.walk(ch, depth+1)
	}
}

// inline writes an inline element with its Markdown marks.
func (c *converter) inline(n *html.Node, depth int) {
	inner := c.nestedText(n, depth, " ")
	if strings.TrimSpace(inner) == "" {
		c.para.WriteString(inner)
		return
	}
	open, close := "", ""
	switch n.DataAtom {
	case atom.Strong, atom.B:
		open, close = "**", "**"
	case atom.Em, atom.I:
		open, close = "*", "*"
	case atom.Code, atom.Kbd, atom.Samp, atom.Tt:
		open, close = "`", "`"
	case atom.A:
		if href := linkTarget(attr(n, "href")); href != "" {
			open, close = "[", "]("+href+")"
		}
	}
	lead := inner[:len(inner)-len(strings.TrimLeft(inner, " "))]
	trail := inner[len(strings.TrimRight(inner, " ")):]
	c.para.WriteString(lead + open + strings.TrimSpace(inner) + close + trail)
}

// heading ends the block before it and starts a new heading path.
func (c *converter) heading(n *html.Node, level int) {
	c.flush()
	t := strings.Join(strings.Fields(textOf(n)), " ") // plain: a path holds no links
	if t == "" {
		return
	}
	if c.nested {
		c.para.WriteString("**" + t + "**")
		c.flush()
		return
	}
	if level == 1 && c.firstH1 == "" {
		c.firstH1 = t
	}
	c.path.set(level, t)
	c.out = append(c.out, mdBlock{level: level, path: c.path.String(), text: t})
}

// block ends the paragraph before it and emits text as a block of its own.
func (c *converter) block(text string) {
	c.flush()
	if strings.TrimSpace(text) != "" {
		c.out = append(c.out, mdBlock{path: c.path.String(), text: text})
	}
}

// flush emits the gathered paragraph, its lines trimmed and their spaces
// collapsed.
func (c *converter) flush() {
	lines := strings.Split(c.para.String(), "\n")
	c.para.Reset()
	var kept []string
	for _, l := range lines {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			kept = append(kept, l)
		}
	}
	if len(kept) > 0 {
		c.out = append(c.out, mdBlock{path: c.path.String(), text: strings.Join(kept, "\n")})
	}
}

// nestedText renders n's children with a converter of their own and joins
// its blocks with sep: the content of a list item, a cell, a quote, a
// link.
func (c *converter) nestedText(n *html.Node, depth int, sep string) string {
	sub := &converter{nested: true}
	sub.children(n, depth)
	if len(sub.out) == 0 {
		return sub.para.String()
	}
	sub.flush()
	parts := make([]string, len(sub.out))
	for i, b := range sub.out {
		parts[i] = b.text
	}
	return strings.Join(parts, sep)
}

// list renders ul or ol as Markdown items; an item's further lines (a
// second paragraph, a nested list) are indented under its marker.
func (c *converter) list(n *html.Node, depth int) string {
	num, _ := strconv.Atoi(attr(n, "start"))
	if num == 0 {
		num = 1
	}
	var lines []string
	for li := n.FirstChild; li != nil; li = li.NextSibling {
		if li.Type != html.ElementNode || li.DataAtom != atom.Li || skipped(li) {
			continue
		}
		marker := "- "
		if n.DataAtom == atom.Ol {
			marker = fmt.Sprintf("%d. ", num)
			num++
		}
		body := strings.TrimSpace(c.nestedText(li, depth+1, "\n"))
		lines = append(lines, marker+strings.ReplaceAll(body, "\n", "\n"+strings.Repeat(" ", len(marker))))
	}
	return strings.Join(lines, "\n")
}

// table renders a table as Markdown rows, the first as the header; a cell
// spanning columns is followed by empty cells so the columns line up.
func (c *converter) table(n *html.Node, depth int) string {
	var rows [][]string
	var walkRows func(*html.Node, int)
	walkRows = func(p *html.Node, d int) {
		for ch := p.FirstChild; ch != nil && d <= maxHTMLDepth; ch = ch.NextSibling {
			switch {
			case ch.Type != html.ElementNode || skipped(ch):
			case ch.DataAtom == atom.Tr:
				rows = append(rows, c.row(ch, d))
			case ch.DataAtom == atom.Thead, ch.DataAtom == atom.Tbody, ch.DataAtom == atom.Tfoot:
				walkRows(ch, d+1)
			}
		}
	}
	walkRows(n, depth+1)
	caption := ""
	if cp := find(n, atom.Caption); cp != nil {
		caption = strings.Join(strings.Fields(textOf(cp)), " ")
	}
	t := markdownTable(rows)
	if caption == "" || t == "" {
		return caption + t
	}
	return caption + "\n\n" + t
}

func (c *converter) row(tr *html.Node, depth int) []string {
	var cells []string
	for td := tr.FirstChild; td != nil; td = td.NextSibling {
		if td.Type != html.ElementNode || (td.DataAtom != atom.Td && td.DataAtom != atom.Th) || skipped(td) {
			continue
		}
		cells = append(cells, c.nestedText(td, depth+1, " "))
		span, _ := strconv.Atoi(attr(td, "colspan"))
		for i := 1; i < min(span, 100); i++ {
			cells = append(cells, "")
		}
	}
	return cells
}

package extract

import (
	"fmt"
	"strings"

	"github.com/agentdeck/agentdeck/backend/knowledge"
)

// docxBuilder turns paragraphs and tables into pages of blocks.
type docxBuilder struct {
	st   *docxStyles
	ex   knowledge.Extracted
	path headingPath
	page int
	// pending is a page break seen after text on this page: the next
	// text starts a new page (breaks with no text between count once).
	pending, textOnPage, sawBreak bool
	list                          []string         // the lines of a list being gathered
	code                          []string         // the lines of code being gathered
	counters                      map[string][]int // numId → items by level
}

func (b *docxBuilder) paragraph(p docxPara) {
	level := -1
	if p.style != "" {
		level = b.st.headingLevel(p.style)
	}
	if level < 0 && p.outline > 0 {
		level = p.outline
	}
	switch {
	case level >= 0:
		b.heading(p, level)
	case (p.numID != "" && p.numID != "0") || b.st.isList(p.style):
		b.flushCode()
		b.listItem(p)
	case b.st.isCode(p.style):
		b.flushListItems()
		b.codeLines(p)
	default:
		b.flushGroups()
		var acc strings.Builder
		for _, it := range p.items {
			if it.brk {
				b.add(acc.String())
				acc.Reset()
				b.pageBreak()
				continue
			}
			acc.WriteString(it.text)
		}
		b.add(acc.String())
	}
}

func (b *docxBuilder) heading(p docxPara, level int) {
	var acc strings.Builder
	for _, it := range p.items {
		if it.brk {
			b.pageBreak()
		}
		acc.WriteString(it.text)
	}
	t := strings.Join(strings.Fields(acc.String()), " ")
	if t == "" {
		return
	}
	b.flushGroups()
	b.path.set(level, t)
	if level == 0 && b.ex.Title == "" {
		b.ex.Title = t
	}
}

// listItem adds a list paragraph to the list being gathered, with its
// marker ("- ", or its number at its level) and indent.
func (b *docxBuilder) listItem(p docxPara) {
	marker := "- "
	if lv := b.st.level(p.numID, p.ilvl, p.style); lv.numbered {
		c := b.counters[p.numID]
		if c == nil {
			c = make([]int, 9)
			b.counters[p.numID] = c
		}
		c[p.ilvl]++ // items so far at this level, since a higher one
		for i := p.ilvl + 1; i < len(c); i++ {
			c[i] = 0
		}
		marker = fmt.Sprintf("%d. ", lv.start+c[p.ilvl]-1)
	}
	indent := strings.Repeat("  ", p.ilvl)
	var acc strings.Builder
	for _, it := range p.items {
		if it.brk {
			if t := clean(acc.String()); t != "" {
				b.list = append(b.list, indent+marker+t)
				marker = "  "
			}
			acc.Reset()
			b.flushGroups()
			b.pageBreak()
			continue
		}
		acc.WriteString(it.text)
	}
	if t := clean(acc.String()); t != "" {
		b.list = append(b.list, indent+marker+t)
	}
}

// table adds a table as Markdown rows; where a page breaks inside a row,
// the rows before it stay on the old page and that row starts the new one.
func (b *docxBuilder) table(rows []docxRow) {
	b.flushGroups()
	var frag [][]string
	for _, r := range rows {
		if r.brk {
			b.addRaw(markdownTable(frag))
			frag = nil
			b.pageBreak()
		}
		frag = append(frag, r.cells)
	}
	b.addRaw(markdownTable(frag))
}

// codeLines adds a code paragraph's lines, as written, to the code being
// gathered: Word writes a paragraph per line, and they are one block.
func (b *docxBuilder) codeLines(p docxPara) {
	var acc strings.Builder
	for _, it := range p.items {
		if it.brk {
			b.code = append(b.code, acc.String())
			acc.Reset()
			b.flushCode()
			b.pageBreak()
			continue
		}
		acc.WriteString(it.text)
	}
	b.code = append(b.code, strings.Split(acc.String(), "\n")...)
}

// flushGroups ends the list or the code being gathered.
func (b *docxBuilder) flushGroups() {
	b.flushListItems()
	b.flushCode()
}

func (b *docxBuilder) flushListItems() {
	if len(b.list) > 0 {
		b.addRaw(strings.Join(b.list, "\n"))
		b.list = nil
	}
}

// flushCode adds the code gathered as a fenced block.
func (b *docxBuilder) flushCode() {
	for i := range b.code {
		b.code[i] = strings.TrimRight(b.code[i], " \t")
	}
	code := strings.Trim(strings.Join(b.code, "\n"), "\n")
	b.code = nil
	if strings.TrimSpace(code) == "" {
		return
	}
	fence := "```"
	for strings.Contains(code, fence) {
		fence += "`"
	}
	b.addRaw(fence + "\n" + code + "\n" + fence)
}

// add adds a paragraph's text, its spaces tidied, as a block.
func (b *docxBuilder) add(text string) { b.addRaw(clean(text)) }

func (b *docxBuilder) addRaw(text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	if b.pending {
		b.page++
		b.pending = false
	}
	for len(b.ex.Pages) < b.page {
		b.ex.Pages = append(b.ex.Pages, knowledge.Page{Number: len(b.ex.Pages) + 1})
	}
	pg := &b.ex.Pages[b.page-1]
	pg.Blocks = append(pg.Blocks, knowledge.Block{Heading: b.path.String(), Text: text})
	b.textOnPage = true
}

func (b *docxBuilder) pageBreak() {
	b.flushGroups()
	b.sawBreak = true
	if b.textOnPage {
		b.pending = true
		b.textOnPage = false
	}
}

func (b *docxBuilder) finish() knowledge.Extracted {
	b.flushGroups()
	b.ex.Format = knowledge.FormatDOCX
	if len(b.ex.Pages) == 0 {
		b.ex.Pages = []knowledge.Page{{Number: 1}}
	}
	if !b.sawBreak {
		b.ex.Note = "This DOCX stores no page breaks, so it is read as one page."
	}
	return b.ex
}

// clean collapses each line's runs of spaces and drops empty lines.
func clean(s string) string {
	var kept []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

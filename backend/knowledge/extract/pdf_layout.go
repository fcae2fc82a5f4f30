package extract

import (
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentdeck/agentdeck/backend/knowledge"
)

// PDFium gives a page's text as runs ("rects"): text on one line in one
// font, with its box and font size, in PDFium's reading order. It gives no
// structure, so the layout below is derived, simply:
//
//   - Lines: a run joins the line before it when their boxes overlap by
//     half the smaller height; else it starts a new line.
//   - Columns: two runs of one line more than one font size apart are two
//     cells, joined by " | " (a table row comes out as "a | b | c").
//   - Headings: a line in a font at least 1.15× the body's (the size most
//     characters of the document are in), of at most 100 characters with
//     a letter in it. A larger heading is a higher level; the heading path
//     ("River Survey › Results") runs on across pages until the next.
//   - Blocks: a new block starts after a heading, where the gap between
//     two lines is more than their font size, and where rows of cells
//     start or stop (a table is its own block, its rows kept together).
//     A paragraph's lines are joined by spaces (a line ending in a hyphen
//     joins the next without one); a table's rows by newlines.

// run is a piece of text on one line in one font (PDFium's rect), in
// points, y upwards.
type run struct {
	text                     string
	left, right, bottom, top float64
	size                     float64
}

// line is one line of a page: its cells, its box and its largest font.
type line struct {
	cells       []string
	right       float64
	bottom, top float64
	size        float64
	runes       int
	space       bool // its last run ended in a space
}

const (
	headingScale = 1.15 // a heading's font is at least this times the body's
	headingRunes = 100  // and its line at most this long
	cellGapEm    = 1.0  // runs further apart than this many font sizes are cells
	wordGapEm    = 0.1  // runs further apart than this are two words
	blockGapEm   = 1.0  // lines further apart than this start a new block
)

// lines groups a page's runs into lines, in order.
func lines(runs []run) []line {
	var out []line
	for _, r := range runs {
		text := strings.TrimSpace(r.text)
		if text == "" {
			continue
		}
		n := len(out)
		if n > 0 && sameLine(out[n-1], r) {
			l := &out[n-1]
			switch gap := r.left - l.right; {
			case gap > cellGapEm*max(r.size, l.size):
				l.cells = append(l.cells, text)
			case gap > wordGapEm*max(r.size, l.size) || strings.HasPrefix(r.text, " ") || l.space:
				l.cells[len(l.cells)-1] += " " + text
			default: // a run that goes on inside a word (a bold letter)
				l.cells[len(l.cells)-1] += text
			}
			l.space = strings.HasSuffix(r.text, " ")
			l.right = max(l.right, r.right)
			l.bottom, l.top = min(l.bottom, r.bottom), max(l.top, r.top)
			l.size = max(l.size, r.size)
			l.runes += utf8.RuneCountInString(text)
			continue
		}
		out = append(out, line{cells: []string{text}, right: r.right, bottom: r.bottom, top: r.top, size: r.size,
			runes: utf8.RuneCountInString(text), space: strings.HasSuffix(r.text, " ")})
	}
	return out
}

// sameLine tells whether r sits on l: their boxes overlap vertically by at
// least half the smaller height.
func sameLine(l line, r run) bool {
	overlap := min(l.top, r.top) - max(l.bottom, r.bottom)
	return overlap > 0.5*min(l.top-l.bottom, r.top-r.bottom)
}

// bodySize is the font size most of the document's characters are in.
func bodySize(pages [][]line) float64 {
	count := map[float64]int{}
	for _, ls := range pages {
		for _, l := range ls {
			count[math.Round(l.size*2)/2] += l.runes
		}
	}
	best, n := 0.0, -1
	for size, c := range count {
		if c > n || c == n && size < best {
			best, n = size, c
		}
	}
	return best
}

// isHeading tells whether l is a heading in a document whose body is in
// font size body.
func isHeading(l line, body float64) bool {
	return body > 0 && l.size >= headingScale*body && l.runes <= headingRunes &&
		len(l.cells) == 1 && strings.IndexFunc(l.cells[0], unicode.IsLetter) >= 0
}

// headings is the heading path above the text being read: each level's
// text and font size, largest first.
type headings []struct {
	text string
	size float64
}

// push makes l the current heading: it replaces the headings of its size
// or smaller.
func (h headings) push(text string, size float64) headings {
	for len(h) > 0 && h[len(h)-1].size <= size+0.25 {
		h = h[:len(h)-1]
	}
	return append(h, struct {
		text string
		size float64
	}{text, size})
}

func (h headings) path() string {
	parts := make([]string, len(h))
	for i, x := range h {
		parts[i] = x.text
	}
	return strings.Join(parts, " › ")
}

// layout turns the documents' pages of lines into pages of blocks under
// their headings. pageLines[i] is page i+1.
func layout(pageLines [][]line) []knowledge.Page {
	body := bodySize(pageLines)
	var path headings
	pages := make([]knowledge.Page, len(pageLines))
	for i, ls := range pageLines {
		pg := knowledge.Page{Number: i + 1}
		var cur []line
		flush := func() {
			if len(cur) > 0 {
				pg.Blocks = append(pg.Blocks, knowledge.Block{Heading: path.path(), Text: blockText(cur)})
			}
			cur = nil
		}
		for _, l := range ls {
			if isHeading(l, body) {
				flush()
				path = path.push(l.cells[0], l.size)
				continue
			}
			if n := len(cur); n > 0 && breaksBlock(cur[n-1], l) {
				flush()
			}
			cur = append(cur, l)
		}
		flush()
		pages[i] = pg
	}
	return pages
}

// breaksBlock tells whether next starts a new block after prev.
func breaksBlock(prev, next line) bool {
	if (len(prev.cells) > 1) != (len(next.cells) > 1) {
		return true
	}
	gap := prev.bottom - next.top
	if len(prev.cells) > 1 {
		return gap > 2*blockGapEm*max(prev.size, next.size) // rows of a table sit further apart
	}
	return gap > blockGapEm*max(prev.size, next.size)
}

// blockText is a block's lines as text: a table's rows one per line, a
// paragraph's lines joined by spaces.
func blockText(ls []line) string {
	var b strings.Builder
	for i, l := range ls {
		text := strings.Join(l.cells, " | ")
		switch {
		case i == 0:
		case len(l.cells) > 1:
			b.WriteByte('\n')
		case strings.HasSuffix(b.String(), "-"):
		default:
			b.WriteByte(' ')
		}
		b.WriteString(text)
	}
	return b.String()
}

// pagesNote is the note for a document whose pages in empty (numbered from
// 1, ascending) have no text layer: "pages 3–4, 7 have no text layer
// (scanned?)"; "" when none.
func pagesNote(empty []int) string {
	if len(empty) == 0 {
		return ""
	}
	var parts []string
	for i := 0; i < len(empty); {
		j := i
		for j+1 < len(empty) && empty[j+1] == empty[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, fmt.Sprint(empty[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d–%d", empty[i], empty[j]))
		}
		i = j + 1
	}
	if len(empty) == 1 {
		return fmt.Sprintf("page %d has no text layer (scanned?)", empty[0])
	}
	return fmt.Sprintf("pages %s have no text layer (scanned?)", strings.Join(parts, ", "))
}

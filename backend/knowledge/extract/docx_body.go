package extract

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/agentdeck/agentdeck/backend/knowledge"
)

// maxTableNesting bounds tables in tables; deeper ones are skipped.
const maxTableNesting = 8

// docxItem is a piece of a paragraph: text, or a page break (brk).
type docxItem struct {
	text string
	brk  bool
}

// docxPara is one w:p: its style, list place, outline level and content.
type docxPara struct {
	style   string
	numID   string
	ilvl    int
	outline int // from the paragraph's own w:outlineLvl, 1–9; 0 when none
	items   []docxItem
	// breakAfter: the paragraph ends a section that starts a new page.
	breakAfter bool
}

// docxRow is a table row's cells; brk is true when a page breaks in it.
type docxRow struct {
	cells []string
	brk   bool
}

// readBody reads word/document.xml in order, as a stream.
func readBody(ctx context.Context, doc []byte, st *docxStyles) (knowledge.Extracted, error) {
	d := xml.NewDecoder(bytes.NewReader(doc))
	b := &docxBuilder{st: st, page: 1, counters: map[string][]int{}}
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return knowledge.Extracted{}, xmlErr(err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Local {
		case "p":
			if err := ctx.Err(); err != nil {
				return knowledge.Extracted{}, err
			}
			p, err := readPara(d)
			if err != nil {
				return knowledge.Extracted{}, err
			}
			b.paragraph(p)
		case "tbl":
			rows, err := readTable(d, 0)
			if err != nil {
				return knowledge.Extracted{}, err
			}
			b.table(rows)
		case "Fallback", "sectPr":
			// mc:Fallback repeats mc:Choice for older readers; the body's
			// sectPr holds only layout.
			if err := d.Skip(); err != nil {
				return knowledge.Extracted{}, xmlErr(err)
			}
		}
	}
	return b.finish(), nil
}

// readPara reads a w:p after its start element, up to its end.
func readPara(d *xml.Decoder) (docxPara, error) {
	p := docxPara{}
	depth := 1
	for depth > 0 {
		tok, err := d.Token()
		if err != nil {
			return p, xmlErr(err)
		}
		switch t := tok.(type) {
		case xml.EndElement:
			depth--
			continue
		case xml.StartElement:
			depth++
			skip := false
			switch t.Name.Local {
			case "pPr":
				if depth == 2 {
					err = p.readProps(d)
				} else {
					err = d.Skip()
				}
				skip = true
			case "t":
				var s string
				err = d.DecodeElement(&s, &t)
				p.items = append(p.items, docxItem{text: s})
				skip = true
			case "tab":
				p.items = append(p.items, docxItem{text: " "})
			case "br", "cr":
				switch attrVal(t, "type") {
				case "page":
					p.items = append(p.items, docxItem{brk: true})
				case "column":
					p.items = append(p.items, docxItem{text: " "})
				default:
					p.items = append(p.items, docxItem{text: "\n"})
				}
			case "lastRenderedPageBreak":
				p.items = append(p.items, docxItem{brk: true})
			case "noBreakHyphen":
				p.items = append(p.items, docxItem{text: "-"})
			case "p": // a text box's paragraph inside this one
				p.items = append(p.items, docxItem{text: " "})
			case "Fallback", "moveFrom", "instrText", "delText", "rPr":
				err = d.Skip()
				skip = true
			}
			if skip {
				depth--
			}
			if err != nil {
				return p, xmlErr(err)
			}
		}
	}
	if p.breakAfter {
		p.items = append(p.items, docxItem{brk: true})
	}
	return p, nil
}

// readProps reads a paragraph's w:pPr: its style, list place, outline
// level, and the page breaks it asks for (page break before; a section
// break, which starts a new page unless it is continuous).
func (p *docxPara) readProps(d *xml.Decoder) error {
	brkAfter := false
	for depth := 1; depth > 0; {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.EndElement:
			depth--
		case xml.StartElement:
			depth++
			v := attrVal(t, "val")
			switch t.Name.Local {
			case "pStyle":
				p.style = v
			case "numId":
				p.numID = v
			case "ilvl":
				p.ilvl, _ = strconv.Atoi(v)
				p.ilvl = min(max(p.ilvl, 0), 8)
			case "outlineLvl":
				if n, err := strconv.Atoi(v); err == nil && n >= 0 && n < 9 {
					p.outline = n + 1
				}
			case "pageBreakBefore":
				if v == "" || v == "1" || v == "true" || v == "on" {
					p.items = append([]docxItem{{brk: true}}, p.items...)
				}
			case "sectPr":
				brkAfter = !sectionContinues(d)
				depth--
			case "pPrChange", "rPr":
				// the paragraph's former properties (a tracked change),
				// and the mark's run properties: not this paragraph's
				if err := d.Skip(); err != nil {
					return err
				}
				depth--
			}
		}
	}
	p.breakAfter = brkAfter
	return nil
}

// sectionContinues reads a w:sectPr and is true when its w:type is
// continuous (no new page).
func sectionContinues(d *xml.Decoder) bool {
	continuous := false
	for depth := 1; depth > 0; {
		tok, err := d.Token()
		if err != nil {
			return continuous
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if t.Name.Local == "type" && attrVal(t, "val") == "continuous" {
				continuous = true
			}
		case xml.EndElement:
			depth--
		}
	}
	return continuous
}

// readTable reads a w:tbl after its start element: its rows, each cell
// as one line of text (a nested table flattened into its cell).
func readTable(d *xml.Decoder, nesting int) ([]docxRow, error) {
	var rows []docxRow
	var row *docxRow
	depth := 1
	for depth > 0 {
		tok, err := d.Token()
		if err != nil {
			return nil, xmlErr(err)
		}
		switch t := tok.(type) {
		case xml.EndElement:
			depth--
			if t.Name.Local == "tr" && row != nil {
				rows = append(rows, *row)
				row = nil
			}
		case xml.StartElement:
			depth++
			switch t.Name.Local {
			case "tr":
				row = &docxRow{}
			case "tc":
				text, span, brk, err := readCell(d, nesting)
				if err != nil {
					return nil, err
				}
				depth--
				if row == nil {
					row = &docxRow{}
				}
				row.brk = row.brk || brk
				row.cells = append(row.cells, text)
				for i := 1; i < min(span, 64); i++ {
					row.cells = append(row.cells, "")
				}
			case "tblPr", "tblGrid", "trPr", "tblPrEx", "Fallback":
				if err := d.Skip(); err != nil {
					return nil, xmlErr(err)
				}
				depth--
			}
		}
	}
	return rows, nil
}

// readCell reads a w:tc after its start element: its paragraphs' text,
// the columns it spans, and whether a page breaks in it.
func readCell(d *xml.Decoder, nesting int) (text string, span int, brk bool, err error) {
	var parts []string
	span = 1
	for depth := 1; depth > 0; {
		tok, err := d.Token()
		if err != nil {
			return "", 0, false, xmlErr(err)
		}
		switch t := tok.(type) {
		case xml.EndElement:
			depth--
		case xml.StartElement:
			switch t.Name.Local {
			case "gridSpan":
				if n, err := strconv.Atoi(attrVal(t, "val")); err == nil && n > 1 {
					span = n
				}
				depth++
			case "p":
				p, err := readPara(d)
				if err != nil {
					return "", 0, false, err
				}
				for _, it := range p.items {
					brk = brk || it.brk
					parts = append(parts, it.text)
				}
				parts = append(parts, " ")
			case "tbl":
				if nesting >= maxTableNesting {
					if err := d.Skip(); err != nil {
						return "", 0, false, xmlErr(err)
					}
					continue
				}
				rows, err := readTable(d, nesting+1)
				if err != nil {
					return "", 0, false, err
				}
				for _, r := range rows {
					brk = brk || r.brk
					parts = append(parts, strings.Join(r.cells, " "), " ")
				}
			default:
				depth++
			}
		}
	}
	return strings.Join(parts, ""), span, brk, nil
}

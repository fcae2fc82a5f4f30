package extract

import (
	"encoding/xml"
	"strconv"
	"strings"
)

// docxStyles is what a DOCX's styles and numbering say about its
// paragraphs: which style is a heading of which level, which is a list,
// and whether a list's level is numbered or bulleted.
type docxStyles struct {
	styles map[string]docxStyle
	// levels: numId → ilvl → how that list level counts.
	levels map[string]map[int]listLevel
}

// listLevel is one level of a list: numbered (decimal, letters, roman)
// or bulleted, and the number it starts from.
type listLevel struct {
	numbered bool
	start    int
}

type docxStyle struct {
	name, basedOn string
	outline       int  // outline level 1–9 from w:outlineLvl, 0 when none
	list          bool // the style numbers its paragraphs (List Bullet)
}

// parseStyles reads word/styles.xml.
func (s *docxStyles) parseStyles(raw []byte) error {
	var doc struct {
		Styles []struct {
			Type    string `xml:"type,attr"`
			ID      string `xml:"styleId,attr"`
			Name    val    `xml:"name"`
			BasedOn val    `xml:"basedOn"`
			PPr     struct {
				Outline *val `xml:"outlineLvl"`
				NumPr   *struct {
					NumID val `xml:"numId"`
				} `xml:"numPr"`
			} `xml:"pPr"`
		} `xml:"style"`
	}
	if err := xml.Unmarshal(raw, &doc); err != nil {
		return xmlErr(err)
	}
	s.styles = map[string]docxStyle{}
	for _, st := range doc.Styles {
		if st.Type != "" && st.Type != "paragraph" {
			continue
		}
		ds := docxStyle{name: strings.ToLower(st.Name.Val), basedOn: st.BasedOn.Val}
		if st.PPr.Outline != nil {
			if n, err := strconv.Atoi(st.PPr.Outline.Val); err == nil && n >= 0 && n < 9 {
				ds.outline = n + 1
			}
		}
		ds.list = st.PPr.NumPr != nil && st.PPr.NumPr.NumID.Val != "0"
		s.styles[st.ID] = ds
	}
	return nil
}

// val is an element whose value is its w:val attribute.
type val struct {
	Val string `xml:"val,attr"`
}

// parseNumbering reads word/numbering.xml: each list's levels, from its
// abstract definition, with the start numbers it overrides.
func (s *docxStyles) parseNumbering(raw []byte) error {
	var doc struct {
		Abstract []struct {
			ID  string `xml:"abstractNumId,attr"`
			Lvl []struct {
				Ilvl   string `xml:"ilvl,attr"`
				Start  *val   `xml:"start"`
				NumFmt val    `xml:"numFmt"`
			} `xml:"lvl"`
		} `xml:"abstractNum"`
		Num []struct {
			ID       string `xml:"numId,attr"`
			Abstract val    `xml:"abstractNumId"`
			Override []struct {
				Ilvl  string `xml:"ilvl,attr"`
				Start *val   `xml:"startOverride"`
			} `xml:"lvlOverride"`
		} `xml:"num"`
	}
	if err := xml.Unmarshal(raw, &doc); err != nil {
		return xmlErr(err)
	}
	abstract := map[string]map[int]listLevel{}
	for _, a := range doc.Abstract {
		lv := map[int]listLevel{}
		for _, l := range a.Lvl {
			i, _ := strconv.Atoi(l.Ilvl)
			f := l.NumFmt.Val
			lv[i] = listLevel{numbered: f != "bullet" && f != "none" && f != "", start: startOf(l.Start)}
		}
		abstract[a.ID] = lv
	}
	s.levels = map[string]map[int]listLevel{}
	for _, n := range doc.Num {
		lv := map[int]listLevel{}
		for i, l := range abstract[n.Abstract.Val] {
			lv[i] = l
		}
		for _, o := range n.Override {
			i, _ := strconv.Atoi(o.Ilvl)
			if l := lv[i]; o.Start != nil {
				l.start = startOf(o.Start)
				lv[i] = l
			}
		}
		s.levels[n.ID] = lv
	}
	return nil
}

// startOf is a w:start's number, 1 when it has none.
func startOf(v *val) int {
	if v == nil {
		return 1
	}
	n, err := strconv.Atoi(v.Val)
	if err != nil || n < 0 {
		return 1
	}
	return n
}

// headingLevel is a paragraph style's heading level: 0 for Title, 1–9 for
// heading 1–9 (by the style's name, as Word names them in every
// language, or by its outline level, or by the style it is based on), -1
// for any other style. A document with no styles part is read by the ids
// Word writes in English (Heading1, Title).
func (s *docxStyles) headingLevel(id string) int {
	for range 16 { // a basedOn chain, guarded against a cycle
		st, ok := s.styles[id]
		if !ok {
			return levelOfName(strings.ToLower(id))
		}
		if l := levelOfName(st.name); l >= 0 {
			return l
		}
		if st.outline > 0 {
			return st.outline
		}
		if st.basedOn == "" {
			return -1
		}
		id = st.basedOn
	}
	return -1
}

// levelOfName reads "title", "heading 2" or "heading2" (lower case).
func levelOfName(name string) int {
	if name == "title" {
		return 0
	}
	rest, ok := strings.CutPrefix(name, "heading")
	if n, err := strconv.Atoi(strings.TrimSpace(rest)); ok && err == nil && n >= 1 && n <= 9 {
		return n
	}
	return -1
}

// isList is true for a style that numbers its paragraphs, or is named as
// a list style is ("List Bullet", "List Number 2").
func (s *docxStyles) isList(id string) bool {
	for range 16 {
		st, ok := s.styles[id]
		if !ok {
			return false
		}
		if st.list || strings.HasPrefix(st.name, "list bullet") || strings.HasPrefix(st.name, "list number") {
			return true
		}
		id = st.basedOn
	}
	return false
}

// isCode is true for a style of code: named, or based on one named, with
// "code" or "preformatted" ("Source Code", "HTML Preformatted").
func (s *docxStyles) isCode(id string) bool {
	for range 16 {
		st, ok := s.styles[id]
		if !ok {
			return false
		}
		if strings.Contains(st.name, "code") || strings.Contains(st.name, "preformatted") {
			return true
		}
		id = st.basedOn
	}
	return false
}

// level is how a list paragraph's level counts; a list whose numbering
// is unknown is bulleted, unless its style is named "List Number".
func (s *docxStyles) level(numID string, ilvl int, styleID string) listLevel {
	if lv, ok := s.levels[numID]; ok {
		if l, ok := lv[ilvl]; ok {
			return l
		}
		return listLevel{start: 1}
	}
	return listLevel{numbered: strings.HasPrefix(s.styles[styleID].name, "list number"), start: 1}
}

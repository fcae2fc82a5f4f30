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
	// numbered: numId → ilvl → true for a numbered level (decimal,
	// letters, roman), false for a bullet.
	numbered map[string]map[int]bool
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

// parseNumbering reads word/numbering.xml.
func (s *docxStyles) parseNumbering(raw []byte) error {
	var doc struct {
		Abstract []struct {
			ID  string `xml:"abstractNumId,attr"`
			Lvl []struct {
				Ilvl   string `xml:"ilvl,attr"`
				NumFmt val    `xml:"numFmt"`
			} `xml:"lvl"`
		} `xml:"abstractNum"`
		Num []struct {
			ID       string `xml:"numId,attr"`
			Abstract val    `xml:"abstractNumId"`
		} `xml:"num"`
	}
	if err := xml.Unmarshal(raw, &doc); err != nil {
		return xmlErr(err)
	}
	abstract := map[string]map[int]bool{}
	for _, a := range doc.Abstract {
		lv := map[int]bool{}
		for _, l := range a.Lvl {
			i, _ := strconv.Atoi(l.Ilvl)
			lv[i] = l.NumFmt.Val != "bullet" && l.NumFmt.Val != "none" && l.NumFmt.Val != ""
		}
		abstract[a.ID] = lv
	}
	s.numbered = map[string]map[int]bool{}
	for _, n := range doc.Num {
		s.numbered[n.ID] = abstract[n.Abstract.Val]
	}
	return nil
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

// isNumbered is true when a list's level counts (1., 2.) rather than
// bullets; a list whose numbering is unknown is bulleted.
func (s *docxStyles) isNumbered(numID string, ilvl int, styleID string) bool {
	if lv, ok := s.numbered[numID]; ok {
		return lv[ilvl]
	}
	st := s.styles[styleID]
	return strings.HasPrefix(st.name, "list number")
}

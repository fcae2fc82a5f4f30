package data

import (
	"archive/zip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/xuri/excelize/v2"
)

// This file holds what excelize's streaming reader does not give: which
// part of the zip is which sheet, a sheet's merged cells, and dates as ISO
// text rather than in each cell's display format.

// sheetParts pairs each worksheet of the workbook, in the order of names
// (excelize's list), with its XML part, from xl/workbook.xml and its
// relationships. Chart sheets, which hold no cells, are left out.
func sheetParts(zr *zip.Reader, names []string) ([]sheet, error) {
	var book struct {
		Sheets []struct {
			Name string `xml:"name,attr"`
			ID   string `xml:"http://schemas.openxmlformats.org/officeDocument/2006/relationships id,attr"`
		} `xml:"sheets>sheet"`
	}
	var rels struct {
		Rels []struct {
			ID     string `xml:"Id,attr"`
			Type   string `xml:"Type,attr"`
			Target string `xml:"Target,attr"`
		} `xml:"Relationship"`
	}
	if err := decodePart(zr, "xl/workbook.xml", &book); err != nil {
		return nil, err
	}
	if err := decodePart(zr, "xl/_rels/workbook.xml.rels", &rels); err != nil {
		return nil, err
	}
	parts := map[string]string{} // sheet name -> part
	for _, s := range book.Sheets {
		for _, r := range rels.Rels {
			if r.ID == s.ID && strings.HasSuffix(r.Type, "/worksheet") {
				parts[s.Name] = partPath(r.Target)
			}
		}
	}
	var out []sheet
	for _, n := range names {
		if p, ok := parts[n]; ok {
			out = append(out, sheet{name: n, part: p})
		}
	}
	return out, nil
}

// partPath resolves a relationship's target from xl/workbook.xml.
func partPath(target string) string {
	if strings.HasPrefix(target, "/") {
		return strings.TrimPrefix(target, "/")
	}
	return path.Join("xl", target)
}

// decodePart decodes the small XML part name of the zip into v.
func decodePart(zr *zip.Reader, name string, v any) error {
	rc, err := openPart(zr, name)
	if err != nil {
		return err
	}
	defer rc.Close()
	return xml.NewDecoder(io.LimitReader(rc, 16<<20)).Decode(v)
}

func openPart(zr *zip.Reader, name string) (io.ReadCloser, error) {
	for _, zf := range zr.File {
		if strings.EqualFold(zf.Name, name) {
			return zf.Open()
		}
	}
	return nil, fmt.Errorf("%s is missing", name)
}

// cellRange is a merged range of cells: columns 0-based, rows 1-based.
type cellRange struct {
	left, right, top, bottom int
}

// mergedCells lists a sheet's merged ranges. They come after the cells in
// the sheet's XML, so the whole part is read through, as tokens.
func mergedCells(zr *zip.Reader, part string) ([]cellRange, error) {
	rc, err := openPart(zr, part)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	dec := xml.NewDecoder(rc)
	var out []cellRange
	for {
		tok, err := dec.RawToken()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != "mergeCell" {
			continue
		}
		for _, a := range se.Attr {
			if a.Name.Local != "ref" {
				continue
			}
			from, to, _ := strings.Cut(a.Value, ":")
			l, t, err1 := excelize.CellNameToCoordinates(from)
			r, b, err2 := excelize.CellNameToCoordinates(to)
			if err1 == nil && err2 == nil {
				out = append(out, cellRange{left: min(l, r) - 1, right: max(l, r) - 1, top: min(t, b), bottom: max(t, b)})
			}
		}
	}
}

// isoDates makes excelize's formatted values the ones the package doc
// promises: every cell style with a date or time format is given an ISO
// one (yyyy-mm-dd, yyyy-mm-dd hh:mm:ss, or hh:mm:ss for a time of day),
// and every other style the General format, so a number reads as the
// number stored ("1234.5", not "$1,234.50"). excelize streams rows as
// formatted text only, with no cell's style alongside; its style sheet is
// in memory, so the formats are swapped there. The file is never saved.
func isoDates(f *excelize.File) error {
	if f.Styles == nil || f.Styles.CellXfs == nil {
		return nil
	}
	n := len(f.Styles.CellXfs.Xf) // before NewStyle adds the ISO styles
	iso := map[dateKind]int{}
	for k, code := range map[dateKind]string{kindDate: "yyyy-mm-dd", kindDateTime: "yyyy-mm-dd hh:mm:ss", kindTime: "hh:mm:ss", kindElapsed: "[h]:mm:ss"} {
		id, err := f.NewStyle(&excelize.Style{CustomNumFmt: &code})
		if err != nil {
			return err
		}
		iso[k] = *f.Styles.CellXfs.Xf[id].NumFmtID
	}
	custom := map[int]string{}
	if f.Styles.NumFmts != nil {
		for _, nf := range f.Styles.NumFmts.NumFmt {
			custom[nf.NumFmtID] = nf.FormatCode
		}
	}
	for i := range n {
		xf := &f.Styles.CellXfs.Xf[i]
		id := 0
		if xf.NumFmtID != nil {
			id = *xf.NumFmtID
		}
		kind := builtinDates[id]
		if code, ok := custom[id]; ok {
			kind = dateFormat(code)
		}
		general := 0
		xf.NumFmtID = &general
		if kind != kindNone {
			v := iso[kind]
			xf.NumFmtID = &v
		}
	}
	return nil
}

// dateKind is what a number format shows of a date-time serial number.
type dateKind int

const (
	kindNone     dateKind = iota // a number, not a date
	kindDate                     // a day
	kindDateTime                 // a day and a time
	kindTime                     // a time of day
	kindElapsed                  // a duration ([h]:mm)
)

// builtinDates are Excel's built-in number formats that show dates and
// times (14-22, 45-47, and the East Asian ones, 27-36 and 50-58).
var builtinDates = map[int]dateKind{
	14: kindDate, 15: kindDate, 16: kindDate, 17: kindDate, 22: kindDateTime,
	18: kindTime, 19: kindTime, 20: kindTime, 21: kindTime, 45: kindTime, 46: kindElapsed, 47: kindTime,
	27: kindDate, 28: kindDate, 29: kindDate, 30: kindDate, 31: kindDate, 32: kindTime, 33: kindTime,
	34: kindTime, 35: kindTime, 36: kindDate, 50: kindDate, 51: kindDate, 52: kindDate, 53: kindDate,
	54: kindDate, 55: kindDate, 56: kindDate, 57: kindDate, 58: kindDate,
}

// dateFormat classifies a custom number format code by the letters of its
// first section outside quotes, escapes and brackets: y or d is a date, h
// or s (or AM/PM) a time, m a month unless it sits with h or s. A bracket
// [h], [m] or [s] is a duration; other brackets are colours and locales.
func dateFormat(code string) dateKind {
	var date, clock, month, elapsed bool
	lower := strings.ToLower(code)
	for i := 0; i < len(lower); i++ {
		switch c := lower[i]; c {
		case ';':
			i = len(lower) // only the first section
		case '"':
			if j := strings.IndexByte(lower[i+1:], '"'); j >= 0 {
				i += j + 1
			} else {
				i = len(lower)
			}
		case '\\', '_', '*':
			i++ // an escaped character, a space as wide as one, a fill
		case '[':
			j := strings.IndexByte(lower[i:], ']')
			if j < 0 {
				i = len(lower)
				break
			}
			if inner := lower[i+1 : i+j]; inner != "" && strings.Trim(inner, "hms") == "" {
				elapsed = true
			}
			i += j
		case 'y', 'd':
			date = true
		case 'h', 's':
			clock = true
		case 'm':
			month = true
		case 'a':
			if strings.HasPrefix(lower[i:], "am/pm") || strings.HasPrefix(lower[i:], "a/p") {
				clock = true
			}
		}
	}
	switch {
	case elapsed:
		return kindElapsed
	case date && clock:
		return kindDateTime
	case date, month && !clock:
		return kindDate
	case clock:
		return kindTime
	}
	return kindNone
}

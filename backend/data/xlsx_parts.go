package data

import (
	"archive/zip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/xuri/excelize/v2"
)

// This file holds what excelize's streaming reader does not give: which
// part of the zip is which sheet, a sheet's merged cells, and which cells
// are dates (read as ISO text, not in their display format).

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

// cellRange is a merged range of cells: its columns (0-based) and its top
// row (1-based).
type cellRange struct {
	left, right, top int
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
				out = append(out, cellRange{left: min(l, r) - 1, right: max(l, r) - 1, top: min(t, b)})
			}
		}
	}
}

// markDates sets up excelize's formatted values for cellText: a cell whose
// style has a date or time format reads as dateMark, a letter for its kind
// and its serial number ("\x01d45306.4375"); every other cell reads as the
// value stored ("1234.5", not "$1,234.50"). excelize streams rows as
// formatted text only, with no cell's style alongside; its style sheet is
// in memory, so the formats are swapped there (the file is never saved).
// Its own date formatting is not used: at tens of microseconds a cell it
// took most of an import's time.
func markDates(f *excelize.File) error {
	if f.Styles == nil || f.Styles.CellXfs == nil {
		return nil
	}
	n := len(f.Styles.CellXfs.Xf) // before NewStyle adds the marking styles
	marks := map[dateKind]int{}
	for _, k := range []dateKind{kindDate, kindDateTime, kindTime, kindElapsed} {
		// A literal, then the number; XML text cannot hold dateMark, so no
		// cell's own text can look like this.
		code := fmt.Sprintf(`"%s%c"0.##########;"%s%c"-0.##########`, dateMark, k, dateMark, k)
		id, err := f.NewStyle(&excelize.Style{CustomNumFmt: &code})
		if err != nil {
			return err
		}
		marks[k] = *f.Styles.CellXfs.Xf[id].NumFmtID
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
		// A format excelize does not know gives the value as stored;
		// "General" would round it to 11 digits.
		v := -1
		if kind != kindNone {
			v = marks[kind]
		}
		xf.NumFmtID = &v
	}
	return nil
}

// dateMark starts the text markDates gives a date cell.
const dateMark = "\x01"

// dateText turns a cell markDates marked into ISO 8601 text: 2024-01-15,
// 2024-01-15 10:30:00, 10:30:00 for a time of day, 27:30:00 for a
// duration, to the nearest second. ok is false if v is not marked; a
// marked number that is no date (negative) is given back as the number.
func dateText(v string, date1904 bool) (text string, ok bool) {
	if !strings.HasPrefix(v, dateMark) || len(v) < len(dateMark)+2 {
		return v, false
	}
	kind, num := dateKind(v[len(dateMark)]), v[len(dateMark)+1:]
	serial, err := strconv.ParseFloat(num, 64)
	if err != nil || serial < 0 {
		return num, true
	}
	if kind == kindElapsed {
		secs := int64(math.Round(serial * 86400))
		return fmt.Sprintf("%d:%02d:%02d", secs/3600, secs/60%60, secs%60), true
	}
	t, err := excelize.ExcelDateToTime(serial, date1904)
	if err != nil {
		return num, true
	}
	t = t.Round(time.Second)
	switch kind {
	case kindDate:
		return t.Format("2006-01-02"), true
	case kindTime:
		return t.Format("15:04:05"), true
	}
	return t.Format("2006-01-02 15:04:05"), true
}

// dateKind is what a number format shows of a date-time serial number.
type dateKind int

const (
	kindNone     dateKind = 0   // a number, not a date
	kindDate     dateKind = 'd' // a day
	kindDateTime dateKind = 't' // a day and a time
	kindTime     dateKind = 'h' // a time of day
	kindElapsed  dateKind = 'e' // a duration ([h]:mm)
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

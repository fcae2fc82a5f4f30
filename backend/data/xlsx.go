package data

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

// unzipRatio bounds a workbook's unzipped size by its file size: at most
// this many times Limits.MaxFileBytes. A sheet's XML packs about 5 to 15
// times; far more is a zip bomb.
const unzipRatio = 20

// attachWorkbook imports every sheet with data of the workbook im as a
// table: a first pass surveys them all, then one transaction loads them
// all, so a bad sheet leaves nothing behind.
func (d *DB) attachWorkbook(ctx context.Context, im *importer) (_ []Table, err error) {
	defer func() {
		// excelize parses what the user attached; a file that trips it up
		// is a damaged file, not a crash (the transaction, if any, is
		// rolled back by its deferred Rollback on the way here).
		if r := recover(); r != nil {
			err = damaged(im.name, fmt.Errorf("%v", r))
		}
	}()
	wb, err := openWorkbook(im, d.Limits().MaxFileBytes*unzipRatio)
	if err != nil {
		return nil, err
	}
	defer wb.close()
	var ps []pending
	for _, s := range wb.sheets {
		sv, err := wb.survey(ctx, s)
		if err != nil {
			return nil, err
		}
		if sv == nil {
			continue // an empty sheet
		}
		ps = append(ps, pending{table: sv.table, open: func() (rowReader, error) { return wb.rows(s, sv) }})
	}
	if len(ps) == 0 {
		return nil, badFile(im.name, "every sheet of the workbook is empty. Attach a workbook with a header row and at least one row of data on a sheet.")
	}
	return d.load(ctx, ps)
}

// workbook is an .xlsx file opened for import.
type workbook struct {
	name   string // the file's name, for messages
	f      *excelize.File
	zr     *zip.Reader // the same file, for what excelize does not stream (merged cells)
	sheets []sheet
	scans  []*sheetScan // closed with the workbook, in case a pass stops early
	// date1904 is the workbook's date system: serial 0 is 1904-01-01 (old
	// Mac workbooks), not 1899-12-30.
	date1904 bool
}

// sheet is one worksheet: its name and its XML part in the zip.
type sheet struct {
	name, part string
}

// openWorkbook checks the zip before excelize reads it (its unzipped size,
// and that it is an .xlsx workbook at all), then opens it.
func openWorkbook(im *importer, maxUnzipped int64) (*workbook, error) {
	zr, err := zip.NewReader(im.f, im.size)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Invalid, "Cannot attach %s: it starts like a zip archive (an Excel workbook is one), but it is damaged or cut short (%s). "+
			"If it is a workbook, open it in Excel, save it again and attach it.", im.name, err)
	}
	if err := checkZip(im.name, zr, maxUnzipped); err != nil {
		return nil, err
	}
	f, err := excelize.OpenFile(im.path, excelize.Options{UnzipSizeLimit: maxUnzipped, UnzipXMLSizeLimit: min(maxUnzipped, excelize.StreamChunkSize)})
	if err != nil {
		return nil, damaged(im.name, err)
	}
	props, _ := f.GetWorkbookProps()
	wb := &workbook{name: im.name, f: f, zr: zr, date1904: props.Date1904 != nil && *props.Date1904}
	if wb.sheets, err = sheetParts(zr, f.GetSheetList()); err != nil {
		f.Close()
		return nil, damaged(im.name, err)
	}
	if err := markDates(f); err != nil {
		f.Close()
		return nil, damaged(im.name, err)
	}
	return wb, nil
}

func (wb *workbook) close() {
	for _, sc := range wb.scans {
		sc.rows.Close()
	}
	wb.f.Close()
}

// checkZip refuses a zip that unzips to more than maxUnzipped bytes or is
// not an .xlsx workbook, naming what it is when it can.
func checkZip(name string, zr *zip.Reader, maxUnzipped int64) error {
	var total uint64
	has := map[string]bool{}
	for _, zf := range zr.File {
		total += zf.UncompressedSize64
		has[strings.ToLower(zf.Name)] = true
	}
	switch {
	case has["xl/workbook.bin"]:
		return badFile(name, "this is an Excel binary workbook (.xlsb), which cannot be read. %s", saveAsXLSX)
	case has["mimetype"] && has["content.xml"]:
		return badFile(name, "this is an OpenDocument file (.ods), which cannot be read. %s", saveAsXLSX)
	case !has["[content_types].xml"] || !has["xl/workbook.xml"]:
		return badFile(name, "this is a zip archive, not an Excel workbook (.xlsx). Unzip it and attach the files inside.")
	case total > uint64(maxUnzipped):
		return badFile(name, "the workbook unzips to %s; the limit is %s. Delete the sheets or columns you do not need, or export the sheet you need as \"CSV UTF-8\", and attach that.",
			sizeText(int64(min(total, 1<<62))), sizeText(maxUnzipped))
	}
	return nil
}

// damaged is the error for a workbook that cannot be read.
func damaged(name string, err error) error {
	return apperr.Wrap(err, apperr.Invalid, "Cannot attach %s: the workbook is damaged or cut short (%s). Open it in Excel, save it again and attach it.", name, err)
}

// survey is a sheet's first pass, like importer.survey: it finds the header
// (the first row that is not blank), checks every cell, infers the types
// and picks the columns. It returns nil for a sheet with nothing in it.
func (wb *workbook) survey(ctx context.Context, s sheet) (*sheetPlan, error) {
	sc, err := wb.scan(s, nil)
	if err != nil {
		return nil, err
	}
	plan := &sheetPlan{}
	var inf []inferrer
	width := 0
	n, err := eachRow(ctx, sc, wb.source(s), func(_ int64, row []string) error {
		if plan.header == nil {
			plan.header, plan.headerRow = append([]string(nil), row...), sc.row
			return nil
		}
		for len(inf) < len(row) {
			inf = append(inf, inferrer{})
		}
		for i, v := range row {
			inf[i].add(v)
		}
		width = max(width, len(row))
		return nil
	})
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, cancelled(ctx, wb.name)
	}
	if plan.header == nil {
		return nil, nil
	}
	width = max(width, len(plan.header))
	raw, err := wb.headerNames(s, plan, width)
	if err != nil {
		return nil, err
	}
	cols := plan.pick(raw, inf)
	plan.table = Table{Name: tableName(strings.TrimSuffix(wb.name, filepath.Ext(wb.name)) + " " + s.name), Source: wb.source(s), Columns: cols, Rows: n - 1}
	return plan, nil
}

// sheetPlan is what a sheet's survey found: the header (its row number and
// cells), the sheet's columns kept (0-based), in order, and the table.
type sheetPlan struct {
	headerRow int
	header    []string
	cols      []int
	table     Table
}

// pick chooses the columns to make from the raw header names (see
// headerNames) and the inferred types, sets plan.cols and describes them.
func (plan *sheetPlan) pick(raw []string, inf []inferrer) []Column {
	var keep []string
	var cols []Column
	for i, name := range raw {
		var f inferrer
		if i < len(inf) {
			f = inf[i]
		}
		if name == "" && !f.seen {
			continue // nothing above and nothing below: a gap between columns
		}
		if name == "" {
			name = "col_" + strconv.Itoa(i+1)
		}
		plan.cols = append(plan.cols, i)
		keep = append(keep, name)
		cols = append(cols, Column{Type: f.typ()})
	}
	for i, name := range columnNames(keep) {
		cols[i].Name = name
	}
	return cols
}

// headerNames names each of the first width columns from the header: the
// header cell, trimmed; for the cells a merged header cell covers, its
// value and " (2)", " (3)", ...; else "" (the caller names it after its
// position).
func (wb *workbook) headerNames(s sheet, plan *sheetPlan, width int) ([]string, error) {
	raw := make([]string, width)
	gaps := false
	for i := range raw {
		raw[i] = strings.TrimSpace(cell(plan.header, i))
		gaps = gaps || raw[i] == ""
	}
	if !gaps {
		return raw, nil
	}
	merges, err := mergedCells(wb.zr, s.part)
	if err != nil {
		return nil, damaged(wb.name, err)
	}
	for _, m := range merges {
		if m.top != plan.headerRow || m.left >= width {
			continue
		}
		origin := raw[m.left]
		for c := m.left + 1; c <= m.right && c < width; c++ {
			if origin != "" && raw[c] == "" {
				raw[c] = fmt.Sprintf("%s (%d)", origin, c-m.left+1)
			}
		}
	}
	return raw, nil
}

// rows opens a sheet's second pass: the rows under its header, cut to the
// columns the survey kept.
func (wb *workbook) rows(s sheet, plan *sheetPlan) (rowReader, error) { return wb.scan(s, plan) }

// source is what a sheet's table says it came from.
func (wb *workbook) source(s sheet) string { return fmt.Sprintf("%s, sheet %q", wb.name, s.name) }

// cell is row[i], or "" past its end.
func cell(row []string, i int) string {
	if i < len(row) {
		return row[i]
	}
	return ""
}

// sheetScan reads a sheet's rows through excelize's streaming iterator,
// skipping blank rows, as a rowReader. With a plan (the second pass) it
// also skips the header and earlier rows and keeps the plan's columns.
type sheetScan struct {
	wb   *workbook
	s    sheet
	rows *excelize.Rows
	plan *sheetPlan
	row  int // the sheet's row number of the last row read (1-based)
	out  []string
}

func (wb *workbook) scan(s sheet, plan *sheetPlan) (*sheetScan, error) {
	rows, err := wb.f.Rows(s.name)
	if err != nil {
		return nil, damaged(wb.name, err)
	}
	sc := &sheetScan{wb: wb, s: s, rows: rows, plan: plan}
	wb.scans = append(wb.scans, sc)
	return sc, nil
}

func (sc *sheetScan) columns() []string { return nil }

func (sc *sheetScan) next() ([]string, error) {
	for sc.rows.Next() {
		sc.row++ // Next steps over missing rows one at a time, so this is the row's number
		cells, err := sc.rows.Columns()
		if err != nil {
			return nil, sc.damaged(err)
		}
		last := -1
		for i, v := range cells {
			if v = sc.wb.cellText(v); v != "" {
				last = i
			}
			cells[i] = v
		}
		if last < 0 || (sc.plan != nil && sc.row <= sc.plan.headerRow) {
			continue
		}
		if last >= maxColumns {
			ref, _ := excelize.CoordinatesToCellName(last+1, sc.row)
			return nil, badFile(sc.wb.name, "Sheet %q, cell %s: there is data in column %s, and a table can have at most %s columns. "+
				"Delete what is beyond column %s, or move it to another sheet, and attach it again.",
				sc.s.name, ref, strings.TrimRight(ref, "0123456789"), commas(maxColumns), columnLetters(maxColumns))
		}
		if sc.plan == nil {
			return cells[:last+1], nil
		}
		sc.out = sc.out[:0]
		for _, c := range sc.plan.cols {
			sc.out = append(sc.out, cell(cells, c))
		}
		return sc.out, nil
	}
	err := sc.rows.Error()
	sc.rows.Close()
	if err != nil {
		return nil, sc.damaged(err)
	}
	return nil, io.EOF
}

// damaged is the error for a sheet excelize stopped reading at (or just
// after) the row read last.
func (sc *sheetScan) damaged(err error) error {
	if errors.Is(err, excelize.ErrMaxRows) {
		return badFile(sc.wb.name, "Sheet %q has a row after row %s, the last a sheet can have, so the workbook is damaged. Open it in Excel, save it again and attach it.",
			sc.s.name, commas(excelize.TotalRows))
	}
	return badFile(sc.wb.name, "Sheet %q, row %s: the workbook is damaged (%s). Open it in Excel, save it again and attach it.",
		sc.s.name, commas(int64(sc.row)), err)
}

// cellText is a cell's text as the tables get it: a date as ISO text
// (see markDates), blank space and Excel's error values as NULL (""), and
// anything else as read.
func (wb *workbook) cellText(v string) string {
	if d, ok := dateText(v, wb.date1904); ok {
		return d
	}
	if strings.TrimSpace(v) == "" || excelErrors[v] {
		return ""
	}
	return v
}

// excelErrors are the values Excel shows for a formula that failed.
var excelErrors = map[string]bool{
	"#NULL!": true, "#DIV/0!": true, "#VALUE!": true, "#REF!": true, "#NAME?": true,
	"#NUM!": true, "#N/A": true, "#GETTING_DATA": true, "#SPILL!": true, "#CALC!": true,
}

func columnLetters(n int) string {
	s, _ := excelize.ColumnNumberToName(n)
	return s
}

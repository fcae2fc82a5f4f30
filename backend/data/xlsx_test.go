package data

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

// workbookFile is the workbook kept in the repository (testdata/workbook_gen.go
// writes it): two sheets with data and an empty one.
const workbookFile = "testdata/workbook.xlsx"

func TestAttachWorkbook(t *testing.T) {
	d := mustOpen(t)
	got, err := d.AttachAll(context.Background(), workbookFile)
	if err != nil {
		t.Fatal(err)
	}
	want := []Table{
		{Name: "workbook_sales", Source: `workbook.xlsx, sheet "Sales"`, Rows: 3, Columns: []Column{
			{"region", TypeText}, {"q1", TypeInteger}, {"q1_2", TypeReal}, {"col_4", TypeText}, {"order_date", TypeDate},
			{"shipped_at", TypeDate}, {"price", TypeReal}, {"total", TypeReal}, {"paid", TypeBoolean},
		}},
		{Name: "workbook_notes", Source: `workbook.xlsx, sheet "Notes"`, Rows: 2, Columns: []Column{
			{"code", TypeText}, {"note", TypeText}, {"due", TypeDate}, {"at", TypeText},
		}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("AttachAll =\n %+v\nwant\n %+v", got, want)
	}
	if tables, err := d.Tables(context.Background()); err != nil || !reflect.DeepEqual(tables, want) {
		t.Errorf("Tables = %+v, %v", tables, err)
	}
	for _, q := range []struct {
		sql  string
		want [][]any
	}{
		{`SELECT * FROM workbook_sales`, [][]any{
			// The merged "Q1" gives q1 and q1_2; the blank row is skipped; dates
			// are ISO whatever their format; money is the number stored; Total
			// is the formula's cached value.
			{"North", int64(10), 1.5, "first", "2024-01-15", "2024-01-15 10:30:00", 1234.5, 11.5, true},
			{"South", int64(20), 2.25, nil, "2024-02-29", "2024-02-29 08:00:00", 99.0, 22.25, false},
			{"East", int64(30), -0.75, "last", "2025-03-01", "2025-03-01 23:59:59", 0.1, 29.25, true},
		}},
		{`SELECT * FROM workbook_notes`, [][]any{
			{"007", "call back", "2024-02-29", "18:00:00"},
			{"042", nil, "1999-12-31", "12:00:00"},
		}},
	} {
		if res := mustQuery(t, d, q.sql); !reflect.DeepEqual(res.Rows, q.want) {
			t.Errorf("%s =\n %#v\nwant\n %#v", q.sql, res.Rows, q.want)
		}
	}

	// Attach, for callers that expect one table, attaches every sheet and
	// describes the first.
	one, err := mustOpen(t).Attach(context.Background(), workbookFile)
	if err != nil || !reflect.DeepEqual(one, want[0]) {
		t.Errorf("Attach = %+v, %v; want %+v", one, err, want[0])
	}
}

// TestWorkbookHeaders covers the header rules: the first row that is not
// blank, merged cells (any width), empty cells, columns with nothing above
// or below, and dedupe against a real header of the same name.
func TestWorkbookHeaders(t *testing.T) {
	path := buildWorkbook(t, "heads.xlsx", func(f *excelize.File) {
		set(t, f, "Sheet1", "B3", "Total", "Month", nil, nil, "Month (2)", nil, "Note")
		must(t, f.MergeCell("Sheet1", "C3", "E3"))
		set(t, f, "Sheet1", "B4", 1, "Jan", 1.5, 2, "x", 7, "a")
		set(t, f, "Sheet1", "B6", 2, "Feb", 2.5, 3, "y", nil, nil, nil, "far")
	})
	d := mustOpen(t)
	tbl, err := d.Attach(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	// Column A is empty top to bottom and is left out; G has no header but
	// has data; J has data far to the right.
	want := []Column{{"total", TypeInteger}, {"month", TypeText}, {"month_2", TypeReal}, {"month_3", TypeInteger},
		{"month_2_2", TypeText}, {"col_7", TypeInteger}, {"note", TypeText}, {"col_10", TypeText}}
	if !reflect.DeepEqual(tbl.Columns, want) || tbl.Rows != 2 || tbl.Name != "heads_sheet1" {
		t.Fatalf("Attach = %+v\nwant columns %+v", tbl, want)
	}
	res := mustQuery(t, d, `SELECT * FROM heads_sheet1`)
	wantRows := [][]any{
		{int64(1), "Jan", 1.5, int64(2), "x", int64(7), "a", nil},
		{int64(2), "Feb", 2.5, int64(3), "y", nil, nil, "far"},
	}
	if !reflect.DeepEqual(res.Rows, wantRows) {
		t.Errorf("rows = %#v", res.Rows)
	}
}

// TestWorkbookValues covers values the kept workbook does not: a formula
// with no cached value, Excel's error values, percentages and other number
// formats, a date typed as text, a duration, and a sheet name that needs
// cleaning.
func TestWorkbookValues(t *testing.T) {
	path := buildWorkbook(t, "2024 Q1.xlsx", func(f *excelize.File) {
		must(t, f.SetSheetName("Sheet1", "Sales - EU"))
		set(t, f, "Sales - EU", "A1", "share", "big", "sum", "err", "when", "took")
		set(t, f, "Sales - EU", "A2", 0.125, 123456789012.345, nil, "#DIV/0!", "2024-05-01", 27.5/24)
		set(t, f, "Sales - EU", "A3", 0.5, -2.5e-7, nil, 4, "2024-05-02", 0.25)
		must(t, f.SetCellFormula("Sales - EU", "C2", "A2*2")) // saved without a value, as some programs do
		pct := style(t, f, &excelize.Style{NumFmt: 10})       // 0.00%
		thousands := custom(t, f, `#,##0.00 "EUR";[Red]-#,##0.00 "EUR"`)
		must(t, f.SetCellStyle("Sales - EU", "A2", "A3", pct))
		must(t, f.SetCellStyle("Sales - EU", "B2", "B3", thousands))
		must(t, f.SetCellStyle("Sales - EU", "F2", "F3", custom(t, f, "[h]:mm")))
	})
	d := mustOpen(t)
	tbl, err := d.Attach(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	want := Table{Name: "t_2024_q1_sales_eu", Source: `2024 Q1.xlsx, sheet "Sales - EU"`, Rows: 2, Columns: []Column{
		{"share", TypeReal}, {"big", TypeReal}, {"sum", TypeText}, {"err", TypeInteger}, {"when", TypeDate}, {"took", TypeText}}}
	if !reflect.DeepEqual(tbl, want) {
		t.Fatalf("Attach = %+v\nwant %+v", tbl, want)
	}
	res := mustQuery(t, d, `SELECT * FROM t_2024_q1_sales_eu`)
	wantRows := [][]any{{0.125, 123456789012.345, nil, nil, "2024-05-01", "27:30:00"}, {0.5, -2.5e-7, nil, int64(4), "2024-05-02", "6:00:00"}}
	if !reflect.DeepEqual(res.Rows, wantRows) {
		t.Errorf("rows = %#v", res.Rows)
	}
}

func TestAttachWorkbookRefuses(t *testing.T) {
	kept, err := os.ReadFile(workbookFile)
	if err != nil {
		t.Fatal(err)
	}
	flipped := bytes.Clone(kept)
	for i := len(flipped) / 3; i < len(flipped)/3+64; i++ {
		flipped[i] ^= 0x55
	}
	wide := buildWorkbook(t, "wide.xlsx", func(f *excelize.File) {
		set(t, f, "Sheet1", "A1", "ok")
		set(t, f, "Sheet1", "A2", 1)
		_, err := f.NewSheet("Wide")
		must(t, err)
		set(t, f, "Wide", "A1", "a", "b")
		set(t, f, "Wide", "A2", 1, 2)
		cell, _ := excelize.CoordinatesToCellName(maxColumns+1, 7)
		set(t, f, "Wide", cell, "stray")
	})
	empty := buildWorkbook(t, "blank.xlsx", func(f *excelize.File) {
		_, err := f.NewSheet("Also empty")
		must(t, err)
		must(t, f.SetCellStyle("Sheet1", "A1", "C3", style(t, f, &excelize.Style{NumFmt: 14})))
	})
	bomb := buildWorkbook(t, "bomb.xlsx", func(f *excelize.File) {
		set(t, f, "Sheet1", "A1", "text")
		for i := range 20 {
			set(t, f, "Sheet1", "A"+strconv.Itoa(i+2), strings.Repeat(string(rune('a'+i)), 32000)) // packs about 1,000 to 1
		}
	})
	st, _ := os.Stat(bomb)

	notes := "xl/worksheets/sheet2.xml" // sheet "Notes"
	tests := []struct {
		name, path string
		maxBytes   int64
		want       []string
	}{
		{"a bad cell reference on the second sheet", rewritePart(t, "badcell.xlsx", notes, `<c r="B3"`, `<c r="3B"`), 0,
			[]string{"badcell.xlsx", `Sheet "Notes", row 3`, "damaged", "save it again"}},
		{"a row past the last", rewritePart(t, "tall.xlsx", notes, `<row r="4"><c r="A4"`, `<row r="1048577"><c r="A1048577"`), 0,
			[]string{"tall.xlsx", `Sheet "Notes" has a row after row 1,048,576`, "save it again"}},
		{"encrypted", encryptedWorkbook(t), 0, []string{"locked.xlsx", "encrypted with a password", "remove the password"}},
		{"xls bytes", writeFile(t, "old.xls", "\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1"+strings.Repeat("\x00", 1000)), 0,
			[]string{"old.xls", "old Excel workbook (.xls)", "Excel Workbook (.xlsx)"}},
		{"zip that is not a workbook", zipOf(t, "photos.xlsx", map[string]string{"a.txt": "hello"}), 0,
			[]string{"photos.xlsx", "zip archive, not an Excel workbook", "unzip it"}},
		{"binary workbook", zipOf(t, "book.xlsx", map[string]string{"[Content_Types].xml": "<Types/>", "xl/workbook.bin": "x"}), 0,
			[]string{"Excel binary workbook (.xlsb)", "save it as"}},
		{"cut short", writeFile(t, "cut.xlsx", string(kept[:len(kept)/2])), 0, []string{"cut.xlsx", "damaged or cut short"}},
		{"bytes flipped", writeFile(t, "flipped.xlsx", string(flipped)), 0, []string{"flipped.xlsx", "damaged", "save it again"}},
		{"every sheet empty", empty, 0, []string{"blank.xlsx", "every sheet of the workbook is empty"}},
		{"too big", workbookFile, 1000, []string{"workbook.xlsx", "the limit is 1000 bytes"}},
		{"unzips too big", bomb, st.Size(), []string{"bomb.xlsx", "unzips to", "the limit is"}},
		{"data beyond the last column", wide, 0, []string{"wide.xlsx", `Sheet "Wide", cell BXY7`, "at most 2,000 columns", "beyond column BXX"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustOpen(t)
			if tt.maxBytes > 0 {
				d.SetLimits(Limits{MaxFileBytes: tt.maxBytes})
			}
			_, err := d.AttachAll(context.Background(), tt.path)
			wantAppErr(t, err, apperr.Invalid, tt.want...)
			if names := schemaNames(t, d); len(names) != 0 {
				t.Errorf("left behind: %v", names)
			}
		})
	}
}

// A workbook is all or nothing: the first sheet loaded, the second failing
// half-way, leaves no table behind; so does a cancelled context.
func TestAttachWorkbookAtomic(t *testing.T) {
	d := mustOpen(t)
	boom := errors.New("disk full")
	// The hook counts sheets by their first rows (each table's rows count from 1).
	made := 0
	d.importHook = func(row int64) error {
		if row == 1 {
			made++
		}
		if made == 2 && row == 2 {
			return boom
		}
		return nil
	}
	if _, err := d.AttachAll(context.Background(), workbookFile); !errors.Is(err, boom) {
		t.Fatalf("AttachAll = %v, want %v", err, boom)
	}
	if made != 2 {
		t.Fatalf("the hook saw %d sheets, want 2", made)
	}
	if names := schemaNames(t, d); len(names) != 0 {
		t.Fatalf("left behind: %v", names)
	}
	d.importHook = nil

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := d.AttachAll(ctx, workbookFile)
	wantAppErr(t, err, apperr.Cancelled, "workbook.xlsx", "nothing was loaded")
	if names := schemaNames(t, d); len(names) != 0 {
		t.Fatalf("left behind: %v", names)
	}
	if tables, err := d.AttachAll(context.Background(), workbookFile); err != nil || len(tables) != 2 {
		t.Fatalf("retry: %+v, %v", tables, err)
	}
}

func TestDateFormat(t *testing.T) {
	for code, want := range map[string]dateKind{
		"General":                      kindNone,
		"0.00":                         kindNone,
		"#,##0.00 \"EUR\"":             kindNone,
		`0.0" days"`:                   kindNone,
		"0.00E+00":                     kindNone,
		"[Red]#,##0;[Blue]-#,##0":      kindNone,
		"@":                            kindNone,
		"yyyy-mm-dd":                   kindDate,
		"d/m/yy":                       kindDate,
		"mmm yyyy":                     kindDate,
		"mmmm":                         kindDate,
		"[$-409]mmmm d, yyyy;@":        kindDate,
		"dd/mm/yyyy hh:mm:ss":          kindDateTime,
		"m/d/yy h:mm AM/PM":            kindDateTime,
		"h:mm":                         kindTime,
		"hh:mm:ss":                     kindTime,
		"h:mm AM/PM":                   kindTime,
		"mm:ss.0":                      kindTime,
		"[h]:mm:ss":                    kindElapsed,
		`"Day "d`:                      kindDate,
		`\d\a\y 0`:                     kindNone,
		"0;-0;\"zero\";\"text: \"@":    kindNone,
		"[$€-407] #,##0.00":            kindNone,
		"yyyy-mm-dd;[Red]\"negative\"": kindDate,
	} {
		if got := dateFormat(code); got != want {
			t.Errorf("dateFormat(%q) = %d, want %d", code, got, want)
		}
	}
}

// buildWorkbook writes a workbook that fill makes into a temp dir.
func buildWorkbook(t testing.TB, name string, fill func(*excelize.File)) string {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	fill(f)
	path := filepath.Join(t.TempDir(), name)
	must(t, f.SaveAs(path))
	return path
}

// rewritePart copies the kept workbook with old replaced by new in one of
// its parts: a workbook only a broken program would write.
func rewritePart(t testing.TB, name, part, old, new string) string {
	t.Helper()
	zr, err := zip.OpenReader(workbookFile)
	must(t, err)
	defer zr.Close()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, zf := range zr.File {
		rc, err := zf.Open()
		must(t, err)
		content, err := io.ReadAll(rc)
		rc.Close()
		must(t, err)
		if zf.Name == part {
			if !bytes.Contains(content, []byte(old)) {
				t.Fatalf("%s has no %q", part, old)
			}
			content = bytes.Replace(content, []byte(old), []byte(new), 1)
		}
		w, err := zw.Create(zf.Name)
		must(t, err)
		_, err = w.Write(content)
		must(t, err)
	}
	must(t, zw.Close())
	return writeFile(t, name, b.String())
}

// encryptedWorkbook is the kept workbook saved with a password.
func encryptedWorkbook(t testing.TB) string {
	t.Helper()
	f, err := excelize.OpenFile(workbookFile)
	must(t, err)
	defer f.Close()
	path := filepath.Join(t.TempDir(), "locked.xlsx")
	must(t, f.SaveAs(path, excelize.Options{Password: "secret"}))
	return path
}

// zipOf writes a zip archive of files.
func zipOf(t testing.TB, name string, files map[string]string) string {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for n, content := range files {
		w, err := zw.Create(n)
		must(t, err)
		_, err = w.Write([]byte(content))
		must(t, err)
	}
	must(t, zw.Close())
	return writeFile(t, name, b.String())
}

// set writes values in a row from cell on.
func set(t testing.TB, f *excelize.File, sheet, cell string, values ...any) {
	t.Helper()
	must(t, f.SetSheetRow(sheet, cell, &values))
}

func custom(t testing.TB, f *excelize.File, code string) int {
	return style(t, f, &excelize.Style{CustomNumFmt: &code})
}

func style(t testing.TB, f *excelize.File, s *excelize.Style) int {
	t.Helper()
	id, err := f.NewStyle(s)
	must(t, err)
	return id
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestDateText(t *testing.T) {
	for _, tt := range []struct {
		in       string
		date1904 bool
		want     string
		ok       bool
	}{
		{"\x01d45306", false, "2024-01-15", true},
		{"\x01d45306.75", false, "2024-01-15", true},
		{"\x01t45306.4375", false, "2024-01-15 10:30:00", true},
		{"\x01t45717.9999884259", false, "2025-03-01 23:59:59", true},
		{"\x01h0.75", false, "18:00:00", true},
		{"\x01h45306.5", false, "12:00:00", true},
		{"\x01e1.1458333333", false, "27:30:00", true},
		{"\x01d0", true, "1904-01-01", true},
		{"\x01d-3.25", false, "-3.25", true},
		{"45306", false, "45306", false},
		{"\x01", false, "\x01", false},
	} {
		if got, ok := dateText(tt.in, tt.date1904); got != tt.want || ok != tt.ok {
			t.Errorf("dateText(%q, %v) = %q, %v; want %q, %v", tt.in, tt.date1904, got, ok, tt.want, tt.ok)
		}
	}
}

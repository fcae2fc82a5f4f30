package data

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

func TestOpenCreatesPrivateFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions", "s1")
	path := filepath.Join(dir, "data.db")
	d, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for p, want := range map[string]os.FileMode{dir: 0o700, path: 0o600} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Mode().Perm(); got != want {
			t.Errorf("%s: mode %v, want %v", p, got, want)
		}
	}
	var mode string
	if err := d.writer.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestAttachFormats(t *testing.T) {
	tests := []struct {
		name, file, content string
		wantTable           string
		wantCols            []Column
		wantRows            int64
		query               string // checked against want
		want                [][]any
	}{
		{
			name: "csv with quotes, commas and line breaks",
			file: "Sales 2024.csv",
			content: "id,name,note,price,active,day,zip,when\r\n" +
				"1,\"Smith, Ann\",\"line one\nline two\",9.5,true,2024-01-15,02134,2024-01-15T10:00:00Z\r\n" +
				"2,Bob,\"says \"\"hi\"\"\",10,FALSE,2024-02-01,10001,2024-01-15 10:30\r\n" +
				"3, , ,,,,,\r\n",
			wantTable: "sales_2024",
			wantCols: []Column{{"id", TypeInteger}, {"name", TypeText}, {"note", TypeText}, {"price", TypeReal},
				{"active", TypeBoolean}, {"day", TypeDate}, {"zip", TypeText}, {"when", TypeDate}},
			wantRows: 3,
			query:    `SELECT * FROM sales_2024 ORDER BY id`,
			want: [][]any{
				{int64(1), "Smith, Ann", "line one\nline two", 9.5, true, "2024-01-15", "02134", "2024-01-15T10:00:00Z"},
				{int64(2), "Bob", `says "hi"`, 10.0, false, "2024-02-01", "10001", "2024-01-15 10:30"},
				{int64(3), nil, nil, nil, nil, nil, nil, nil},
			},
		},
		{
			name:      "tsv",
			file:      "scores.tsv",
			content:   "player\tscore\tratio\nann\t12\t-1.5e3\nbob \"the\" builder\t7\t.25\n",
			wantTable: "scores",
			wantCols:  []Column{{"player", TypeText}, {"score", TypeInteger}, {"ratio", TypeReal}},
			wantRows:  2,
			query:     `SELECT player, score, ratio FROM scores`,
			want:      [][]any{{"ann", int64(12), -1500.0}, {`bob "the" builder`, int64(7), 0.25}},
		},
		{
			name: "json array",
			file: "people.json",
			content: `[
  {"id": 1, "name": "Ada", "score": 9.5, "ok": true, "tags": ["x", "y"], "born": "1815-12-10"},
  {"id": 2, "name": null, "score": 7, "ok": false, "born": "", "extra": {"k": 1}}
]`,
			wantTable: "people",
			wantCols: []Column{{"id", TypeInteger}, {"name", TypeText}, {"score", TypeReal}, {"ok", TypeBoolean},
				{"tags", TypeText}, {"born", TypeDate}, {"extra", TypeText}},
			wantRows: 2,
			query:    `SELECT * FROM people ORDER BY id`,
			want: [][]any{
				{int64(1), "Ada", 9.5, true, `["x","y"]`, "1815-12-10", nil},
				{int64(2), nil, 7.0, false, nil, nil, `{"k":1}`},
			},
		},
		{
			name:      "json lines",
			file:      "events.jsonl",
			content:   "{\"at\": \"2024-03-01T09:00:00+01:00\", \"n\": 3}\n\n{\"at\": \"2024-03-02\", \"n\": 99999999999}\n",
			wantTable: "events",
			wantCols:  []Column{{"at", TypeDate}, {"n", TypeInteger}},
			wantRows:  2,
			query:     `SELECT at, n FROM events`,
			want:      [][]any{{"2024-03-01T09:00:00+01:00", int64(3)}, {"2024-03-02", int64(99999999999)}},
		},
		{
			name:      "json lines saved as .json",
			file:      "log.json",
			content:   "{\"a\": 1}\n{\"a\": 2}\n",
			wantTable: "log",
			wantCols:  []Column{{"a", TypeInteger}},
			wantRows:  2,
		},
		{
			name:      "utf-8 bom and semicolons",
			file:      "Umsätze.csv",
			content:   "\xEF\xBB\xBFName;Betrag\nMüller;1.5\n",
			wantTable: "umsätze",
			wantCols:  []Column{{"name", TypeText}, {"betrag", TypeReal}},
			wantRows:  1,
			query:     `SELECT name, betrag FROM "umsätze"`,
			want:      [][]any{{"Müller", 1.5}},
		},
		{
			name:      "header names sanitized",
			file:      "2024.csv",
			content:   ",Order Date,Order Date,2023,order_date_2\n1,2,3,4,5\n",
			wantTable: "t_2024",
			wantCols: []Column{{"col_1", TypeInteger}, {"order_date", TypeInteger}, {"order_date_2", TypeInteger},
				{"col_2023", TypeInteger}, {"order_date_2_2", TypeInteger}},
			wantRows: 1,
		},
		{
			name:      "unknown extension sniffed as tsv",
			file:      "export.txt",
			content:   "a\tb\n1\t2\n",
			wantTable: "export",
			wantCols:  []Column{{"a", TypeInteger}, {"b", TypeInteger}},
			wantRows:  1,
		},
		{
			name:      "unknown extension sniffed as json",
			file:      "dump",
			content:   `[{"x": "1.0"}, {"x": "2"}]`,
			wantTable: "dump",
			wantCols:  []Column{{"x", TypeReal}},
			wantRows:  2,
		},
		{
			name:      "header only",
			file:      "empty_rows.csv",
			content:   "a,b\n",
			wantTable: "empty_rows",
			wantCols:  []Column{{"a", TypeText}, {"b", TypeText}},
			wantRows:  0,
		},
		{
			name:      "mixed types fall back",
			file:      "mixed.csv",
			content:   "n,b,d,big\n1,true,2024-01-01,1\n1.5,yes,2024-13-01,99999999999999999999\n",
			wantTable: "mixed",
			wantCols:  []Column{{"n", TypeReal}, {"b", TypeText}, {"d", TypeText}, {"big", TypeText}},
			wantRows:  2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustOpen(t)
			got := mustAttach(t, d, tt.file, tt.content)
			want := Table{Name: tt.wantTable, Source: tt.file, Columns: tt.wantCols, Rows: tt.wantRows}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Attach =\n %+v\nwant\n %+v", got, want)
			}
			tables, err := d.Tables(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(tables, []Table{want}) {
				t.Errorf("Tables = %+v", tables)
			}
			if tt.query == "" {
				return
			}
			res := mustQuery(t, d, tt.query)
			if !reflect.DeepEqual(res.Rows, tt.want) {
				t.Errorf("rows =\n %#v\nwant\n %#v", res.Rows, tt.want)
			}
		})
	}
}

func TestAttachRefusesBadFiles(t *testing.T) {
	var long strings.Builder
	long.WriteString("a,b,c\n")
	for i := 2; i < 5000; i++ {
		fmt.Fprintf(&long, "%d,x,y\n", i)
	}
	ragged := long.String() + "5000,x\n5001,x,y\n"
	latinLate := long.String() + "5000,Jos\xe9,y\n"

	tests := []struct {
		name, file, content string
		maxBytes            int64
		code                apperr.Code
		want                []string
	}{
		{"latin-1", "cities.csv", "name,city\nJos\xe9,Z\xfcrich\n", 0, apperr.Invalid,
			[]string{"cities.csv", "line 2 is not UTF-8", "0xE9", "Latin-1", "save it as UTF-8"}},
		{"latin-1 past the first 8 KB", "late.csv", latinLate, 0, apperr.Invalid,
			[]string{"late.csv", "line 5000 is not UTF-8", "save it as UTF-8"}},
		{"latin-1 at the very end", "end.csv", "a\nx\xc3", 0, apperr.Invalid, []string{"line 2 is not UTF-8"}},
		{"utf-16 bom", "wide.csv", "\xFF\xFEa\x00,\x00b\x00\n\x00", 0, apperr.Invalid,
			[]string{"wide.csv", "UTF-16", "save it as UTF-8"}},
		{"utf-16 without bom", "wide2.csv", "a\x00,\x00b\x00\n\x001\x00,\x002\x00\n\x00", 0, apperr.Invalid,
			[]string{"UTF-16", "save it as UTF-8"}},
		{"ragged row at line 5000", "ragged.csv", ragged, 0, apperr.Invalid,
			[]string{"ragged.csv", "row 4,999 (line 5,000) has 2 fields, but the header has 3", "comma"}},
		{"stray quote", "quote.csv", "a,b\n1,x\"y\n", 0, apperr.Invalid, []string{"quote.csv", "line 2", "double quote"}},
		{"too big", "big.csv", "a,b\n" + strings.Repeat("1,2\n", 50), 100, apperr.Invalid,
			[]string{"big.csv", "204 bytes", "the limit is 100 bytes"}},
		{"binary", "blob.csv", "\x00\x01\x02\x03garbage\x00", 0, apperr.Invalid,
			[]string{"blob.csv", "binary file, not CSV/JSON"}},
		{"control characters", "ctl.csv", strings.Repeat("\x01\x02a", 100), 0, apperr.Invalid,
			[]string{"binary file, not CSV/JSON"}},
		{"zip cut short", "sheet.csv", "PK\x03\x04\x14\x00\x06\x00", 0, apperr.Invalid, []string{"sheet.csv", "zip archive", "Excel workbook", "cut short"}},
		{"xls", "old.xls", "\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1" + strings.Repeat("\x00", 600), 0, apperr.Invalid,
			[]string{"old.xls", "old Excel workbook (.xls)", "save it as", "Excel Workbook (.xlsx)", "CSV UTF-8"}},
		{"empty", "nothing.csv", "", 0, apperr.Invalid, []string{"nothing.csv", "empty"}},
		{"blank", "blank.csv", " \n\n\t\n", 0, apperr.Invalid, []string{"blank.csv", "blank space"}},
		{"json object", "wrapped.json", `{"data": [{"a": 1}], "count": 1}`, 0, apperr.Invalid,
			[]string{"wrapped.json", "one JSON object, not an array of objects", `"data"`}},
		{"json scalar", "n.json", `42`, 0, apperr.Invalid, []string{"n.json", "a number, not an array of objects"}},
		{"json array of non-objects", "mixed.json", "[{\"a\": 1},\n 2]", 0, apperr.Invalid,
			[]string{"item 2 of the array (line 2) is a number, not an object"}},
		{"json empty array", "none.json", `[]`, 0, apperr.Invalid, []string{"none.json", "no rows"}},
		{"json syntax", "broken.json", "[\n{\"a\": 1},\n{\"a\": }\n]", 0, apperr.Invalid,
			[]string{"broken.json", "not valid on line 3"}},
		{"json syntax deep in a value", "deep.json", "[\n{\"a\": 1,\n \"b\": [1,\n 2, x]}\n]", 0, apperr.Invalid,
			[]string{"not valid on line 4"}},
		{"json missing comma", "comma.json", "[\n{\"a\": 1\n \"b\": 2}\n]", 0, apperr.Invalid,
			[]string{"not valid on line 3"}},
		{"json cut short", "cut.json", `[{"a": 1}, {"a"`, 0, apperr.Invalid, []string{"cut short"}},
		{"json trailing data", "two.json", `[{"a": 1}] [{"a": 2}]`, 0, apperr.Invalid, []string{"more data after"}},
		{"jsonl bad line", "bad.jsonl", "{\"a\": 1}\n{\"a\": 2}\n{\"a\": 3,}\n{\"a\": 4}\n", 0, apperr.Invalid,
			[]string{"bad.jsonl", "line 3"}},
		{"jsonl garbage line", "junk.jsonl", "{\"a\": 1}\n{\"a\": 2}\nnot json\n", 0, apperr.Invalid,
			[]string{"junk.jsonl", "not valid on line 3"}},
		{"jsonl array line", "arr.jsonl", "{\"a\": 1}\n[1, 2]\n", 0, apperr.Invalid,
			[]string{"arr.jsonl", "line 2 holds an array, not a JSON object"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustOpen(t)
			if tt.maxBytes > 0 {
				d.SetLimits(Limits{MaxFileBytes: tt.maxBytes})
			}
			_, err := d.Attach(context.Background(), writeFile(t, tt.file, tt.content))
			wantAppErr(t, err, tt.code, tt.want...)
			if names := schemaNames(t, d); len(names) != 0 {
				t.Errorf("left behind: %v", names)
			}
			if tables, _ := d.Tables(context.Background()); len(tables) != 0 {
				t.Errorf("Tables = %+v", tables)
			}
		})
	}
}

func TestAttachMissingOrNotAFile(t *testing.T) {
	d := mustOpen(t)
	_, err := d.Attach(context.Background(), filepath.Join(t.TempDir(), "gone.csv"))
	wantAppErr(t, err, apperr.NotFound, "gone.csv", "does not exist")
	_, err = d.Attach(context.Background(), t.TempDir())
	wantAppErr(t, err, apperr.Invalid, "not a regular file")
}

// A failure half-way through the insert pass (here a hook; in life a full
// disk or a cancelled context) must leave nothing behind.
func TestAttachRollsBackMidway(t *testing.T) {
	d := mustOpen(t)
	var b strings.Builder
	b.WriteString("n,s\n")
	for i := range 5000 {
		fmt.Fprintf(&b, "%d,row %d\n", i, i)
	}
	path := writeFile(t, "big.csv", b.String())
	boom := errors.New("disk full")
	inserted := int64(0)
	d.importHook = func(row int64) error {
		inserted = row
		if row == 4000 {
			return boom
		}
		return nil
	}
	if _, err := d.Attach(context.Background(), path); !errors.Is(err, boom) {
		t.Fatalf("Attach = %v, want %v", err, boom)
	}
	if inserted != 4000 {
		t.Fatalf("the hook saw %d rows, want 4000", inserted)
	}
	if names := schemaNames(t, d); len(names) != 0 {
		t.Fatalf("left behind: %v", names)
	}
	d.importHook = nil
	tbl, err := d.Attach(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if tbl.Name != "big" || tbl.Rows != 5000 || count(t, d, "big") != 5000 {
		t.Fatalf("retry: %+v, %d rows", tbl, count(t, d, "big"))
	}
}

func TestAttachCancelled(t *testing.T) {
	d := mustOpen(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := d.Attach(ctx, writeFile(t, "a.csv", "a\n1\n"))
	wantAppErr(t, err, apperr.Cancelled, "a.csv", "nothing was loaded")
	if names := schemaNames(t, d); len(names) != 0 {
		t.Fatalf("left behind: %v", names)
	}
}

func TestAttachDedupesTableNames(t *testing.T) {
	d := mustOpen(t)
	var got []string
	for _, name := range []string{"sales.csv", "sales.csv", "Sales.TSV", "sqlite_master.csv", "---.csv", "sales_2.json"} {
		content := "a,b\n1,2\n"
		if strings.HasSuffix(name, ".json") {
			content = `[{"a": 1}]`
		}
		got = append(got, mustAttach(t, d, name, content).Name)
	}
	want := []string{"sales", "sales_2", "sales_3", "t_sqlite_master", "data", "sales_2_2"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("names = %v, want %v", got, want)
	}
	tables, err := d.Tables(context.Background())
	if err != nil || len(tables) != len(want) {
		t.Fatalf("Tables = %+v, %v", tables, err)
	}
	for i, tbl := range tables {
		if tbl.Name != want[i] {
			t.Errorf("Tables[%d] = %s, want %s (attach order)", i, tbl.Name, want[i])
		}
	}
}

func TestReopenKeepsTables(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.db")
	d, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	want := mustAttach(t, d, "a.csv", "x,y\n1,true\n")
	d.Close()
	d, err = Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	tables, err := d.Tables(context.Background())
	if err != nil || !reflect.DeepEqual(tables, []Table{want}) {
		t.Fatalf("Tables after reopen = %+v, %v; want %+v", tables, err, want)
	}
}

func TestInferTypes(t *testing.T) {
	tests := []struct {
		values []string
		want   string
	}{
		{[]string{"1", "-2", "+3", "0", " 4 "}, TypeInteger},
		{[]string{"1", "2.5", "-1e3", ".5", "5."}, TypeReal},
		{[]string{"007"}, TypeText},
		{[]string{"0.5", "00.5"}, TypeText},
		{[]string{"9223372036854775807"}, TypeInteger},
		{[]string{"9223372036854775808"}, TypeText},
		{[]string{"1.5", "9223372036854775808"}, TypeText},
		{[]string{"1e400"}, TypeText},
		{[]string{"NaN"}, TypeText},
		{[]string{"Inf"}, TypeText},
		{[]string{"0x1F"}, TypeText},
		{[]string{"1_000"}, TypeText},
		{[]string{"True", "FALSE", "false"}, TypeBoolean},
		{[]string{"true", "1"}, TypeText},
		{[]string{"2024-02-29", "2024-01-01T00:00:00Z", "2024-01-01 12:30:00.5+02:00"}, TypeDate},
		{[]string{"2023-02-29"}, TypeText},
		{[]string{"2024/01/01"}, TypeText},
		{[]string{"", " ", ""}, TypeText},
		{[]string{"", "1", ""}, TypeInteger},
	}
	for _, tt := range tests {
		var f inferrer
		for _, v := range tt.values {
			f.add(v)
		}
		if got := f.typ(); got != tt.want {
			t.Errorf("%q: %s, want %s", tt.values, got, tt.want)
		}
	}
}

func TestUTF8ReaderAcrossReads(t *testing.T) {
	// "é" split between two reads is fine; a lone continuation byte is not.
	for _, tt := range []struct {
		chunks []string
		bad    bool
	}{
		{[]string{"ab\xc3", "\xa9cd"}, false},
		{[]string{"ab\xe2\x82", "\xac"}, false},
		{[]string{"ab\xe2", "\x82", "\xac\n"}, false},
		{[]string{"ab\xc3", "x"}, true},
		{[]string{"ok\n", "\xa9"}, true},
		{[]string{"ab\xc3"}, true},
	} {
		u := newUTF8Reader(&chunkReader{chunks: tt.chunks})
		_, err := io.ReadAll(u)
		var ee *encodingError
		if got := errors.As(err, &ee); got != tt.bad {
			t.Errorf("%q: err %v, want bad=%v", tt.chunks, err, tt.bad)
		}
	}
}

type chunkReader struct{ chunks []string }

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.chunks[0])
	c.chunks[0] = c.chunks[0][n:]
	if c.chunks[0] == "" {
		c.chunks = c.chunks[1:]
	}
	return n, nil
}

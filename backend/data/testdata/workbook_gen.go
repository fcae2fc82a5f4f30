//go:build ignore

// workbook_gen writes workbook.xlsx, the spreadsheet the xlsx tests read:
//
//	cd backend/data/testdata && go run workbook_gen.go
//
// Sheet "Sales" (written the way Excel streams a sheet: inline strings,
// formulas with their cached values): a header with "Q1" merged over two
// columns and an empty cell, text, integers, decimals, a short date, a
// date-time in a custom format, money in a currency format, a formula,
// booleans, and a blank row whose cells only carry a style. Sheet "Notes"
// (shared strings): its header on row 2, codes with leading zeros, an empty
// note, ISO dates and times of day. Sheet "Empty": nothing at all.
package main

import (
	"log"
	"strconv"
	"time"

	"github.com/xuri/excelize/v2"
)

func main() {
	f := excelize.NewFile()
	defer f.Close()
	must(f.SetSheetName("Sheet1", "Sales"))
	writeSales(f)
	writeNotes(f)
	_, err := f.NewSheet("Empty")
	must(err)
	must(f.SaveAs("workbook.xlsx"))
}

func writeSales(f *excelize.File) {
	short := style(f, &excelize.Style{NumFmt: 14}) // m/d/yy: the locale's short date
	stamp := custom(f, "dd/mm/yyyy hh:mm:ss")
	money := custom(f, `"$"#,##0.00`)
	sw, err := f.NewStreamWriter("Sales")
	must(err)
	must(sw.SetRow("A1", []any{"Region", "Q1", nil, nil, "Order date", "Shipped at", "Price", "Total", "Paid"}))
	must(sw.MergeCell("B1", "C1"))
	day := time.Date(2024, 1, 15, 0, 0, 0, 0, time.UTC)
	rows := []struct {
		region, note string
		a            int
		b, price     float64
		on           time.Time
		at           time.Duration
		paid         bool
	}{
		{"North", "first", 10, 1.5, 1234.5, day, 10*time.Hour + 30*time.Minute, true},
		{"South", "", 20, 2.25, 99, day.AddDate(0, 1, 14), 8 * time.Hour, false},
		{}, // a blank row
		{"East", "last", 30, -0.75, 0.1, day.AddDate(1, 1, 14), 23*time.Hour + 59*time.Minute + 59*time.Second, true},
	}
	for i, r := range rows {
		n := strconv.Itoa(i + 2)
		if r.region == "" {
			// Excel keeps a formatted but empty row: cells with a style and no value.
			must(sw.SetRow("A"+n, []any{nil, nil, nil, nil, excelize.Cell{StyleID: short}, excelize.Cell{StyleID: stamp}, excelize.Cell{StyleID: money}}))
			continue
		}
		var note any
		if r.note != "" {
			note = r.note
		}
		must(sw.SetRow("A"+n, []any{
			r.region, r.a, r.b, note,
			excelize.Cell{StyleID: short, Value: r.on},
			excelize.Cell{StyleID: stamp, Value: r.on.Add(r.at)},
			excelize.Cell{StyleID: money, Value: r.price},
			excelize.Cell{Formula: "B" + n + "+C" + n, Value: float64(r.a) + r.b},
			r.paid,
		}))
	}
	must(sw.Flush())
}

func writeNotes(f *excelize.File) {
	iso := custom(f, "yyyy-mm-dd")
	clock := custom(f, "h:mm AM/PM")
	_, err := f.NewSheet("Notes")
	must(err)
	must(f.SetSheetRow("Notes", "A2", &[]any{"Code", "Note", "Due", "At"}))
	must(f.SetSheetRow("Notes", "A3", &[]any{"007", "call back", time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), 0.75}))
	must(f.SetSheetRow("Notes", "A4", &[]any{"042", "", time.Date(1999, 12, 31, 0, 0, 0, 0, time.UTC), 0.5}))
	must(f.SetCellStyle("Notes", "C3", "C4", iso))
	must(f.SetCellStyle("Notes", "D3", "D4", clock))
}

func custom(f *excelize.File, code string) int { return style(f, &excelize.Style{CustomNumFmt: &code}) }

func style(f *excelize.File, s *excelize.Style) int {
	id, err := f.NewStyle(s)
	must(err)
	return id
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

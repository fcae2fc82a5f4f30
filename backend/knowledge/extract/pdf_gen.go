//go:build ignore

// pdf_gen writes the PDFs the tests of package extract read, into
// testdata/ (run it from this directory: go generate, or go run pdf_gen.go).
// It uses codeberg.org/go-pdf/fpdf v0.12.0 and fixed dates, so the same
// program writes the same bytes.
//
//   - report.pdf: four pages; a title in 24 pt and section headings in
//     16 pt over 11 pt paragraphs, a table of four rows on page 2, and a
//     page 4 that continues the section of page 3 without a heading.
//   - scanned.pdf: one page that is only an image: no text layer.
//   - partly-scanned.pdf: text on pages 1 and 4, images only on pages 2–3.
//   - encrypted.pdf: a page of text behind a user password ("secret").
package main

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"log"
	"path/filepath"
	"time"

	"codeberg.org/go-pdf/fpdf"
)

// when is the date written into every file, so the bytes do not change.
var when = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

func main() {
	files := map[string]func() *fpdf.Fpdf{
		"report.pdf":         report,
		"scanned.pdf":        func() *fpdf.Fpdf { return scans(1, nil) },
		"partly-scanned.pdf": func() *fpdf.Fpdf { return scans(4, map[int]bool{2: true, 3: true}) },
		"encrypted.pdf":      encrypted,
	}
	for name, make := range files {
		pdf := make()
		if err := pdf.OutputFileAndClose(filepath.Join("testdata", name)); err != nil {
			log.Fatalf("%s: %v", name, err)
		}
	}
}

func newPDF() *fpdf.Fpdf {
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetCreationDate(when)
	pdf.SetModificationDate(when)
	pdf.SetCompression(false)
	pdf.SetCatalogSort(true) // fonts in a fixed order: the same bytes every run
	pdf.SetAutoPageBreak(false, 15)
	return pdf
}

func heading(pdf *fpdf.Fpdf, size float64, text string) {
	pdf.SetFont("Helvetica", "B", size)
	pdf.CellFormat(0, size*0.6, text, "", 1, "L", false, 0, "")
	pdf.Ln(3)
}

func paragraph(pdf *fpdf.Fpdf, text string) {
	pdf.SetFont("Helvetica", "", 11)
	pdf.MultiCell(0, 5.5, text, "", "L", false)
	pdf.Ln(4)
}

func report() *fpdf.Fpdf {
	pdf := newPDF()
	pdf.SetTitle("River Survey Report", false)

	pdf.AddPage()
	heading(pdf, 24, "River Survey 2026")
	paragraph(pdf, "This report gives the results of the survey of the river Wend, carried out from March to October 2026 by the county's field team. It covers water quality, the fish count and the state of the banks.")
	heading(pdf, 16, "Method")
	paragraph(pdf, "Samples were taken at twelve stations every second week. Each sample was tested for nitrate, phosphate and dissolved oxygen in the county laboratory.")
	paragraph(pdf, "The fish count used electric fishing on three reaches, each of one hundred metres, in June and in September.")

	pdf.AddPage()
	heading(pdf, 16, "Results")
	paragraph(pdf, "Nitrate fell at every station but one. The table gives the mean of each reach over the season.")
	table(pdf, [][]string{
		{"Reach", "Nitrate mg/l", "Oxygen %", "Trout"},
		{"Upper Wend", "4.2", "96", "31"},
		{"Mill Pool", "6.8", "81", "12"},
		{"Lower Wend", "5.1", "88", "19"},
	})
	pdf.Ln(6)
	paragraph(pdf, "The Mill Pool reach stays the poorest, below the weir where the water is slow.")

	pdf.AddPage()
	heading(pdf, 16, "Outlook")
	paragraph(pdf, "The team proposes a second weir pass at the Mill Pool and a buffer strip of willow along the lower banks.")

	pdf.AddPage()
	paragraph(pdf, "Funding for the buffer strip is asked of the county in the spring budget. The survey will be repeated in 2027.")
	return pdf
}

func table(pdf *fpdf.Fpdf, rows [][]string) {
	widths := []float64{45, 35, 30, 25}
	for i, row := range rows {
		style := ""
		if i == 0 {
			style = "B"
		}
		pdf.SetFont("Helvetica", style, 11)
		for j, cell := range row {
			align := "R"
			if j == 0 {
				align = "L"
			}
			pdf.CellFormat(widths[j], 7, cell, "1", 0, align, false, 0, "")
		}
		pdf.Ln(-1)
	}
}

// scans writes pages pages; those in imageOnly (or all, when nil) hold only
// an image, the others a line of text.
func scans(pages int, imageOnly map[int]bool) *fpdf.Fpdf {
	pdf := newPDF()
	pdf.RegisterImageOptionsReader("scan", fpdf.ImageOptions{ImageType: "PNG"}, bytes.NewReader(scanImage()))
	for n := 1; n <= pages; n++ {
		pdf.AddPage()
		if imageOnly == nil || imageOnly[n] {
			pdf.ImageOptions("scan", 15, 15, 180, 0, false, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
			continue
		}
		paragraph(pdf, "This page has a text layer: the minutes of the meeting.")
	}
	return pdf
}

// scanImage is a grey page with dark bars where lines of text would be, as
// a scanner would give it.
func scanImage() []byte {
	img := image.NewGray(image.Rect(0, 0, 420, 594))
	for y := range 594 {
		for x := range 420 {
			img.SetGray(x, y, color.Gray{Y: 235})
		}
	}
	for line := range 30 {
		y0 := 40 + line*17
		for y := y0; y < y0+8; y++ {
			for x := 40; x < 380-(line%4)*30; x++ {
				img.SetGray(x, y, color.Gray{Y: 40})
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		log.Fatal(err)
	}
	return buf.Bytes()
}

func encrypted() *fpdf.Fpdf {
	pdf := newPDF()
	pdf.SetProtection(fpdf.CnProtectPrint, "secret", "owner")
	pdf.AddPage()
	paragraph(pdf, "Confidential: the budget for 2027.")
	return pdf
}

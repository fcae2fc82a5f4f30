//go:build ignore

// gen_docx writes report.docx, the DOCX the extract tests read: a title,
// headings on two levels (one style with a translated id, as a German
// Word writes it, found by its name "heading 2"), paragraphs, a bulleted
// list with a nested item, a numbered list, a table with a merged cell,
// a hard page break and a page break Word saw when it laid the document
// out (w:lastRenderedPageBreak) in the middle of a paragraph.
//
//	cd backend/knowledge/extract/testdata && go run gen_docx.go [OUT]
//
// (OUT is report.docx unless named; a test writes one elsewhere and
// checks the kept file is what this program writes.)
//
// Only the parts a word processor needs: [Content_Types].xml, _rels/.rels,
// word/document.xml, word/_rels/document.xml.rels, word/styles.xml,
// word/numbering.xml. The zip's times are fixed, so the file is the same
// on every run.
package main

import (
	"archive/zip"
	"log"
	"os"
	"strings"
	"time"
)

const w = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`

var parts = []struct{ name, body string }{
	{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>
<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>
<Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/>
</Types>`},
	{"_rels/.rels", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>
</Relationships>`},
	{"word/_rels/document.xml.rels", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>
<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/>
</Relationships>`},
	{"word/styles.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles ` + w + `>
<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="berschrift2"><w:name w:val="heading 2"/><w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="1"/></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="ListParagraph"><w:name w:val="List Paragraph"/><w:basedOn w:val="Normal"/></w:style>
<w:style w:type="table" w:styleId="TableGrid"><w:name w:val="Table Grid"/></w:style>
</w:styles>`},
	{"word/numbering.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:numbering ` + w + `>
<w:abstractNum w:abstractNumId="0">
<w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="bullet"/><w:lvlText w:val="•"/></w:lvl>
<w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="bullet"/><w:lvlText w:val="o"/></w:lvl>
</w:abstractNum>
<w:abstractNum w:abstractNumId="1">
<w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl>
</w:abstractNum>
<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>
<w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num>
</w:numbering>`},
	{"word/document.xml", document()},
}

func document() string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document ` + w + `><w:body>
`)
	b.WriteString(para("Title", "Quarterly Report"))
	b.WriteString(para("Heading1", "Introduction"))
	b.WriteString(para("", "This report covers the third quarter. Sales grew in every region."))
	b.WriteString(para("berschrift2", "Scope"))
	b.WriteString(para("", "It covers three product lines:"))
	b.WriteString(item(1, 0, "Lamps"))
	b.WriteString(item(1, 1, "Desk lamps"))
	b.WriteString(item(1, 0, "Chairs"))
	b.WriteString(para("", "The steps we took:"))
	b.WriteString(item(2, 0, "Count the stock"))
	b.WriteString(item(2, 0, "Compare with the plan"))
	// A hard page break in a paragraph of its own, as Word's Ctrl+Enter
	// writes it.
	b.WriteString(`<w:p><w:r><w:br w:type="page"/></w:r></w:p>` + "\n")
	b.WriteString(para("Heading1", "Results"))
	b.WriteString(para("berschrift2", "Revenue"))
	b.WriteString(para("", "Revenue by region, in thousands of euros:"))
	b.WriteString(`<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/><w:tblW w:w="0" w:type="auto"/></w:tblPr>
<w:tblGrid><w:gridCol w:w="3000"/><w:gridCol w:w="3000"/><w:gridCol w:w="3000"/></w:tblGrid>
` + row("Region", "Q2", "Q3") + row("North", "120", "135") + row("South", "98", "110") +
		`<w:tr><w:tc><w:tcPr><w:tcW w:w="6000" w:type="dxa"/><w:gridSpan w:val="2"/></w:tcPr><w:p><w:r><w:t>Total</w:t></w:r></w:p></w:tc>` +
		`<w:tc><w:p><w:r><w:t>245</w:t></w:r></w:p></w:tc></w:tr>
</w:tbl>
`)
	b.WriteString(para("Heading1", "Outlook"))
	// Word's record of where the page ended when it last laid the
	// document out: page 3 starts inside this paragraph.
	b.WriteString(`<w:p><w:r><w:t xml:space="preserve">We expect growth to slow </w:t></w:r>` +
		`<w:r><w:lastRenderedPageBreak/><w:t>in the fourth quarter.</w:t></w:r></w:p>` + "\n")
	b.WriteString(para("", "Prices stay as they are."))
	b.WriteString(`<w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr>
</w:body></w:document>`)
	return b.String()
}

func para(style, text string) string {
	ppr := ""
	if style != "" {
		ppr = `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
	}
	return `<w:p>` + ppr + `<w:r><w:t>` + text + `</w:t></w:r></w:p>` + "\n"
}

func item(numID, ilvl int, text string) string {
	return `<w:p><w:pPr><w:pStyle w:val="ListParagraph"/><w:numPr><w:ilvl w:val="` + itoa(ilvl) +
		`"/><w:numId w:val="` + itoa(numID) + `"/></w:numPr></w:pPr><w:r><w:t>` + text + `</w:t></w:r></w:p>` + "\n"
}

func row(cells ...string) string {
	s := `<w:tr>`
	for _, c := range cells {
		s += `<w:tc><w:tcPr><w:tcW w:w="3000" w:type="dxa"/></w:tcPr><w:p><w:r><w:t>` + c + `</w:t></w:r></w:p></w:tc>`
	}
	return s + `</w:tr>` + "\n"
}

func itoa(n int) string { return string(rune('0' + n)) }

func main() {
	out := "report.docx"
	if len(os.Args) > 1 {
		out = os.Args[1]
	}
	f, err := os.Create(out)
	if err != nil {
		log.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, p := range parts {
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: p.name, Method: zip.Deflate, Modified: time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			log.Fatal(err)
		}
		if _, err := fw.Write([]byte(p.body)); err != nil {
			log.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}

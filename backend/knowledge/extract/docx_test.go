package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/knowledge"
)

// makeZip writes a zip of the named parts, in order.
func makeZip(t *testing.T, parts ...[2]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, p := range parts {
		w, err := zw.Create(p[0])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(p[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// docx is a DOCX of a body and, when given, a styles part.
func docx(t *testing.T, body, styles string) []byte {
	t.Helper()
	parts := [][2]string{{"word/document.xml", `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><w:body>` + body + `</w:body></w:document>`}}
	if styles != "" {
		parts = append(parts, [2]string{"word/styles.xml", `<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">` + styles + `</w:styles>`})
	}
	return makeZip(t, parts...)
}

func p(style, text string) string {
	ppr := ""
	if style != "" {
		ppr = `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
	}
	return `<w:p>` + ppr + `<w:r><w:t xml:space="preserve">` + text + `</w:t></w:r></w:p>`
}

func TestDOCXStructure(t *testing.T) {
	for _, tc := range []struct {
		name, body, styles string
		want               []string
		note               bool // the one-page note
	}{
		{
			name: "no styles part: Word's English ids",
			body: p("Heading1", "One") + p("Heading2", "Two") + p("", "text"),
			want: []string{"p1 [One › Two] text"}, note: true,
		},
		{
			name:   "a custom style based on a heading, and one with an outline level",
			body:   p("Chapter", "One") + p("", "a") + p("Deep", "Sub") + p("", "b"),
			styles: `<w:style w:type="paragraph" w:styleId="Chapter"><w:name w:val="Chapter"/><w:basedOn w:val="Heading1"/></w:style><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style><w:style w:type="paragraph" w:styleId="Deep"><w:name w:val="Deep"/><w:pPr><w:outlineLvl w:val="2"/></w:pPr></w:style>`,
			want:   []string{"p1 [One] a", "p1 [One › Sub] b"}, note: true,
		},
		{
			name:   "a basedOn cycle is not followed for ever",
			body:   p("A", "x"),
			styles: `<w:style w:type="paragraph" w:styleId="A"><w:name w:val="A"/><w:basedOn w:val="B"/></w:style><w:style w:type="paragraph" w:styleId="B"><w:name w:val="B"/><w:basedOn w:val="A"/></w:style>`,
			want:   []string{"p1 [] x"}, note: true,
		},
		{
			name: "breaks with no text between count once; a leading break none",
			body: `<w:p><w:r><w:br w:type="page"/></w:r></w:p>` + p("", "one") +
				`<w:p><w:r><w:br w:type="page"/></w:r></w:p><w:p><w:r><w:lastRenderedPageBreak/><w:t>two</w:t></w:r></w:p>` +
				`<w:p><w:pPr><w:pageBreakBefore/></w:pPr><w:r><w:t>three</w:t></w:r></w:p>`,
			want: []string{"p1 [] one", "p2 [] two", "p3 [] three"},
		},
		{
			name: "a section break starts a new page unless it is continuous",
			body: `<w:p><w:pPr><w:sectPr><w:type w:val="continuous"/></w:sectPr></w:pPr><w:r><w:t>a</w:t></w:r></w:p>` +
				`<w:p><w:pPr><w:sectPr/></w:pPr><w:r><w:t>b</w:t></w:r></w:p>` + p("", "c"),
			want: []string{"p1 [] a", "p1 [] b", "p2 [] c"},
		},
		{
			name: "deleted, moved-from, field codes and fallbacks are not text",
			body: `<w:p><w:r><w:t xml:space="preserve">kept </w:t></w:r><w:del><w:r><w:delText>gone</w:delText></w:r></w:del>` +
				`<w:moveFrom><w:r><w:t>moved</w:t></w:r></w:moveFrom>` +
				`<w:r><w:instrText>PAGE</w:instrText></w:r>` +
				`<mc:AlternateContent><mc:Choice Requires="wps"><w:r><w:t>box</w:t></w:r></mc:Choice><mc:Fallback><w:r><w:t>box</w:t></w:r></mc:Fallback></mc:AlternateContent></w:p>`,
			want: []string{"p1 [] kept box"}, note: true,
		},
		{
			name: "a tracked change of style is not the paragraph's style",
			body: `<w:p><w:pPr><w:pStyle w:val="Heading1"/><w:pPrChange><w:pPr><w:pStyle w:val="Normal"/></w:pPr></w:pPrChange></w:pPr><w:r><w:t>Head</w:t></w:r></w:p>` + p("", "body"),
			want: []string{"p1 [Head] body"}, note: true,
		},
		{
			name: "tabs, line breaks and a nested table",
			body: `<w:p><w:r><w:t>a</w:t><w:tab/><w:t>b</w:t><w:br/><w:t>c</w:t></w:r></w:p>` +
				`<w:tbl><w:tr><w:tc><w:p><w:r><w:t>outer</w:t></w:r></w:p><w:tbl><w:tr><w:tc><w:p><w:r><w:t>in|ner</w:t></w:r></w:p></w:tc></w:tr></w:tbl></w:tc><w:tc><w:p><w:r><w:t>x</w:t></w:r></w:p></w:tc></w:tr></w:tbl>`,
			want: []string{"p1 [] a b\nc", "p1 [] | outer in\\|ner | x |\n| --- | --- |"}, note: true,
		},
		{
			name: "a page break inside a table row moves that row on",
			body: `<w:tbl><w:tr><w:tc><w:p><w:r><w:t>h</w:t></w:r></w:p></w:tc></w:tr>` +
				`<w:tr><w:tc><w:p><w:r><w:t>r1</w:t></w:r></w:p></w:tc></w:tr>` +
				`<w:tr><w:tc><w:p><w:r><w:lastRenderedPageBreak/><w:t>r2</w:t></w:r></w:p></w:tc></w:tr></w:tbl>`,
			want: []string{"p1 [] | h |\n| --- |\n| r1 |", "p2 [] | r2 |\n| --- |"},
		},
		{
			name:   "code paragraphs are one fenced block, their indent kept",
			body:   p("Code", "func main() {") + p("Code", "    x := 1") + p("Code", "}") + p("", "after"),
			styles: `<w:style w:type="paragraph" w:styleId="Code"><w:name w:val="Code Block"/><w:basedOn w:val="Src"/></w:style><w:style w:type="paragraph" w:styleId="Src"><w:name w:val="Source Code"/></w:style>`,
			want:   []string{"p1 [] ```\nfunc main() {\n    x := 1\n}\n```", "p1 [] after"}, note: true,
		},
		{
			name: "list paragraphs without a numbering part are bullets",
			body: `<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="5"/></w:numPr></w:pPr><w:r><w:t>a</w:t></w:r></w:p>` +
				`<w:p><w:pPr><w:numPr><w:ilvl w:val="1"/><w:numId w:val="5"/></w:numPr></w:pPr><w:r><w:t>b</w:t></w:r></w:p>` + p("", "after"),
			want: []string{"p1 [] - a\n  - b", "p1 [] after"}, note: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex, err := Read(context.Background(), "t.docx", docx(t, tc.body, tc.styles))
			if err != nil {
				t.Fatal(err)
			}
			if got := blocks(ex); !slices.Equal(got, tc.want) {
				t.Errorf("blocks %q, want %q", got, tc.want)
			}
			if hasNote := ex.Note != ""; hasNote != tc.note {
				t.Errorf("note %q, want one: %v", ex.Note, tc.note)
			}
		})
	}
}

func TestDOCXRefuses(t *testing.T) {
	good, err := os.ReadFile("testdata/report.docx")
	if err != nil {
		t.Fatal(err)
	}
	bomb := func(declared uint64) []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, err := zw.CreateRaw(&zip.FileHeader{Name: "word/document.xml", Method: zip.Store, UncompressedSize64: declared, CompressedSize64: 4})
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write([]byte("<a/>"))
		_ = zw.Close()
		return buf.Bytes()
	}
	many := make([][2]string, 0, 30)
	for i := range 30 {
		many = append(many, [2]string{"media/" + strings.Repeat("x", i+1), ""})
	}
	small := docxLimits{entries: 20, partBytes: 1 << 20}
	for _, tc := range []struct {
		name  string
		b     []byte
		lim   docxLimits
		words []string
	}{
		{"truncated.docx", good[:len(good)/2], defaultDOCXLimits, []string{"damaged", "zip"}},
		{"noise.docx", []byte("this is not a zip at all"), defaultDOCXLimits, []string{"damaged"}},
		{"old.docx", append([]byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, make([]byte, 512)...), defaultDOCXLimits, []string{".doc", "password"}},
		{"photos.docx", makeZip(t, [2]string{"hello.txt", "hi"}), defaultDOCXLimits, []string{"not a Word document", "word/document.xml"}},
		{"bad-xml.docx", makeZip(t, [2]string{"word/document.xml", "<w:document><w:body><w:p>"}), defaultDOCXLimits, []string{"damaged", "word/document.xml"}},
		{"claims.docx", bomb(1 << 40), defaultDOCXLimits, []string{"zip bomb"}},
		// The real thing: 2 MB of spaces deflate to a few KB and claim
		// their true size; the limit is met while inflating.
		{"bomb.docx", makeZip(t, [2]string{"word/document.xml", "<w:document>" + strings.Repeat(" ", 2<<20) + "</w:document>"}), small, []string{"zip bomb"}},
		{"many.docx", makeZip(t, many...), small, []string{"30 files"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readDOCXWith(context.Background(), tc.name, tc.b, tc.lim)
			refused(t, err, tc.name, tc.words...)
		})
	}
}

// TestDOCXBombNeverInflatesPastTheLimit lies about the size: the part
// claims 10 bytes and inflates to 2 MB; reading stops at the limit.
func TestDOCXBombNeverInflatesPastTheLimit(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "word/document.xml", Method: zip.Deflate})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write(bytes.Repeat([]byte{' '}, 2<<20))
	_ = zw.Close()
	b := buf.Bytes()
	// Rewrite the sizes the central directory claims: 2 MB → 10 bytes.
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	claimed := zr.File[0].UncompressedSize64
	le := []byte{byte(claimed), byte(claimed >> 8), byte(claimed >> 16), byte(claimed >> 24)}
	i := bytes.LastIndex(b, le)
	if i < 0 {
		t.Fatal("no size field to rewrite")
	}
	copy(b[i:], []byte{10, 0, 0, 0})
	_, err = readDOCXWith(context.Background(), "liar.docx", b, docxLimits{entries: 10, partBytes: 1 << 20})
	if err == nil {
		t.Fatal("a part that inflates past its claimed size was read")
	}
	refused(t, err, "liar.docx")
}

func TestDOCXHonoursCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Read(ctx, "t.docx", docx(t, p("", "a"), ""))
	if err == nil {
		t.Fatal("a cancelled read went on")
	}
}

func TestDOCXTitleFromProperties(t *testing.T) {
	b := makeZip(t,
		[2]string{"word/document.xml", `<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>text</w:t></w:r></w:p></w:body></w:document>`},
		[2]string{"docProps/core.xml", `<cp:coreProperties xmlns:cp="cp" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title> Annual  plan </dc:title></cp:coreProperties>`},
	)
	ex, err := Read(context.Background(), "plan.docx", b)
	if err != nil || ex.Title != "Annual plan" || ex.Format != knowledge.FormatDOCX {
		t.Fatalf("got %+v, %v", ex, err)
	}
}

// FuzzDOCXBody: any document.xml is read or refused without a panic, and
// a read one has its pages numbered in order.
func FuzzDOCXBody(f *testing.F) {
	for _, s := range []string{
		p("Heading1", "a") + p("", "b"),
		`<w:tbl><w:tr><w:tc><w:p><w:r><w:lastRenderedPageBreak/><w:t>x</w:t></w:r></w:p></w:tc></w:tr></w:tbl>`,
		`<w:p><w:pPr><w:numPr><w:ilvl w:val="9"/><w:numId w:val="1"/></w:numPr><w:sectPr/></w:pPr><w:r><w:br w:type="page"/><w:t>y</w:t></w:r></w:p>`,
	} {
		f.Add(s)
	}
	st := &docxStyles{}
	f.Fuzz(func(t *testing.T, body string) {
		ex, err := readBody(context.Background(), []byte(`<w:document xmlns:w="w"><w:body>`+body+`</w:body></w:document>`), st)
		if err != nil {
			return
		}
		for i, pg := range ex.Pages {
			if pg.Number != i+1 {
				t.Fatalf("page %d numbered %d", i+1, pg.Number)
			}
		}
	})
}

// TestReportDOCXIsWhatItsGeneratorWrites runs testdata/gen_docx.go and
// compares each part with the kept report.docx, so the two cannot drift.
func TestReportDOCXIsWhatItsGeneratorWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the generator")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out := filepath.Join(t.TempDir(), "report.docx")
	if b, err := exec.Command(gobin, "run", filepath.Join("testdata", "gen_docx.go"), out).CombinedOutput(); err != nil {
		t.Fatalf("gen_docx: %v\n%s", err, b)
	}
	parts := func(path string) map[string]string {
		zr, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = zr.Close() }()
		m := map[string]string{}
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(rc)
			_ = rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			m[f.Name] = string(b)
		}
		return m
	}
	if !maps.Equal(parts(out), parts(filepath.Join("testdata", "report.docx"))) {
		t.Fatal("testdata/report.docx is not what gen_docx.go writes: run it again (see its comment)")
	}
}

func TestDOCXRelationships(t *testing.T) {
	rels := func(target string) [2]string {
		return [2]string{"_rels/.rels", `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="r" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="` + target + `"/></Relationships>`}
	}
	body := [2]string{"", `<w:document xmlns:w="w"><w:body><w:p><w:pPr><w:pStyle w:val="H"/></w:pPr><w:r><w:t>Head</w:t></w:r></w:p><w:p><w:r><w:t>text</w:t></w:r></w:p></w:body></w:document>`}
	styles := [2]string{"doc/_rels/main.xml.rels", `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="s" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="/doc/st.xml"/></Relationships>`}
	for _, target := range []string{"doc/main.xml", "/doc/main.xml"} {
		body[0] = "Doc/Main.xml" // part names ignore case
		b := makeZip(t, rels(target), body, styles,
			[2]string{"doc/st.xml", `<w:styles xmlns:w="w"><w:style w:type="paragraph" w:styleId="H"><w:name w:val="heading 1"/></w:style></w:styles>`})
		ex, err := Read(context.Background(), "moved.docx", b)
		if err != nil {
			t.Fatal(err)
		}
		if got := blocks(ex); !slices.Equal(got, []string{"p1 [Head] text"}) {
			t.Errorf("target %s: blocks %q", target, got)
		}
	}
}

func TestDOCXListNumbers(t *testing.T) {
	item := func(num, lvl, text string) string {
		return `<w:p><w:pPr><w:numPr><w:ilvl w:val="` + lvl + `"/><w:numId w:val="` + num + `"/></w:numPr></w:pPr><w:r><w:t>` + text + `</w:t></w:r></w:p>`
	}
	b := makeZip(t,
		[2]string{"word/document.xml", `<w:document xmlns:w="w"><w:body>` +
			item("1", "0", "a") + item("1", "1", "a.i") + item("1", "1", "a.ii") + item("1", "0", "b") + item("1", "1", "b.i") +
			`<w:p><w:r><w:t>between</w:t></w:r></w:p>` +
			item("2", "0", "zero") + item("2", "0", "one") + `</w:body></w:document>`},
		[2]string{"word/numbering.xml", `<w:numbering xmlns:w="w">
<w:abstractNum w:abstractNumId="7"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/></w:lvl><w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="lowerRoman"/></w:lvl></w:abstractNum>
<w:abstractNum w:abstractNumId="8"><w:lvl w:ilvl="0"><w:start w:val="0"/><w:numFmt w:val="decimal"/></w:lvl></w:abstractNum>
<w:num w:numId="1"><w:abstractNumId w:val="7"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="3"/></w:lvlOverride></w:num>
<w:num w:numId="2"><w:abstractNumId w:val="8"/></w:num>
</w:numbering>`},
	)
	ex, err := Read(context.Background(), "lists.docx", b)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"p1 [] 3. a\n  1. a.i\n  2. a.ii\n4. b\n  1. b.i", "p1 [] between", "p1 [] 0. zero\n1. one"}
	if got := blocks(ex); !slices.Equal(got, want) {
		t.Fatalf("blocks %q, want %q", got, want)
	}
}

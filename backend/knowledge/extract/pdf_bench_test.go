package extract

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"codeberg.org/go-pdf/fpdf"

	"github.com/agentdeck/agentdeck/backend/knowledge"
)

// BenchmarkPDFIndex300 reads a 300-page PDF (made here with fpdf: a heading
// and four paragraphs a page, about 2,400 characters) and cuts it into
// passages, with PDFium already loaded; storing the passages is the same
// for every format and is not counted. The floor, measured in the same
// loop, is the same text as a plain text file through Read and Split: what
// indexing costs when there is nothing to extract. It reports pages a
// second for both and pdf/floor, how many times the floor's time the PDF
// takes.
func BenchmarkPDFIndex300(b *testing.B) {
	const pages = 300
	pdf, text := benchPDF(b, pages)
	r := NewPDFReader(PDFConfig{CacheDir: testCacheDir(b)})
	defer r.Close()
	ctx := context.Background()
	ex, err := r.Read(ctx, "big.pdf", pdf) // loads PDFium, outside the timing
	if err != nil {
		b.Fatal(err)
	}
	if len(ex.Pages) != pages || !strings.Contains(ex.Pages[pages-1].Blocks[0].Heading, fmt.Sprintf("Section %d", pages)) {
		b.Fatalf("read %d pages, the last %+v", len(ex.Pages), ex.Pages[pages-1])
	}
	var pdfTimes, floorTimes []time.Duration
	for b.Loop() {
		pdfTimes = append(pdfTimes, benchTime(func() {
			ex, err := r.Read(ctx, "big.pdf", pdf)
			if err != nil {
				b.Fatal(err)
			}
			knowledge.Split(ex, knowledge.DefaultPassageRunes)
		}))
		floorTimes = append(floorTimes, benchTime(func() {
			ex, err := Read(ctx, "big.txt", text)
			if err != nil {
				b.Fatal(err)
			}
			knowledge.Split(ex, knowledge.DefaultPassageRunes)
		}))
	}
	b.StopTimer()
	p, f := benchMedian(pdfTimes), benchMedian(floorTimes)
	b.ReportMetric(pages/p.Seconds(), "pages/s")
	b.ReportMetric(pages/f.Seconds(), "floor-pages/s")
	b.ReportMetric(p.Seconds()/f.Seconds(), "pdf/floor")
	b.ReportMetric(float64(p.Microseconds())/1000/pages, "ms/page")
}

// BenchmarkPDFFirstLoad is what the first PDF after a start costs: loading
// PDFium (compiling its WebAssembly to machine code, or reading that code
// from wazero's cache on disk), then reading a one-page PDF. compile-ms is
// a reader on an empty cache directory (a first start, or no disk cache),
// cached-ms one on a directory a previous start filled; read-ms is the
// same PDF read by a reader already loaded (each read takes a fresh
// instance of the module).
func BenchmarkPDFFirstLoad(b *testing.B) {
	small := testPDF(b, "partly-scanned.pdf")
	ctx := context.Background()
	warm := b.TempDir()
	first := func(dir string) time.Duration {
		return benchTime(func() {
			r := NewPDFReader(PDFConfig{CacheDir: dir})
			defer r.Close()
			if _, err := r.Read(ctx, "small.pdf", small); err != nil {
				b.Fatal(err)
			}
		})
	}
	first(warm) // fills the cache
	loaded := NewPDFReader(PDFConfig{CacheDir: warm})
	defer loaded.Close()
	var compile, cached, read []time.Duration
	for b.Loop() {
		cold, err := os.MkdirTemp(b.TempDir(), "cold")
		if err != nil {
			b.Fatal(err)
		}
		compile = append(compile, first(cold))
		cached = append(cached, first(warm))
		read = append(read, benchTime(func() {
			if _, err := loaded.Read(ctx, "small.pdf", small); err != nil {
				b.Fatal(err)
			}
		}))
	}
	b.StopTimer()
	c, w := benchMedian(compile), benchMedian(cached)
	b.ReportMetric(float64(c.Microseconds())/1000, "compile-ms")
	b.ReportMetric(float64(w.Microseconds())/1000, "cached-ms")
	b.ReportMetric(c.Seconds()/w.Seconds(), "compile/cached")
	b.ReportMetric(float64(benchMedian(read).Microseconds())/1000, "read-ms")
	if files, _ := filepath.Glob(filepath.Join(warm, "*", "*")); len(files) == 1 {
		if st, err := os.Stat(files[0]); err == nil {
			b.ReportMetric(float64(st.Size())/(1<<20), "cache-MB")
		}
	}
}

// benchPDF makes a PDF of n pages, each a heading in 16 pt and four
// paragraphs in 11 pt, and the same text as plain text.
func benchPDF(b *testing.B, n int) (pdf, text []byte) {
	b.Helper()
	doc := fpdf.New("P", "mm", "A4", "")
	doc.SetCompression(true)
	doc.SetAutoPageBreak(false, 15)
	var plain strings.Builder
	para := "The survey team walked the reach at first light and counted the trout in each pool, noting the depth, the flow and the state of the banks; " +
		"where the water ran slow below the weir the count fell and the weed grew thick, and the samples taken there held the most nitrate of the season."
	for p := 1; p <= n; p++ {
		doc.AddPage()
		doc.SetFont("Helvetica", "B", 16)
		heading := fmt.Sprintf("Section %d", p)
		doc.CellFormat(0, 10, heading, "", 1, "L", false, 0, "")
		plain.WriteString("# " + heading + "\n\n")
		doc.SetFont("Helvetica", "", 11)
		for range 4 {
			doc.MultiCell(0, 5.5, para, "", "L", false)
			doc.Ln(4)
			plain.WriteString(para + "\n\n")
		}
	}
	var buf strings.Builder
	if err := doc.Output(&buf); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "big.pdf")
	if err := os.WriteFile(path, []byte(buf.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	pdf, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return pdf, []byte(plain.String())
}

func benchTime(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}

func benchMedian(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

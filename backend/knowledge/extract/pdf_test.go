package extract

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/knowledge"
)

// TestPDF reads the PDFs of testdata (made by pdf_gen.go) with one reader,
// so PDFium loads once for all the cases.
func TestPDF(t *testing.T) {
	defer goleak.VerifyNone(t)
	r := NewPDFReader(PDFConfig{CacheDir: testCacheDir(t)})
	defer r.Close()

	t.Run("pages, headings and a table", func(t *testing.T) { testReport(t, r) })
	t.Run("refusals", func(t *testing.T) { testRefusals(t, r) })
	t.Run("some pages scanned", func(t *testing.T) {
		ex, err := r.Read(context.Background(), "minutes.pdf", testPDF(t, "partly-scanned.pdf"))
		if err != nil {
			t.Fatal(err)
		}
		if want := "pages 2–3 have no text layer (scanned?)"; ex.Note != want {
			t.Errorf("note = %q, want %q", ex.Note, want)
		}
		if len(ex.Pages) != 4 || len(ex.Pages[1].Blocks) != 0 || len(ex.Pages[3].Blocks) != 1 {
			t.Errorf("pages = %+v, want 4 with text on 1 and 4", ex.Pages)
		}
	})
	t.Run("stopped", func(t *testing.T) { testStopped(t, r) })
	t.Run("more PDFs at once than instances", func(t *testing.T) {
		report := testPDF(t, "report.pdf")
		errs := make(chan error, pdfWorkers+1)
		for range pdfWorkers + 1 {
			go func() {
				ex, err := r.Read(context.Background(), "report.pdf", report)
				if err == nil && len(ex.Pages) != 4 {
					err = fmt.Errorf("%d pages", len(ex.Pages))
				}
				errs <- err
			}()
		}
		for range pdfWorkers + 1 {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
	})

	if r.loads != 1 {
		t.Errorf("PDFium was loaded %d times, want once", r.loads)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if r.Loaded() {
		t.Error("Loaded after Close")
	}
	if _, err := r.Read(context.Background(), "report.pdf", testPDF(t, "report.pdf")); err != nil || r.loads != 2 {
		t.Errorf("Read after Close: %v, loads %d, want it loaded again", err, r.loads)
	}
}

// TestPDFIdleUnload: PDFium is unloaded when no PDF was read for a while
// (the timer is the test's: it fires when the test says), never by a timer
// armed before a later read, and loads again for the next PDF.
func TestPDFIdleUnload(t *testing.T) {
	defer goleak.VerifyNone(t)
	r := NewPDFReader(PDFConfig{CacheDir: testCacheDir(t), IdleUnload: time.Minute})
	defer r.Close()
	var armed []func()
	stops := 0
	r.afterFunc = func(d time.Duration, f func()) timer {
		if d != time.Minute {
			t.Errorf("armed for %v, want a minute", d)
		}
		armed = append(armed, f)
		return stopFunc(func() bool { stops++; return true })
	}
	report := testPDF(t, "report.pdf")
	read := func() {
		t.Helper()
		if _, err := r.Read(context.Background(), "report.pdf", report); err != nil {
			t.Fatal(err)
		}
	}

	read()
	read()
	if len(armed) != 2 || stops != 1 {
		t.Fatalf("%d timers armed, %d stopped; want 2 and 1", len(armed), stops)
	}
	armed[0]() // stale: the second read came after it
	if !r.Loaded() {
		t.Fatal("a timer armed before the last read unloaded PDFium")
	}
	armed[1]()
	if r.Loaded() {
		t.Fatal("PDFium still loaded after its idle time")
	}
	read()
	if r.loads != 2 || !r.Loaded() {
		t.Errorf("loads = %d after the next PDF, want 2", r.loads)
	}
}

type stopFunc func() bool

func (f stopFunc) Stop() bool { return f() }

// TestPDFCompileCache: the first reader on an empty cache compiles PDFium
// and keeps the code there; a second reader reads with it.
func TestPDFCompileCache(t *testing.T) {
	if raceEnabled() {
		t.Skip("compiling PDFium takes minutes under the race detector (wazero's compiler is instrumented); make go-test runs it without -race")
	}
	defer goleak.VerifyNone(t)
	cache := t.TempDir()
	first := NewPDFReader(PDFConfig{CacheDir: cache})
	defer first.Close()
	if _, err := first.Read(context.Background(), "report.pdf", testPDF(t, "report.pdf")); err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if files, _ := filepath.Glob(filepath.Join(cache, "*", "*")); len(files) == 0 {
		t.Fatalf("nothing in the compilation cache %s", cache)
	}
	again := NewPDFReader(PDFConfig{CacheDir: cache})
	defer again.Close()
	if _, err := again.Read(context.Background(), "report.pdf", testPDF(t, "report.pdf")); err != nil {
		t.Fatalf("a reader on the cache: %v", err)
	}
}

// testCacheDir is the compilation cache the tests share across runs:
// compiling PDFium takes a few seconds, and minutes under -race, so only
// the first run on a machine pays it. wazero names each entry by its own
// version and the module's hash, and writes it by rename, so runs and
// versions can share it.
func testCacheDir(t testing.TB) string {
	dir := filepath.Join(os.TempDir(), "agentdeck-test-wazero")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// raceEnabled tells whether the test binary was built with -race.
func raceEnabled() bool {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-race" {
				return s.Value == "true"
			}
		}
	}
	return false
}

func testReport(t *testing.T, r *PDFReader) {
	ex, err := r.Read(context.Background(), "report.pdf", testPDF(t, "report.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if ex.Format != knowledge.FormatPDF || ex.Title != "River Survey Report" || ex.Note != "" {
		t.Errorf("format %q, title %q, note %q", ex.Format, ex.Title, ex.Note)
	}
	const title = "River Survey 2026"
	want := []struct {
		page          int
		heading, text string
	}{
		{1, title, "This report gives the results of the survey of the river Wend, carried out from March to October 2026 by the county's field team. It covers water quality, the fish count and the state of the banks."},
		{1, title + " › Method", "Samples were taken at twelve stations every second week. Each sample was tested for nitrate, phosphate and dissolved oxygen in the county laboratory."},
		{1, title + " › Method", "The fish count used electric fishing on three reaches, each of one hundred metres, in June and in September."},
		{2, title + " › Results", "Nitrate fell at every station but one. The table gives the mean of each reach over the season."},
		{2, title + " › Results", "Reach | Nitrate mg/l | Oxygen % | Trout\nUpper Wend | 4.2 | 96 | 31\nMill Pool | 6.8 | 81 | 12\nLower Wend | 5.1 | 88 | 19"},
		{2, title + " › Results", "The Mill Pool reach stays the poorest, below the weir where the water is slow."},
		{3, title + " › Outlook", "The team proposes a second weir pass at the Mill Pool and a buffer strip of willow along the lower banks."},
		// Page 4 has no heading: the section of page 3 goes on.
		{4, title + " › Outlook", "Funding for the buffer strip is asked of the county in the spring budget. The survey will be repeated in 2027."},
	}
	if len(ex.Pages) != 4 {
		t.Fatalf("%d pages, want 4", len(ex.Pages))
	}
	var got []knowledge.Block
	for i, pg := range ex.Pages {
		if pg.Number != i+1 {
			t.Errorf("page %d is numbered %d", i+1, pg.Number)
		}
		for _, b := range pg.Blocks {
			got = append(got, b)
			if len(got) <= len(want) && want[len(got)-1].page != pg.Number {
				t.Errorf("block %q on page %d, want page %d", b.Text, pg.Number, want[len(got)-1].page)
			}
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d blocks, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].Heading != w.heading || got[i].Text != w.text {
			t.Errorf("block %d = [%s] %q\nwant [%s] %q", i, got[i].Heading, got[i].Text, w.heading, w.text)
		}
	}

	// Cut into passages: the table stays whole, with its page.
	for _, p := range knowledge.Split(ex, knowledge.DefaultPassageRunes) {
		if strings.Contains(p.Text, "Upper Wend") && (p.Page != 2 || !strings.Contains(p.Text, "Lower Wend | 5.1 | 88 | 19")) {
			t.Errorf("the table's passage: page %d, %q", p.Page, p.Text)
		}
	}
}

func testRefusals(t *testing.T, r *PDFReader) {
	report := testPDF(t, "report.pdf")
	tests := []struct {
		name, file string
		b          []byte
		code       apperr.Code
		msg        string
	}{
		{"scanned", "scan.pdf", testPDF(t, "scanned.pdf"), apperr.Invalid,
			"scan.pdf is scanned: it has no text layer, only images of pages. Agentdeck does not read text from images (no OCR here)"},
		{"password", "budget.pdf", testPDF(t, "encrypted.pdf"), apperr.Invalid, "budget.pdf is protected by a password"},
		{"truncated", "cut.pdf", report[:len(report)/2], apperr.Invalid, "cut.pdf could not be read as a PDF: the file is damaged or not a PDF"},
		{"not a PDF inside", "fake.pdf", []byte("%PDF-1.7\nthis is not a PDF\n"), apperr.Invalid, "fake.pdf could not be read as a PDF"},
		{"empty", "empty.pdf", nil, apperr.Invalid, "empty.pdf could not be read as a PDF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.Read(context.Background(), tt.file, tt.b)
			if apperr.CodeOf(err) != tt.code || !strings.HasPrefix(apperr.MessageOf(err), tt.msg) {
				t.Errorf("err = %v (%s), want %s %q…", err, apperr.CodeOf(err), tt.code, tt.msg)
			}
		})
	}
}

func testStopped(t *testing.T, r *PDFReader) {
	report := testPDF(t, "report.pdf")

	// The reader asks ctx between pages: a context that ends while the
	// first pages are read stops it before the last.
	counting := &countdown{Context: context.Background(), left: 1 << 30}
	if _, err := r.Read(counting, "report.pdf", report); err != nil {
		t.Fatal(err)
	}
	asked := counting.asked.Load()
	if asked < 5 {
		t.Fatalf("ctx asked %d times for 4 pages, want at least once a page", asked)
	}
	late := &countdown{Context: context.Background(), left: asked - 2}

	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	cancelled, cancel2 := context.WithCancel(context.Background())
	cancel2()

	tests := []struct {
		name string
		ctx  context.Context
		code apperr.Code
		is   error
	}{
		{"cancelled before", cancelled, apperr.Cancelled, context.Canceled},
		{"cancelled between pages", late, apperr.Cancelled, context.Canceled},
		{"past its deadline", expired, apperr.Unavailable, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.Read(tt.ctx, "report.pdf", report)
			if apperr.CodeOf(err) != tt.code || !errors.Is(err, tt.is) {
				t.Errorf("err = %v (%s), want %s wrapping %v", err, apperr.CodeOf(err), tt.code, tt.is)
			}
		})
	}
}

// countdown is a context whose Err says Canceled once it has been asked
// left times: a cancel that lands at a chosen point of a read, with no
// timing involved.
type countdown struct {
	context.Context
	left  int64
	asked atomic.Int64
}

func (c *countdown) Err() error {
	if c.asked.Add(1) > c.left {
		return context.Canceled
	}
	return nil
}

// TestReadTextLeavesPDFUnloaded: reading anything but a PDF never loads
// PDFium (start and idle memory stay where they were).
func TestReadTextLeavesPDFUnloaded(t *testing.T) {
	if _, err := Read(context.Background(), "notes.txt", []byte("plain notes")); err != nil {
		t.Fatal(err)
	}
	if defaultPDF.r != nil {
		t.Fatal("reading a text file made the PDF reader")
	}
	if kind, ok := Detect("report.PDF", []byte("%PDF-1.7")); !ok || kind != knowledge.FormatPDF {
		t.Fatalf("Detect = %q, %v", kind, ok)
	}
}

func testPDF(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDefaultPDFCacheDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", home)
	t.Setenv("HOME", home)
	user, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ env, want string }{
		{"", filepath.Join(user, "agentdeck", "wazero")},
		{"off", ""},
		{"/var/cache/pdfium", "/var/cache/pdfium"},
	}
	for _, tt := range tests {
		t.Setenv(EnvPDFCache, tt.env)
		if got := DefaultPDFCacheDir(); got != tt.want {
			t.Errorf("%s=%q: %q, want %q", EnvPDFCache, tt.env, got, tt.want)
		}
	}
}

package extract

//go:generate go run pdf_gen.go

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/klippa-app/go-pdfium"
	pdfiumerr "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/knowledge"
)

// PDFs are read with PDFium (github.com/klippa-app/go-pdfium v1.21.5) in
// its WebAssembly build, run by wazero (github.com/tetratelabs/wazero
// v1.12.0): the same engine as Chrome's viewer, in pure Go, with no cgo
// and nothing to download. Its cost is about 11 MB of binary (stripped;
// 6 MB of it the module) and a compile of the module (about 1.4 s on an
// idle 2-core machine) the first time a PDF is read, so it is loaded
// then, never at start, and wazero keeps the compiled code in a cache
// directory so that later starts load it in a fraction of that.

// PDFConfig says where the PDF reader keeps its compiled module.
type PDFConfig struct {
	// CacheDir is wazero's compilation cache: PDFium compiled to machine
	// code. "" keeps it in memory only (each start compiles again).
	CacheDir string
	// IdleUnload unloads PDFium when no PDF has been read for this long,
	// giving its memory back (0: keep it until Close). The next PDF loads
	// it again, from the cache.
	IdleUnload time.Duration
	// Log receives what goes wrong with the cache (nil: slog.Default()).
	Log *slog.Logger
}

// DefaultPDFIdleUnload is how long the app keeps PDFium loaded after the
// last PDF: long enough for a batch of files, short enough that a session
// that read one PDF goes back to its idle memory (PDFium holds about 45 MB
// once loaded).
const DefaultPDFIdleUnload = 2 * time.Minute

// DefaultPDFCacheDir is where the app keeps PDFium's compiled code:
// $AGENTDECK_PDF_CACHE when set ("off": nowhere, compile at each start),
// else agentdeck/wazero in the user's cache directory ("" when the system
// names none).
func DefaultPDFCacheDir() string {
	switch env := os.Getenv(EnvPDFCache); env {
	case "off":
		return ""
	case "":
	default:
		return env
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "agentdeck", "wazero")
}

// EnvPDFCache names the environment variable that moves (or, "off",
// turns off) the PDF reader's cache of compiled code.
const EnvPDFCache = "AGENTDECK_PDF_CACHE"

// PDFReader reads PDFs. It loads PDFium on the first PDF and keeps it until
// Close, or until it has been idle for IdleUnload; a later Read loads it
// again. Safe for concurrent use: up to
// pdfWorkers documents are read at once, each in its own instance of the
// module, dropped when the document is read (so its memory is freed).
type PDFReader struct {
	cfg PDFConfig

	mu      sync.Mutex
	pool    pdfium.Pool
	cache   wazero.CompilationCache
	loads   int // how many times PDFium was loaded (a test's witness)
	reading int // PDFs being read
	// idle is the timer that unloads PDFium, armed when the last read
	// ends; gen tells a timer armed before a later read that it is stale.
	idle      timer
	gen       int
	afterFunc func(time.Duration, func()) timer // time.AfterFunc; a test's hand
}

// timer is what the reader needs of a *time.Timer.
type timer interface{ Stop() bool }

// pdfWorkers is how many PDFs are read at once (the machines have 2 cores).
const pdfWorkers = 2

// NewPDFReader returns a reader that loads nothing until its first PDF.
func NewPDFReader(cfg PDFConfig) *PDFReader {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &PDFReader{cfg: cfg, afterFunc: func(d time.Duration, f func()) timer {
		return time.AfterFunc(d, f)
	}}
}

// defaultPDF is the reader Read uses, made on the first PDF, with its
// cache where DefaultPDFCacheDir says (read then, not at start).
var defaultPDF struct {
	once sync.Once
	r    *PDFReader
}

func theDefaultPDF() *PDFReader {
	defaultPDF.once.Do(func() {
		defaultPDF.r = NewPDFReader(PDFConfig{CacheDir: DefaultPDFCacheDir(), IdleUnload: DefaultPDFIdleUnload})
	})
	return defaultPDF.r
}

// readPDF reads a PDF with the default reader.
func readPDF(ctx context.Context, name string, b []byte) (knowledge.Extracted, error) {
	return theDefaultPDF().Read(ctx, name, b)
}

// ClosePDF unloads PDFium from the reader Read uses, if a PDF loaded it:
// the engine calls it when it shuts down.
func ClosePDF() error { return theDefaultPDF().Close() }

// Loaded tells whether PDFium is loaded.
func (r *PDFReader) Loaded() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pool != nil
}

// Close unloads PDFium, and closes the compilation cache (the files stay).
func (r *PDFReader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.idle != nil {
		r.idle.Stop()
		r.idle = nil
	}
	var err error
	if r.pool != nil {
		err = r.pool.Close()
		r.pool = nil
	}
	if r.cache != nil {
		err = errors.Join(err, r.cache.Close(context.Background()))
		r.cache = nil
	}
	return err
}

// Read reads the text of the PDF named name, page by page (see layout for
// how lines, tables and headings are found). A PDF with no text on any
// page is refused as a scan; one with some pages without text names them
// in the note. ctx is checked between pages; a page being read is not
// interrupted (wazero's WithCloseOnContextDone would allow it, but it made
// reading 2.3× slower in BenchmarkPDFIndex300, for pages that take a few
// milliseconds).
func (r *PDFReader) Read(ctx context.Context, name string, b []byte) (knowledge.Extracted, error) {
	if err := ctx.Err(); err != nil {
		return knowledge.Extracted{}, stopped(name, err)
	}
	pool, err := r.acquire()
	defer r.release()
	if err != nil {
		return knowledge.Extracted{}, apperr.Wrap(err, apperr.Internal, "The PDF reader could not start, so %s was not read. The details are in the log.", name)
	}
	inst, err := pool.GetInstanceWithContext(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return knowledge.Extracted{}, stopped(name, ctx.Err())
		}
		return knowledge.Extracted{}, apperr.Wrap(err, apperr.Internal, "The PDF reader could not start, so %s was not read. The details are in the log.", name)
	}
	defer inst.Close()
	doc, err := inst.OpenDocument(&requests.OpenDocument{File: &b})
	if err != nil {
		return knowledge.Extracted{}, openError(name, err)
	}
	defer inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
	return readDocument(ctx, inst, doc.Document, name)
}

// acquire counts a read in and returns the pool, loading PDFium if it is
// not loaded; release counts it out.
func (r *PDFReader) acquire() (pdfium.Pool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reading++
	r.gen++
	if r.idle != nil {
		r.idle.Stop()
		r.idle = nil
	}
	return r.load()
}

// release counts a read out; the last one arms the idle unload.
func (r *PDFReader) release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reading--
	if r.reading > 0 || r.pool == nil || r.cfg.IdleUnload <= 0 {
		return
	}
	gen := r.gen
	r.idle = r.afterFunc(r.cfg.IdleUnload, func() { r.unloadIdle(gen) })
}

// unloadIdle unloads PDFium if nothing was read since the timer of gen
// was armed. The compilation cache stays open for the next load.
func (r *PDFReader) unloadIdle(gen int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if gen != r.gen || r.reading > 0 || r.pool == nil {
		return
	}
	if err := r.pool.Close(); err != nil {
		r.cfg.Log.Warn("pdf: unloading PDFium", "err", err)
	}
	r.pool, r.idle = nil, nil
}

// load returns the pool, loading PDFium the first time; r.mu is held.
func (r *PDFReader) load() (pdfium.Pool, error) {
	if r.pool != nil {
		return r.pool, nil
	}
	// The bundled PDFium lowers setjmp/longjmp to WebAssembly exceptions.
	rc := wazero.NewRuntimeConfig().WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling)
	if r.cache == nil && r.cfg.CacheDir != "" {
		cache, err := wazero.NewCompilationCacheWithDir(r.cfg.CacheDir)
		if err != nil {
			r.cfg.Log.Warn("pdf: no compilation cache on disk; PDFium compiles at each start", "dir", r.cfg.CacheDir, "err", err)
		}
		r.cache = cache
	}
	if r.cache != nil {
		rc = rc.WithCompilationCache(r.cache)
	}
	pool, err := webassembly.Init(webassembly.Config{
		MaxTotal: pdfWorkers,
		// No file system (documents come as bytes) and no console output
		// (the CLI's stdout is its own).
		FSConfig:      wazero.NewFSConfig(),
		RuntimeConfig: rc,
		Stdout:        io.Discard,
		Stderr:        io.Discard,
	})
	if err != nil {
		return nil, fmt.Errorf("loading PDFium: %w", err)
	}
	r.pool = pool
	r.loads++
	return pool, nil
}

// readDocument reads an open document's pages.
func readDocument(ctx context.Context, inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, name string) (knowledge.Extracted, error) {
	count, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc})
	if err != nil {
		return knowledge.Extracted{}, damaged(name, err)
	}
	ex := knowledge.Extracted{Format: knowledge.FormatPDF}
	if meta, err := inst.FPDF_GetMetaText(&requests.FPDF_GetMetaText{Document: doc, Tag: "Title"}); err == nil {
		ex.Title = strings.TrimSpace(meta.Value)
	}
	pageLines := make([][]line, count.PageCount)
	var empty []int // pages with something on them but no text
	text := false
	for i := range pageLines {
		if err := ctx.Err(); err != nil {
			return knowledge.Extracted{}, stopped(name, err)
		}
		page := requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: i}}
		runs, err := pageRuns(inst, page)
		if err != nil {
			return knowledge.Extracted{}, damaged(name, fmt.Errorf("page %d: %w", i+1, err))
		}
		pageLines[i] = lines(runs)
		switch {
		case len(pageLines[i]) > 0:
			text = true
		case !blank(inst, page):
			empty = append(empty, i+1)
		}
	}
	switch {
	case !text && len(empty) > 0:
		return knowledge.Extracted{}, apperr.New(apperr.Invalid,
			"%s is scanned: it has no text layer, only images of pages. Agentdeck does not read text from images (no OCR here); run it through OCR (for example ocrmypdf) and add the result.", name)
	case !text:
		return knowledge.Extracted{}, apperr.New(apperr.Invalid, "%s has no text: its pages are blank.", name)
	}
	ex.Pages = layout(pageLines)
	ex.Note = pagesNote(empty)
	return ex, nil
}

// pageRuns is a page's text as runs with their boxes and font sizes.
func pageRuns(inst pdfium.Pdfium, page requests.Page) ([]run, error) {
	st, err := inst.GetPageTextStructured(&requests.GetPageTextStructured{
		Page: page, Mode: requests.GetPageTextStructuredModeRects, CollectFontInformation: true,
	})
	if err != nil {
		return nil, err
	}
	runs := make([]run, 0, len(st.Rects))
	for _, r := range st.Rects {
		size := 0.0
		if f := r.FontInformation; f != nil {
			// The size as drawn: a font set at 1 pt and scaled by the
			// text matrix (as TeX does) is as big as it looks.
			size = f.RenderedSize
			if size <= 0 {
				size = f.Size
			}
		}
		p := r.PointPosition
		runs = append(runs, run{text: r.Text, left: p.Left, right: p.Right, bottom: min(p.Bottom, p.Top), top: max(p.Bottom, p.Top), size: size})
	}
	return runs, nil
}

// blank tells whether a page without text has nothing on it at all (a
// blank page is not a scan).
func blank(inst pdfium.Pdfium, page requests.Page) bool {
	n, err := inst.FPDFPage_CountObjects(&requests.FPDFPage_CountObjects{Page: page})
	return err == nil && n.Count == 0
}

// openError says why a PDF could not be opened.
func openError(name string, err error) error {
	switch {
	case errors.Is(err, pdfiumerr.ErrPassword):
		return apperr.Wrap(err, apperr.Invalid, "%s is protected by a password. Save a copy without the password (print it to PDF) and add that.", name)
	case errors.Is(err, pdfiumerr.ErrSecurity):
		return apperr.Wrap(err, apperr.Invalid, "%s uses an encryption the PDF reader does not support. Save a copy without protection and add that.", name)
	}
	return damaged(name, err)
}

func damaged(name string, err error) error {
	return apperr.Wrap(err, apperr.Invalid, "%s could not be read as a PDF: the file is damaged or not a PDF. Open it in a PDF viewer, save a new copy and add that.", name)
}

func stopped(name string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return apperr.Wrap(err, apperr.Unavailable, "Reading %s took too long and was stopped. Try again, or split the PDF into smaller files.", name)
	}
	return apperr.Wrap(err, apperr.Cancelled, "Reading %s was stopped; nothing was added.", name)
}

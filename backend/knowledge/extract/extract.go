// Package extract reads a document's text, page by page, under its
// headings: PDF (PDFium, compiled to WebAssembly and run on wazero, loaded
// with the first PDF), DOCX, Markdown, HTML and plain text. It returns
// knowledge.Extracted; knowledge.Split cuts it into passages.
//
// The rules:
//   - Page numbers are the document's own (a PDF's pages from 1); a format
//     without pages is one page. A DOCX has pages only where it stores page
//     breaks (a hard break, w:br w:type="page", or the break Word saw when
//     it last laid the document out, w:lastRenderedPageBreak); breaks with
//     no text between count once, and a DOCX with none is one page, with a
//     note saying so. Plain text starts a new page at a form feed.
//   - A heading path joins the headings above a block, outermost first,
//     with " › " ("Results › Revenue"): DOCX paragraph styles (Title, then
//     heading 1–9, found by the style's name, so a translated Word's ids
//     still work), HTML h1–h6, Markdown ATX and setext headings.
//   - Tables become Markdown rows ("| a | b |"), lists Markdown items,
//     code stays whole in one block (a Markdown fence, an HTML pre).
//   - A PDF with no text layer (a scan) is refused with a message that says
//     so, never stored silently empty; one with some scanned pages names
//     them in the note.
//   - Text must be UTF-8 (a byte order mark is dropped); UTF-16 and other
//     encodings are refused with a message that says how to fix the file.
//     An HTML file may name its charset (meta charset), and is decoded.
//   - A DOCX is a zip: it is read within limits (entries, bytes of each
//     part actually inflated), so a zip bomb is refused, not inflated.
//   - A file of another format, or one that cannot be read, is an
//     apperr.Invalid that names the file and says what to do.
//
// HTMLBlocks and HTMLToMarkdown are for other packages too: fetch_url
// (package web) turns a page, after readability, into Markdown with them.
package extract

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/knowledge"
)

// Read reads the text of the file named name with bytes b. A file that
// holds no text at all is refused: it could never be found or cited.
func Read(ctx context.Context, name string, b []byte) (knowledge.Extracted, error) {
	ex, err := read(ctx, name, b)
	if err == nil && !hasText(ex) {
		return knowledge.Extracted{}, apperr.New(apperr.Invalid, "%s holds no text to read (it is empty, or only images). Add a document with text.", name)
	}
	return ex, err
}

func read(ctx context.Context, name string, b []byte) (knowledge.Extracted, error) {
	switch kind, _ := Detect(name, b); kind {
	case knowledge.FormatPDF:
		return readPDF(ctx, name, b)
	case knowledge.FormatDOCX:
		return readDOCX(ctx, name, b)
	case knowledge.FormatHTML:
		return readHTML(name, b)
	case knowledge.FormatMarkdown:
		return readMarkdown(name, b)
	case knowledge.FormatText:
		return readText(name, b)
	}
	return knowledge.Extracted{}, apperr.New(apperr.Invalid, "%s cannot be read as a document. Add a PDF, DOCX, Markdown, HTML or plain text file.", name)
}

func hasText(ex knowledge.Extracted) bool {
	for _, pg := range ex.Pages {
		for _, b := range pg.Blocks {
			if strings.TrimSpace(b.Text) != "" {
				return true
			}
		}
	}
	return false
}

// Detect names a file's document format by its first bytes and its name;
// ok is false for a file that is not a document (a table, an image).
func Detect(name string, head []byte) (format knowledge.DocFormat, ok bool) {
	switch ext := strings.ToLower(filepath.Ext(name)); {
	case bytes.HasPrefix(head, []byte("%PDF")), ext == ".pdf":
		return knowledge.FormatPDF, true
	case ext == ".docx":
		return knowledge.FormatDOCX, true
	case ext == ".md", ext == ".markdown", ext == ".mdown", ext == ".mkd":
		return knowledge.FormatMarkdown, true
	case ext == ".html", ext == ".htm", ext == ".xhtml":
		return knowledge.FormatHTML, true
	case ext == ".txt", ext == ".text":
		return knowledge.FormatText, true
	case ext == "" && looksHTML(head):
		return knowledge.FormatHTML, true
	}
	return "", false
}

// looksHTML is true for bytes that start as an HTML document does.
func looksHTML(head []byte) bool {
	h := bytes.ToLower(bytes.TrimLeft(bytes.TrimPrefix(head, utf8BOM), " \t\r\n"))
	return bytes.HasPrefix(h, []byte("<!doctype html")) || bytes.HasPrefix(h, []byte("<html"))
}

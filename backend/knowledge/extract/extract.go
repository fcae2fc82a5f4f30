// Package extract reads a document's text, page by page, under its
// headings: PDF (PDFium, compiled to WebAssembly and run on wazero, loaded
// with the first PDF), DOCX, Markdown, HTML and plain text. It returns
// knowledge.Extracted; knowledge.Split cuts it into passages.
//
// The rules:
//   - Page numbers are the document's own (a PDF's pages from 1); a format
//     without pages is one page.
//   - A PDF with no text layer (a scan) is refused with a message that says
//     so, never stored silently empty; one with some scanned pages names
//     them in the note.
//   - A file of another format, or one that cannot be read, is an
//     apperr.Invalid that names the file and says what to do.
package extract

import (
	"context"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/knowledge"
)

// Read reads the text of the file named name with bytes b.
func Read(ctx context.Context, name string, b []byte) (knowledge.Extracted, error) {
	switch kind, _ := Detect(name, b); kind {
	case knowledge.FormatPDF:
		return readPDF(ctx, name, b)
	case knowledge.FormatText, knowledge.FormatMarkdown:
		if !utf8.Valid(b) {
			return knowledge.Extracted{}, apperr.New(apperr.Invalid, "%s is not UTF-8 text. Save it as UTF-8 and add it again.", name)
		}
		return knowledge.Extracted{Format: kind, Pages: []knowledge.Page{{Number: 1, Blocks: []knowledge.Block{{Text: string(b)}}}}}, nil
	}
	return knowledge.Extracted{}, apperr.New(apperr.Invalid, "%s cannot be read as a document. Add a PDF, DOCX, Markdown, HTML or plain text file.", name)
}

// Detect names a file's document format by its first bytes and its name;
// ok is false for a file that is not a document (a table, an image).
func Detect(name string, head []byte) (format knowledge.DocFormat, ok bool) {
	switch ext := strings.ToLower(filepath.Ext(name)); {
	case strings.HasPrefix(string(head), "%PDF"), ext == ".pdf":
		return knowledge.FormatPDF, true
	case ext == ".docx":
		return knowledge.FormatDOCX, true
	case ext == ".md", ext == ".markdown":
		return knowledge.FormatMarkdown, true
	case ext == ".html", ext == ".htm", ext == ".xhtml":
		return knowledge.FormatHTML, true
	case ext == ".txt", ext == ".text":
		return knowledge.FormatText, true
	}
	return "", false
}

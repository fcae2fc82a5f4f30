package extract

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/knowledge"
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// readText reads plain text: paragraphs (split at blank lines) on pages
// split at form feeds, as pdftotext and some printers' files have them.
func readText(name string, b []byte) (knowledge.Extracted, error) {
	s, err := utf8Text(name, b)
	if err != nil {
		return knowledge.Extracted{}, err
	}
	ex := knowledge.Extracted{Format: knowledge.FormatText}
	for i, page := range strings.Split(s, "\f") {
		pg := knowledge.Page{Number: i + 1}
		for _, para := range paragraphs(page) {
			pg.Blocks = append(pg.Blocks, knowledge.Block{Text: para})
		}
		ex.Pages = append(ex.Pages, pg)
	}
	return ex, nil
}

// utf8Text is b as a string with Unix line ends and no byte order mark,
// or an apperr.Invalid that says which encoding it found and what to do.
func utf8Text(name string, b []byte) (string, error) {
	switch {
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}), bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		return "", apperr.New(apperr.Invalid, "%s is UTF-16 text. Save it as UTF-8 and add it again.", name)
	case !utf8.Valid(b):
		return "", apperr.New(apperr.Invalid, "%s is not UTF-8 text (it may be Latin-1 or Windows-1252). Save it as UTF-8 and add it again.", name)
	case bytes.IndexByte(b, 0) >= 0:
		return "", apperr.New(apperr.Invalid, "%s holds NUL bytes, so it is not plain text (it may be UTF-16 without a byte order mark, or a binary file). Save it as UTF-8 text and add it again.", name)
	}
	s := string(bytes.TrimPrefix(b, utf8BOM))
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n"), nil
}

// paragraphs are the runs of non-blank lines in s, each trimmed of
// trailing spaces.
func paragraphs(s string) []string {
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, "\n"))
			cur = cur[:0]
		}
	}
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimRight(line, " \t")
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		cur = append(cur, line)
	}
	flush()
	return out
}

package data

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/richardlehane/mscfb"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

// format is how a file's rows are written.
type format int

const (
	formatCSV        format = iota // delimited text with a header row
	formatJSONArray                // [ {...}, {...} ]
	formatJSONStream               // {...}\n{...}: JSON Lines, or objects one after another
	formatWorkbook                 // a zip archive: an Excel workbook (.xlsx), read by xlsx.go
)

// kind is what inspect found out about a file before reading it through.
type kind struct {
	format format
	comma  rune // the CSV separator
	lazy   bool // lenient quotes (TSV has no quoting convention)
	skip   int  // bytes of the UTF-8 byte order mark
}

// headSize is how much of a file inspect sees.
const headSize = 8 << 10

// Explanations reused in several messages.
const (
	saveAsUTF8 = `Save it as UTF-8 (in Excel: Save As, "CSV UTF-8"; in an editor: "Save with encoding UTF-8") and attach it again.`
	attachText = "Attach an Excel workbook (.xlsx), or a CSV, TSV, JSON (an array of objects) or JSON Lines text file."
)

// Magic numbers of the formats read or named by their first bytes.
const (
	zipMagic = "PK\x03\x04"       // a zip archive: .xlsx is one
	oleMagic = "\xD0\xCF\x11\xE0" // an OLE compound file: .xls, .doc, an encrypted .xlsx
)

// saveAsXLSX is the fix for a workbook in a format that is not read.
const saveAsXLSX = `Open it in Excel (or LibreOffice) and save it as "Excel Workbook (.xlsx)", or export each sheet as "CSV UTF-8", and attach that.`

// magic names binary formats people attach by mistake, by their first bytes.
// An OLE file is looked into first (see oleKind): this is the fallback.
var magic = []struct {
	prefix, what, fix string
}{
	{oleMagic, "an old Excel workbook (.xls) or another old Office file", saveAsXLSX},
	{"%PDF", "a PDF document", "Export the table from the program that made it as CSV and attach that."},
	{"\x1F\x8B", "a gzip-compressed file", "Decompress it and attach the file inside."},
	{"PAR1", "a Parquet file", "Convert it to CSV or JSON Lines first."},
	{"SQLite format 3\x00", "an SQLite database", "Export the tables you need as CSV and attach those."},
}

// inspect checks the start of a file (head, with atEOF when that is the
// whole file) for the problems the package doc lists and picks its format.
func inspect(name string, head []byte, atEOF bool) (kind, error) {
	var k kind
	switch {
	case len(head) == 0:
		return k, badFile(name, "the file is empty. Attach a file with a header row and at least one row of data.")
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE, 0, 0}), bytes.HasPrefix(head, []byte{0, 0, 0xFE, 0xFF}):
		return k, badFile(name, "the file is UTF-32 text, and only UTF-8 is read. %s", saveAsUTF8)
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE}), bytes.HasPrefix(head, []byte{0xFE, 0xFF}):
		return k, badFile(name, "the file is UTF-16 text, and only UTF-8 is read. %s", saveAsUTF8)
	case bytes.HasPrefix(head, []byte{0xEF, 0xBB, 0xBF}):
		k.skip = 3
	}
	body := head[k.skip:]
	if k.skip == 0 && bytes.HasPrefix(body, []byte(zipMagic)) {
		k.format = formatWorkbook
		return k, nil
	}
	for _, m := range magic {
		if bytes.HasPrefix(body, []byte(m.prefix)) {
			return k, badFile(name, "this looks like %s, which cannot be attached. %s", m.what, m.fix)
		}
	}
	if err := checkText(name, body); err != nil {
		return k, err
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 && atEOF {
		return k, badFile(name, "the file has nothing but blank space. Attach a file with a header row and at least one row of data.")
	}

	k.format, k.comma = formatCSV, ','
	switch strings.ToLower(filepath.Ext(name)) {
	case ".csv":
		k.comma = sniffComma(body)
		k.lazy = k.comma == '\t'
	case ".tsv", ".tab":
		k.comma, k.lazy = '\t', true
	case ".json":
		k.format = formatJSONArray
		if len(trimmed) > 0 && trimmed[0] == '{' {
			k.format = formatJSONStream // JSON Lines saved as .json; one object is refused later
		}
	case ".jsonl", ".ndjson":
		k.format = formatJSONStream
	default:
		switch {
		case len(trimmed) > 0 && trimmed[0] == '[':
			k.format = formatJSONArray
		case len(trimmed) > 0 && trimmed[0] == '{':
			k.format = formatJSONStream
		default:
			k.comma = sniffComma(body)
			k.lazy = k.comma == '\t'
		}
	}
	return k, nil
}

// checkText refuses a head that is not text: NUL bytes (saying UTF-16 when
// the NULs fall on every other byte) or too many control characters.
func checkText(name string, b []byte) error {
	nul, ctl := 0, 0
	for _, c := range b {
		switch {
		case c == 0:
			nul++
		case c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f', c == 0x7F:
			ctl++
		}
	}
	if nul > 0 && looksUTF16(b) {
		return badFile(name, "the file looks like UTF-16 text (without a byte order mark), and only UTF-8 is read. %s", saveAsUTF8)
	}
	if nul > 0 {
		return badFile(name, "this looks like a binary file, not CSV/JSON: it has NUL bytes near the start. %s", attachText)
	}
	if ctl*10 > len(b) {
		return badFile(name, "this looks like a binary file, not CSV/JSON: it has many control characters near the start. %s", attachText)
	}
	return nil
}

// looksUTF16 reports whether b is mostly ASCII encoded as UTF-16: a NUL at
// nearly every even or every odd offset and almost nowhere else.
func looksUTF16(b []byte) bool {
	if len(b) < 4 {
		return false
	}
	var zero [2]int
	for i, c := range b {
		if c == 0 {
			zero[i%2]++
		}
	}
	half := len(b) / 2
	for p := range 2 {
		if zero[p]*10 >= half*9 && zero[1-p]*10 < half {
			return true
		}
	}
	return false
}

// sniffComma picks the separator of a .csv (or unknown) file from its first
// line: a comma unless there are none and there are tabs or semicolons.
func sniffComma(b []byte) rune {
	line := b
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		line = b[:i]
	}
	commas, tabs, semis := bytes.Count(line, []byte{','}), bytes.Count(line, []byte{'\t'}), bytes.Count(line, []byte{';'})
	switch {
	case tabs > commas && tabs >= semis:
		return '\t'
	case commas == 0 && semis > 0:
		return ';'
	}
	return ','
}

// badFile is the error for a file the user has to fix.
func badFile(name, format string, args ...any) error {
	return apperr.New(apperr.Invalid, "Cannot attach %s: %s", name, fmt.Sprintf(format, args...))
}

// encodingError is a byte sequence that is not UTF-8.
type encodingError struct {
	line int
	b    byte // the first byte that is not UTF-8
}

func (e *encodingError) Error() string {
	return fmt.Sprintf("line %d: byte 0x%02X is not UTF-8", e.line, e.b)
}

// utf8Reader passes bytes through and fails with an *encodingError at the
// first chunk that is not UTF-8. A sequence split across reads is held
// back (only for checking) until its end arrives.
type utf8Reader struct {
	r       io.Reader
	pending []byte // the start of a sequence cut off at the end of the last read
	line    int    // the line the next byte is on
	err     error
}

func newUTF8Reader(r io.Reader) *utf8Reader { return &utf8Reader{r: r, line: 1} }

func (u *utf8Reader) Read(p []byte) (int, error) {
	if u.err != nil {
		return 0, u.err
	}
	n, err := u.r.Read(p)
	if n > 0 {
		if bad := u.check(p[:n]); bad != nil {
			u.err = bad
			return 0, bad
		}
	}
	if err == io.EOF && len(u.pending) > 0 {
		u.err = &encodingError{line: u.line, b: u.pending[0]}
		return 0, u.err
	}
	return n, err
}

// check validates b after the held-back bytes and holds back b's own
// unfinished tail.
func (u *utf8Reader) check(b []byte) error {
	for len(u.pending) > 0 && len(b) > 0 && !utf8.FullRune(u.pending) {
		u.pending = append(u.pending, b[0])
		b = b[1:]
	}
	if len(u.pending) > 0 {
		if !utf8.FullRune(u.pending) {
			return nil // still unfinished; b is used up
		}
		if r, size := utf8.DecodeRune(u.pending); r == utf8.RuneError && size <= 1 {
			return &encodingError{line: u.line, b: u.pending[0]}
		}
		u.pending = u.pending[:0]
	}
	cut := len(b)
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				cut = i
			}
			break
		}
	}
	body := b[:cut]
	if !utf8.Valid(body) {
		for i := 0; i < len(body); {
			r, size := utf8.DecodeRune(body[i:])
			if r == utf8.RuneError && size <= 1 {
				return &encodingError{line: u.line + bytes.Count(body[:i], []byte{'\n'}), b: body[i]}
			}
			i += size
		}
	}
	u.line += bytes.Count(body, []byte{'\n'})
	u.pending = append(u.pending, b[cut:]...)
	return nil
}

// encodingMessage is the user's message for an *encodingError in name.
func encodingMessage(name string, e *encodingError) error {
	return badFile(name, "line %d is not UTF-8 text (it has the byte 0x%02X), so the file is probably Latin-1 or Windows-1252. %s",
		e.line, e.b, saveAsUTF8)
}

// oleKindT is what an OLE compound file can be, as far as attaching goes.
type oleKindT int

const (
	oleOther     oleKindT = iota // .xls, .doc, or a file that cannot be looked into
	oleEncrypted                 // an .xlsx (or another OOXML file) encrypted with a password
)

// oleKind looks into an OLE compound file for the streams of an encrypted
// Office document (ECMA-376: EncryptionInfo and EncryptedPackage).
func oleKind(r io.ReaderAt, size int64) oleKindT {
	cf, err := mscfb.New(io.NewSectionReader(r, 0, size))
	if err != nil {
		return oleOther
	}
	for e, err := cf.Next(); err == nil; e, err = cf.Next() {
		if e.Name == "EncryptedPackage" {
			return oleEncrypted
		}
	}
	return oleOther
}

package data

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// rowReader yields a file's rows as text cells in column order. An empty
// cell (or a JSON null) is a NULL. A row may be shorter than columns():
// JSON keys that first appear in a later object are missing from earlier
// ones.
type rowReader interface {
	next() ([]string, error) // io.EOF after the last row
	columns() []string       // the raw column names seen so far
}

// eachRow hands fn every row of rr with its number (from 1) and returns how
// many there were. Every 4096 rows it stops, before that row, with the
// file's cancelled error if ctx is done; an error from rr or fn stops it
// too.
func eachRow(ctx context.Context, rr rowReader, name string, fn func(n int64, row []string) error) (int64, error) {
	var n int64
	for {
		row, err := rr.next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if n++; n%4096 == 0 && ctx.Err() != nil {
			return n, cancelled(ctx, name)
		}
		if err := fn(n, row); err != nil {
			return n, err
		}
	}
}

// csvRows reads delimited text with a header row.
type csvRows struct {
	name   string
	r      *csv.Reader
	sep    string
	header []string
	row    int
}

func newCSVRows(name string, r io.Reader, k kind) (*csvRows, error) {
	cr := csv.NewReader(r)
	cr.Comma = k.comma
	cr.LazyQuotes = k.lazy
	cr.FieldsPerRecord = -1 // counted here, for a better message
	cr.ReuseRecord = true   // rows are used before the next is read
	c := &csvRows{name: name, r: cr, sep: sepName(k.comma)}
	header, err := cr.Read()
	if err == io.EOF {
		return nil, badFile(name, "the file has no header row. Attach a file with a header row and at least one row of data.")
	}
	if err != nil {
		return nil, c.readError(err)
	}
	for _, h := range header {
		c.header = append(c.header, strings.TrimSpace(h))
	}
	return c, nil
}

func (c *csvRows) columns() []string { return c.header }

func (c *csvRows) next() ([]string, error) {
	for {
		rec, err := c.r.Read()
		if err == io.EOF {
			return nil, io.EOF
		}
		if err != nil {
			return nil, c.readError(err)
		}
		if len(rec) == 1 && len(c.header) > 1 && strings.TrimSpace(rec[0]) == "" {
			continue // a line of spaces
		}
		c.row++
		if len(rec) != len(c.header) {
			line, _ := c.r.FieldPos(0)
			return nil, badFile(c.name, "row %s (line %s) has %d %s, but the header has %d. "+
				"Check that row for a missing or extra %s, or a value containing a %s that is not in double quotes; fix it and attach the file again.",
				commas(int64(c.row)), commas(int64(line)), len(rec), plural(len(rec), "field", "fields"), len(c.header), c.sep, c.sep)
		}
		return rec, nil
	}
}

func (c *csvRows) readError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) && (errors.Is(pe.Err, csv.ErrQuote) || errors.Is(pe.Err, csv.ErrBareQuote)) {
		what := "a quoted value is not closed, or has a stray double quote inside it"
		if errors.Is(pe.Err, csv.ErrBareQuote) {
			what = "a double quote appears inside a value that does not start with one"
		}
		return badFile(c.name, "on line %s, %s. Values that contain a %s, a double quote or a line break must be in double quotes, with each quote inside doubled (\"\"). Fix it and attach the file again.",
			commas(int64(pe.Line)), what, c.sep)
	}
	return readError(c.name, err)
}

func sepName(r rune) string {
	switch r {
	case '\t':
		return "tab"
	case ';':
		return "semicolon"
	}
	return "comma"
}

// jsonRows reads a JSON array of objects, or a stream of objects (JSON
// Lines), one object per row.
type jsonRows struct {
	name   string
	dec    *json.Decoder
	array  bool
	single bool // refuse a stream that holds one object: it is not an array of objects
	lines  locator

	keys  []string
	index map[string]int
	fixed bool // the keys are known (second pass): a new one is an error

	n        int      // objects read
	started  bool     // the array's '[' is read
	firstArr []string // keys of the first object whose values are arrays
}

// locator finds lines in the file for error messages.
type locator interface {
	lineAt(offset int64, forward bool) int
	errorLine(offset int64) int
}

func newJSONRows(name string, r io.Reader, k kind, single bool, keys []string, lines locator) *jsonRows {
	j := &jsonRows{name: name, dec: json.NewDecoder(r), array: k.format == formatJSONArray, single: single, lines: lines, index: map[string]int{}}
	for _, key := range keys {
		j.index[key] = len(j.keys)
		j.keys = append(j.keys, key)
	}
	j.fixed = keys != nil
	return j
}

func (j *jsonRows) columns() []string { return j.keys }

func (j *jsonRows) next() ([]string, error) {
	if j.array {
		return j.nextInArray()
	}
	tok, err := j.dec.Token()
	if err == io.EOF {
		if j.single && j.n == 1 {
			return nil, j.oneObject()
		}
		return nil, io.EOF
	}
	if err != nil {
		return nil, j.syntaxError(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, badFile(j.name, "line %s holds %s, not a JSON object. In JSON Lines each line is one object, like {\"name\": \"Ada\", \"age\": 36}. Fix that line and attach the file again.",
			commas(int64(j.line())), describeToken(tok))
	}
	return j.object()
}

func (j *jsonRows) nextInArray() ([]string, error) {
	if !j.started {
		tok, err := j.dec.Token()
		if err != nil {
			return nil, j.syntaxError(err)
		}
		if d, ok := tok.(json.Delim); !ok || d != '[' {
			return nil, badFile(j.name, "the file holds %s, not an array of objects. Save the rows as [{...}, {...}], or as JSON Lines (.jsonl, one object per line).", describeToken(tok))
		}
		j.started = true
	}
	if !j.dec.More() {
		if _, err := j.dec.Token(); err != nil { // the closing ']'
			return nil, j.syntaxError(err)
		}
		if _, err := j.dec.Token(); err != io.EOF {
			return nil, badFile(j.name, "there is more data after the array's closing ] (line %s). Keep just the one array and attach the file again.", commas(int64(j.line())))
		}
		return nil, io.EOF
	}
	tok, err := j.dec.Token()
	if err != nil {
		return nil, j.syntaxError(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, badFile(j.name, "item %s of the array (line %s) is %s, not an object. Every item must be an object like {\"name\": \"Ada\", \"age\": 36}.",
			commas(int64(j.n+1)), commas(int64(j.line())), describeToken(tok))
	}
	return j.object()
}

// object reads the rest of an object whose '{' was just read.
func (j *jsonRows) object() ([]string, error) {
	row := make([]string, len(j.keys))
	for j.dec.More() {
		tok, err := j.dec.Token()
		if err != nil {
			return nil, j.syntaxError(err)
		}
		key, _ := tok.(string) // the decoder only yields strings in key position
		var raw json.RawMessage
		if err := j.dec.Decode(&raw); err != nil {
			return nil, j.syntaxError(err)
		}
		i, ok := j.index[key]
		if !ok {
			if j.fixed {
				return nil, badFile(j.name, "the file changed while it was being read. Attach it again.")
			}
			i = len(j.keys)
			j.index[key] = i
			j.keys = append(j.keys, key)
		}
		for len(row) <= i {
			row = append(row, "")
		}
		row[i] = cellOf(raw)
		if j.n == 0 && len(raw) > 0 && raw[0] == '[' {
			j.firstArr = append(j.firstArr, key)
		}
	}
	if _, err := j.dec.Token(); err != nil { // the closing '}'
		return nil, j.syntaxError(err)
	}
	j.n++
	return row, nil
}

// oneObject is the error for a .json file that holds a single object.
func (j *jsonRows) oneObject() error {
	hint := ""
	if len(j.firstArr) > 0 {
		hint = fmt.Sprintf(" If the rows are inside it (under %q?), save just that array.", j.firstArr[0])
	}
	return badFile(j.name, "the file holds one JSON object, not an array of objects.%s Save the rows as [{...}, {...}], or as JSON Lines (.jsonl, one object per line), and attach that.", hint)
}

// line is the line of the token just read.
func (j *jsonRows) line() int { return j.lines.lineAt(j.dec.InputOffset(), false) }

func (j *jsonRows) syntaxError(err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		// The decoder stops before the value it could not read.
		return badFile(j.name, "the JSON is not valid on line %s: %s. Fix it and attach the file again.",
			commas(int64(j.lines.errorLine(j.dec.InputOffset()))), se.Error())
	case errors.Is(err, io.ErrUnexpectedEOF), err == io.EOF:
		return badFile(j.name, "the JSON ends in the middle of a value; is the file cut short? Fix it and attach the file again.")
	}
	return readError(j.name, err)
}

// cellOf turns a JSON value into a cell: strings as they are, numbers and
// booleans as written, null as empty, objects and arrays as compact JSON.
func cellOf(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case 'n':
		return ""
	case '"':
		var s string
		json.Unmarshal(raw, &s) // the decoder has checked it
		return s
	case '{', '[':
		var b bytes.Buffer
		if json.Compact(&b, raw) == nil {
			return b.String()
		}
	}
	return string(raw)
}

func describeToken(tok any) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '[' {
			return "an array"
		}
		if v == '{' {
			return "an object"
		}
		return fmt.Sprintf("%q", string(v))
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return "a number"
}

// readError is the message for an error while reading name: the encoding
// error or the *apperr.Error it carries, else a read failure.
func readError(name string, err error) error {
	var ee *encodingError
	if errors.As(err, &ee) {
		return encodingMessage(name, ee)
	}
	var ae *apperr.Error
	if errors.As(err, &ae) {
		return err
	}
	return apperr.Wrap(err, apperr.Unavailable, "Cannot attach %s: reading the file failed. Check that it is still there and readable.", name)
}

// commas formats n with thousands separators.
// commas formats n with thousands separators (12,345).
func commas(n int64) string { return englishNumbers.Sprint(n) }

var englishNumbers = message.NewPrinter(language.English)

package export

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

// Decode reads a JSON document (see Encode) of at most limit bytes,
// checking "format" and "version" as they arrive (Encode writes them
// first), so a file from a newer Agentdeck is refused for its version
// rather than for a shape this build does not know. Its errors are
// *apperr.Error with a message a person can act on: a file that is not an
// Agentdeck export, too large, cut short, damaged (a value of the wrong
// kind is named by its path, turns[3].seq), or cancelled with ctx.
func Decode(ctx context.Context, r io.Reader, limit int64) (Document, error) {
	d := decoder{lr: &limitReader{ctx: ctx, r: r, limit: limit}}
	d.dec = json.NewDecoder(d.lr)
	tok, err := d.dec.Token()
	if err != nil {
		return d.doc, readError(err, d.lr, false)
	}
	if delim, ok := tok.(json.Delim); !ok || delim != '{' {
		return d.doc, errNotExport("")
	}
	for d.dec.More() {
		tok, err := d.dec.Token()
		if err != nil {
			return d.doc, readError(err, d.lr, true)
		}
		key, _ := tok.(string)
		err = d.field(key)
		var ae *apperr.Error
		switch {
		case err == nil:
		case errors.As(err, &ae):
			return d.doc, err
		case errors.As(err, new(*kindError)) && d.haveFormat:
			return d.doc, apperr.Wrap(err, apperr.Invalid, "%s", err.Error())
		case !d.haveFormat && !d.lr.over && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) && !errors.Is(err, errRead):
			// Some other JSON document that does not fit ours.
			return d.doc, errNotExport("")
		default:
			return d.doc, readError(err, d.lr, true)
		}
	}
	if _, err := d.dec.Token(); err != nil { // the closing brace
		return d.doc, readError(err, d.lr, true)
	}
	if !d.haveFormat {
		return d.doc, errNotExport("")
	}
	if !d.haveVersion {
		return d.doc, apperr.New(apperr.Invalid, "This file is damaged: it does not say which export version it is.")
	}
	if _, err := d.dec.Token(); err != io.EOF {
		if d.lr.over {
			return d.doc, readError(err, d.lr, true)
		}
		return d.doc, apperr.New(apperr.Invalid, "This file has more after the session; it is not a single Agentdeck export.")
	}
	return d.doc, nil
}

// decoder is the state of Decode.
type decoder struct {
	dec                     *json.Decoder
	lr                      *limitReader
	doc                     Document
	haveFormat, haveVersion bool
}

// field decodes the value of one top-level key. A value of the wrong kind
// is reported with its path in the file (turns[3].seq), so a person can
// find it.
func (d *decoder) field(key string) error {
	switch key {
	case "format":
		if err := d.decode(key, &d.doc.Format); err != nil {
			return err
		}
		if d.doc.Format != FormatName {
			return errNotExport(d.doc.Format)
		}
		d.haveFormat = true
		return d.checkVersion()
	case "version":
		if err := d.decode(key, &d.doc.Version); err != nil {
			return err
		}
		d.haveVersion = true
		return d.checkVersion()
	case "exported_at":
		return d.decode(key, &d.doc.ExportedAt)
	case "app_version":
		return d.decode(key, &d.doc.AppVersion)
	case "session":
		return d.decode(key, &d.doc.Session)
	case "groups":
		return decodeList(d, key, &d.doc.Groups)
	case "turns":
		return decodeList(d, key, &d.doc.Turns)
	case "images":
		return decodeList(d, key, &d.doc.Images)
	case "documents":
		return decodeList(d, key, &d.doc.Documents)
	case "captures":
		return decodeList(d, key, &d.doc.Captures)
	}
	return d.dec.Decode(new(json.RawMessage))
}

// decode reads the next value into v, naming key in a type error.
func (d *decoder) decode(key string, v any) error {
	var raw json.RawMessage
	if err := d.dec.Decode(&raw); err != nil {
		return err
	}
	return unmarshalAt(key, raw, v)
}

// decodeList reads a list one element at a time, so a type error names the
// element (turns[3].seq) and only one element is in memory twice.
func decodeList[T any](d *decoder, key string, out *[]T) error {
	tok, err := d.dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil // null: no elements
	}
	if delim, ok := tok.(json.Delim); !ok || delim != '[' {
		return wrongKind(key, jsonKindOfToken(tok), "a list")
	}
	for i := 0; d.dec.More(); i++ {
		var raw json.RawMessage
		if err := d.dec.Decode(&raw); err != nil {
			return err
		}
		var v T
		if err := unmarshalAt(fmt.Sprintf("%s[%d]", key, i), raw, &v); err != nil {
			return err
		}
		*out = append(*out, v)
	}
	_, err = d.dec.Token() // ]
	return err
}

// unmarshalAt decodes raw, the value at path, into v; a value of the wrong
// kind anywhere inside becomes an error naming its full path.
func unmarshalAt(path string, raw json.RawMessage, v any) error {
	err := json.Unmarshal(raw, v)
	var typ *json.UnmarshalTypeError
	if !errors.As(err, &typ) {
		return err
	}
	at, got := locateKind(raw, strings.Split(typ.Field, "."), typ.Value)
	if typ.Field == "" {
		at, got = "", jsonKindOf(raw)
	}
	return wrongKind(path+at, got, goKindWord(typ))
}

// locateKind follows field names (with every array index on the way) to
// the first value of JSON kind want, and returns its path below raw.
func locateKind(raw json.RawMessage, fields []string, want string) (string, string) {
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) == nil && len(fields) > 0 && fields[0] != "" {
		for i, el := range arr {
			if at, got := locateKind(el, fields, want); got != "" {
				return fmt.Sprintf("[%d]%s", i, at), got
			}
		}
		return "", ""
	}
	if len(fields) == 0 || fields[0] == "" {
		if k := jsonKindOf(raw); k == want || want == "" {
			return "", k
		}
		return "", ""
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return "", ""
	}
	el, ok := obj[fields[0]]
	if !ok {
		return "", ""
	}
	at, got := locateKind(el, fields[1:], want)
	if got == "" {
		return "", ""
	}
	return "." + fields[0] + at, got
}

// jsonKindOf is the JSON kind of a value, as encoding/json names it.
func jsonKindOf(raw json.RawMessage) string {
	switch b := bytes.TrimSpace(raw); {
	case len(b) == 0:
		return ""
	case b[0] == '{':
		return "object"
	case b[0] == '[':
		return "array"
	case b[0] == '"':
		return "string"
	case b[0] == 't' || b[0] == 'f':
		return "bool"
	case b[0] == 'n':
		return "null"
	}
	return "number"
}

func jsonKindOfToken(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return "object"
		}
		return "array"
	case string:
		return "string"
	case bool:
		return "bool"
	case float64, json.Number:
		return "number"
	}
	return "null"
}

// kindError is a value of the wrong kind at a path of the file. In a file
// that is not known to be ours yet, it means the file is someone else's.
type kindError struct{ path, got, want string }

func (e *kindError) Error() string {
	words := map[string]string{"object": "an object", "array": "a list", "string": "text", "bool": "true or false", "number": "a number", "null": "null"}
	g := words[e.got]
	if g == "" {
		g = "a value"
	}
	return fmt.Sprintf("This file is damaged: %s holds %s where %s belongs. Nothing was imported.", e.path, g, e.want)
}

func wrongKind(path, got, want string) error { return &kindError{path, got, want} }

// goKindWord says what kind of value the Go field wanted.
func goKindWord(typ *json.UnmarshalTypeError) string {
	if typ.Type == nil {
		return "another kind of value"
	}
	switch typ.Type.Kind() {
	case reflect.String:
		return "text"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		if typ.Type == reflect.TypeOf(time.Time{}) {
			return "a time as text"
		}
		return "an object"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "another kind of value"
}

// checkVersion refuses a version this build cannot read, once the file is
// known to be ours: in anyone else's file, "version" means something else.
func (d *decoder) checkVersion() error {
	if d.haveFormat && d.haveVersion {
		return checkVersionNumber(d.doc.Version)
	}
	return nil
}

func checkVersionNumber(v int) error {
	switch {
	case v > Version:
		return apperr.New(apperr.Unavailable, "This file was exported by a newer Agentdeck (format %d); update Agentdeck to import it.", v)
	case v < 1:
		return apperr.New(apperr.Invalid, "This file is damaged: its export version %d is not valid.", v)
	}
	return nil
}

func errNotExport(format string) error {
	if format != "" {
		return apperr.New(apperr.Invalid, "This file is not an Agentdeck session export (its format is %q). Agentdeck imports the .json files it exports.", format)
	}
	return apperr.New(apperr.Invalid, "This file is not an Agentdeck session export. Agentdeck imports the .json files it exports; Markdown and JSONL exports cannot be imported.")
}

// readError explains why the document could not be read; started
// says whether any JSON had been read.
func readError(err error, lr *limitReader, started bool) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case lr.over:
		return apperr.Wrap(err, apperr.Invalid, "This file is larger than %s, the most Agentdeck imports.", sizeText(lr.limit))
	case !started && errors.Is(err, io.EOF):
		return apperr.Wrap(err, apperr.Invalid, "This file is empty.")
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return apperr.Wrap(err, apperr.Invalid, "This file ends too early: it was cut short or not completely written. Export the session again.")
	case errors.As(err, &syntax) && tooDeep(syntax):
		// Valid or not further on, the file nests deeper than any export.
		return apperr.Wrap(err, apperr.Invalid, "This file cannot be imported: its JSON is nested too deeply (more than %d levels, at byte %d). Agentdeck's exports never nest that deep, so the file was changed after it was exported or is not an Agentdeck export.", jsonMaxDepth, syntax.Offset)
	case errors.As(err, &syntax) && !started:
		return apperr.Wrap(err, apperr.Invalid, "This file is not JSON. Agentdeck imports the .json files it exports; Markdown and JSONL exports cannot be imported.")
	case errors.As(err, &syntax):
		return apperr.Wrap(err, apperr.Invalid, "This file is damaged: it stops being valid JSON at byte %d.", syntax.Offset)
	case errors.As(err, &typ):
		return apperr.Wrap(err, apperr.Invalid, "This file is damaged: %q holds the wrong kind of value.", typ.Field)
	}
	var ae *apperr.Error
	if errors.As(err, &ae) {
		return err
	}
	if errors.Is(err, errRead) {
		return apperr.Wrap(err, apperr.Unavailable, "Reading the file failed.")
	}
	return apperr.Wrap(err, apperr.Invalid, "This file is damaged and cannot be imported.")
}

// jsonMaxDepth is how deep encoding/json reads nested arrays and objects.
const jsonMaxDepth = 10000

// tooDeep says whether a syntax error is encoding/json's refusal to read
// deeper than jsonMaxDepth: not invalid JSON, only too deep.
func tooDeep(err *json.SyntaxError) bool {
	return strings.HasSuffix(err.Error(), "exceeded max depth")
}

func sizeText(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// errRead marks a failure of the reader itself (not of its content).
var errRead = errors.New("reading the import")

// limitReader stops with an error once more than limit bytes arrive,
// or once ctx is done: decoding a large file takes a while.
type limitReader struct {
	ctx   context.Context
	r     io.Reader
	limit int64
	n     int64
	over  bool
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.over {
		return 0, errors.New("the file is too large")
	}
	if err := l.ctx.Err(); err != nil {
		return 0, err
	}
	if room := l.limit + 1 - l.n; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	if l.n > l.limit {
		l.over = true
		return n - int(l.n-l.limit), errors.New("the file is too large")
	}
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%w: %w", errRead, err)
	}
	return n, err
}

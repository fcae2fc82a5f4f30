package export

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"strconv"
	"time"
	"unicode/utf8"
)

// encoder appends JSON to a buffer that it hands to w whenever it passes
// flushAt, so writing a document of any size holds about that much. Raw
// JSON values are copied as they are: never parsed, compacted or
// re-indented. err is the first error of w; after it nothing more is
// written.
type encoder struct {
	w   io.Writer
	b   []byte
	err error
	// msg encodes the values written through encoding/json (messages),
	// into mb.
	msg *json.Encoder
	mb  bytes.Buffer
}

const flushAt = 64 << 10

func newEncoder(w io.Writer) *encoder {
	e := &encoder{w: w, b: make([]byte, 0, flushAt+4<<10)}
	e.msg = json.NewEncoder(&e.mb)
	e.msg.SetEscapeHTML(false)
	return e
}

// flushed hands the buffer to w once it is full, and returns the error
// of w so far.
func (e *encoder) flushed() error {
	if len(e.b) >= flushAt {
		e.flush()
	}
	return e.err
}

func (e *encoder) flush() {
	if e.err == nil && len(e.b) > 0 {
		_, e.err = e.w.Write(e.b)
	}
	e.b = e.b[:0]
}

// value writes v as encoding/json does, on one line, HTML characters as
// they are: for the values of the document that are not its own (messages
// are llm's).
func (e *encoder) value(v any) {
	e.mb.Reset()
	if err := e.msg.Encode(v); err != nil {
		e.err = err
		return
	}
	e.b = append(e.b, bytes.TrimSuffix(e.mb.Bytes(), []byte("\n"))...)
}

// base64 writes data as a JSON string of its standard base64, as
// encoding/json writes []byte, a piece at a time so that a large image
// is not held twice.
func (e *encoder) base64(data []byte) {
	const piece = 48 << 10 // a multiple of 3: no padding inside
	e.b = append(e.b, '"')
	for len(data) > 0 && e.err == nil {
		n := min(piece, len(data))
		e.b = base64.StdEncoding.AppendEncode(e.b, data[:n])
		data = data[n:]
		_ = e.flushed()
	}
	e.b = append(e.b, '"')
}

// object writes the fields of a JSON object. An indented one has each
// field on its own line at indent and its closing brace two spaces less;
// with no indent the object is on one line.
type object struct {
	e      *encoder
	indent string
	n      int
}

func (e *encoder) object(indent string) object {
	e.b = append(e.b, '{')
	return object{e: e, indent: indent}
}

func (o *object) key(name string) {
	b := o.e.b
	if o.n > 0 {
		b = append(b, ',')
	}
	o.n++
	if o.indent != "" {
		b = append(b, '\n')
		b = append(b, o.indent...)
	}
	b = append(b, '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	if o.indent != "" {
		b = append(b, ' ')
	}
	o.e.b = b
}

func (o *object) str(name, v string) {
	o.key(name)
	o.e.b = appendString(o.e.b, v)
}

// strOmit writes a field tagged omitempty.
func (o *object) strOmit(name, v string) {
	if v != "" {
		o.str(name, v)
	}
}

func (o *object) int(name string, v int64) {
	o.key(name)
	o.e.b = strconv.AppendInt(o.e.b, v, 10)
}

func (o *object) bool(name string, v bool) {
	o.key(name)
	o.e.b = strconv.AppendBool(o.e.b, v)
}

// time writes t as time.Time's MarshalJSON does (RFC 3339 with
// nanoseconds, in its own zone).
func (o *object) time(name string, t time.Time) {
	o.key(name)
	o.e.b = append(t.AppendFormat(append(o.e.b, '"'), time.RFC3339Nano), '"')
}

// float writes v as encoding/json does (rare enough to borrow it).
func (o *object) float(name string, v float64) {
	o.key(name)
	b, err := json.Marshal(v)
	if err != nil { // NaN or infinite: no number JSON can hold
		b = []byte("null")
	}
	o.e.b = append(o.e.b, b...)
}

func (o *object) null(name string) {
	o.key(name)
	o.e.b = append(o.e.b, "null"...)
}

// raw writes a JSON value as it is; an empty one (a nil RawMessage) is
// null, as encoding/json writes it.
func (o *object) raw(name string, v json.RawMessage) {
	o.key(name)
	if len(v) == 0 {
		v = json.RawMessage("null")
	}
	o.e.b = append(o.e.b, v...)
}

func (o *object) end() {
	if o.indent != "" && o.n > 0 {
		o.e.b = append(o.e.b, '\n')
		o.e.b = append(o.e.b, o.indent[:len(o.indent)-2]...)
	}
	o.e.b = append(o.e.b, '}')
}

// list writes the elements of a JSON array, each on its own line at
// indent, the closing bracket two spaces less; an empty one is [].
type list struct {
	e      *encoder
	indent string
	n      int
}

func (o *object) list(name string) list {
	o.key(name)
	o.e.b = append(o.e.b, '[')
	return list{e: o.e, indent: o.indent + "  "}
}

// next starts an element.
func (l *list) next() {
	if l.n > 0 {
		l.e.b = append(l.e.b, ',')
	}
	l.n++
	l.e.b = append(l.e.b, '\n')
	l.e.b = append(l.e.b, l.indent...)
}

func (l *list) end() {
	if l.n > 0 {
		l.e.b = append(l.e.b, '\n')
		l.e.b = append(l.e.b, l.indent[:len(l.indent)-2]...)
	}
	l.e.b = append(l.e.b, ']')
}

// appendString appends s as a JSON string as encoding/json writes it with
// HTML escaping off: invalid UTF-8 becomes U+FFFD, and U+2028 and U+2029
// are escaped, since JavaScript reads them as line ends.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

package openai

import "bytes"

// Nearly every chunk of a long answer is the same small thing, a delta of
// plain text:
//
//	{"id":…,"choices":[{"index":0,"delta":{"content":" tok"},"finish_reason":null}]}
//
// and decoding it was the largest single cost of a streamed token: about
// a microsecond through decodeWire's reflection, most of a token's time
// in the llm client. decodeChunk reads such a chunk in one pass over its
// bytes, and takes that way only where it understands everything it
// reads: a strict subset of JSON (no escapes, no bytes beyond ASCII, no
// nesting deeper than plainDepth), the fields it knows each a plain
// string or null, every other field skipped as encoding/json skips it.
// Anything else (a tool call, usage, an error, a name in another case,
// text with escapes or beyond ASCII, a repeated choices, malformed input,
// trailing bytes) goes whole to decodeWire, which reads it as
// encoding/json does. TestDecodeWireReadsWhatEncodingJSONReads and
// FuzzDecodeChunk hold the two together.

// decodeChunk decodes one chunk into w, which must be zero.
func decodeChunk(b []byte, w *wireChunk) error {
	if plainChunk(b, w) {
		return nil
	}
	*w = wireChunk{}
	return decodeWire(b, w)
}

// The names each object of a plain chunk may hold: a name equal to one of
// them in another case, or with other '_' and '-' (looseName), sends the
// chunk to decodeWire, which matches names so.
var (
	chunkNames  = []string{"choices", "usage", "error"}
	choiceNames = []string{"delta", "message", "finish_reason"}
	deltaNames  = []string{"content", "reasoning_content", "reasoning", "reasoning_details", "tool_calls"}
)

// looseName reports whether decodeWire could match name to k though it is
// not k: its case-insensitive matching also ignores '_' and '-'
// ("finishReason", "FINISH-REASON"). Matching more than it does is safe:
// such a chunk only takes decodeWire's way. So a name with any byte
// outside ASCII (which Unicode case folding might match, "ſ" to "s")
// counts as a match, and the rest is compared without allocating: every
// field name of every chunk comes here (it was a sixth of the token
// path's CPU time when it mapped both names into new slices).
func looseName(name []byte, k string) bool {
	i, j := 0, 0
	for {
		for i < len(name) && (name[i] == '_' || name[i] == '-') {
			i++
		}
		for j < len(k) && (k[j] == '_' || k[j] == '-') {
			j++
		}
		if i == len(name) || j == len(k) {
			return i == len(name) && j == len(k)
		}
		a, b := name[i], k[j]
		if a >= 0x80 {
			return true
		}
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
		i, j = i+1, j+1
	}
}

// plainDepth bounds the nesting plainScan skips: deeper is not plain.
const plainDepth = 16

// plainChunk reads b into w if it is a plain chunk, and reports whether it
// was; when it was not, w holds whatever was read before it knew.
func plainChunk(b []byte, w *wireChunk) bool {
	s := plainScan{b: b}
	seen := false
	ok := s.object(chunkNames, func(name string) bool {
		if name != "choices" { // usage, error
			return s.null()
		}
		if seen { // encoding/json would merge the two: let it
			return false
		}
		seen = true
		return s.choices(w)
	})
	s.space()
	return ok && s.i == len(s.b)
}

// plainScan reads the subset of JSON a plain chunk is written in.
type plainScan struct {
	b []byte
	i int
}

func (s *plainScan) choices(w *wireChunk) bool {
	if !s.next('[') {
		return false
	}
	w.Choices = make([]wireChoice, 0, 1)
	if s.next(']') {
		return true
	}
	for {
		var ch wireChoice
		if !s.choice(&ch) {
			return false
		}
		w.Choices = append(w.Choices, ch)
		if !s.next(',') {
			return s.next(']')
		}
	}
}

func (s *plainScan) choice(ch *wireChoice) bool {
	return s.object(choiceNames, func(name string) bool {
		switch name {
		case "delta":
			return s.delta(&ch.Delta)
		case "finish_reason":
			return s.text(&ch.FinishReason)
		default: // message
			return s.null()
		}
	})
}

func (s *plainScan) delta(d *wireDelta) bool {
	return s.object(deltaNames, func(name string) bool {
		switch name {
		case "content":
			return s.text(&d.Content)
		case "reasoning_content":
			return s.text(&d.ReasoningContent)
		case "reasoning":
			return s.text(&d.Reasoning)
		case "tool_calls":
			return s.null()
		default: // reasoning_details: a RawMessage keeps even a null
			return false
		}
	})
}

// object reads an object, calling field with each name among known, its
// value next to read, and skipping the value of any other name.
func (s *plainScan) object(known []string, field func(name string) bool) bool {
	if !s.next('{') {
		return false
	}
	if s.next('}') {
		return true
	}
	for {
		name, ok := s.str()
		if !ok || !s.next(':') {
			return false
		}
		match := ""
		for _, k := range known {
			if string(name) == k {
				match = k
			} else if looseName(name, k) {
				return false
			}
		}
		if match != "" {
			ok = field(match)
		} else {
			ok = s.skip(0)
		}
		if !ok {
			return false
		}
		if !s.next(',') {
			return s.next('}')
		}
	}
}

// text reads a plain string into dst; null leaves dst as it is, as
// encoding/json does.
func (s *plainScan) text(dst *string) bool {
	if s.space(); s.i < len(s.b) && s.b[s.i] == 'n' {
		return s.word("null")
	}
	v, ok := s.str()
	if ok {
		*dst = string(v)
	}
	return ok
}

func (s *plainScan) null() bool {
	s.space()
	return s.word("null")
}

// skip reads any value of the subset.
func (s *plainScan) skip(depth int) bool {
	if s.space(); s.i >= len(s.b) || depth > plainDepth {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		_, ok := s.str()
		return ok
	case c == '{':
		s.i++
		if s.next('}') {
			return true
		}
		for {
			if _, ok := s.str(); !ok || !s.next(':') || !s.skip(depth+1) {
				return false
			}
			if !s.next(',') {
				return s.next('}')
			}
		}
	case c == '[':
		s.i++
		if s.next(']') {
			return true
		}
		for {
			if !s.skip(depth + 1) {
				return false
			}
			if !s.next(',') {
				return s.next(']')
			}
		}
	case c == 't':
		return s.word("true")
	case c == 'f':
		return s.word("false")
	case c == 'n':
		return s.word("null")
	case c == '-' || isDigit(c):
		return s.number()
	}
	return false
}

// str reads a string of printable ASCII with no escapes and returns what
// is between its quotes.
func (s *plainScan) str() ([]byte, bool) {
	if s.space(); s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false
	}
	for j := s.i + 1; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			v := s.b[s.i+1 : j]
			s.i = j + 1
			return v, true
		case c < 0x20 || c == '\\' || c >= 0x80:
			return nil, false
		}
	}
	return nil, false
}

// number reads a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *plainScan) number() bool {
	b, i := s.b, s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	s.i = i
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// word reads the literal w.
func (s *plainScan) word(w string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(w)) {
		return false
	}
	s.i += len(w)
	return true
}

// next reads the delimiter c, after any white space.
func (s *plainScan) next(c byte) bool {
	if s.space(); s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// space skips JSON's white space.
func (s *plainScan) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

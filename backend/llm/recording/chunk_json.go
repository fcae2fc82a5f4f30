package recording

import (
	"encoding/json"
	"strconv"
	"strings"
)

// MarshalJSON writes the common case, a text delta, without reflection:
// a long answer has tens of thousands of them and recording must stay cheap.
func (rc RecordedChunk) MarshalJSON() ([]byte, error) {
	return rc.appendJSON(make([]byte, 0, 48+len(rc.Chunk.Content)+len(rc.Chunk.Reasoning)))
}

// appendJSON appends the chunk's JSON to b.
func (rc RecordedChunk) appendJSON(b []byte) ([]byte, error) {
	c := rc.Chunk
	if len(c.ToolCalls) > 0 || c.Usage != nil || len(c.ReasoningDetails) > 0 {
		type plain RecordedChunk // no MarshalJSON: avoids recursion
		enc, err := marshalNoEscape(plain(rc))
		return append(b, enc...), err
	}
	b = append(b, `{"at_ns":`...)
	b = strconv.AppendInt(b, int64(rc.At), 10)
	b = append(b, `,"chunk":{`...)
	sep := false
	field := func(name, v string) {
		if v == "" {
			return
		}
		if sep {
			b = append(b, ',')
		}
		sep = true
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, `":`...)
		b = appendJSONString(b, v)
	}
	field("content", c.Content)
	field("reasoning", c.Reasoning)
	field("finish_reason", c.FinishReason)
	return append(b, "}}"...), nil
}

// ChunksJSON is the JSON of a recording's chunks, given in blocks in
// order ("[]" for none), as json.Marshal writes the chunks of one slice.
// It is written into one buffer of about its size and returned as a
// string without a copy: json.Marshal would check and copy each chunk's
// JSON again, which for a long answer's tens of thousands of chunks cost
// more than writing them.
func ChunksJSON(blocks ...[]RecordedChunk) (string, error) {
	n := 2
	for _, blk := range blocks {
		for i := range blk {
			n += 48 + len(blk[i].Chunk.Content) + len(blk[i].Chunk.Reasoning)
		}
	}
	b := strings.Builder{}
	b.Grow(n)
	b.WriteByte('[')
	var enc []byte
	var err error
	first := true
	for _, blk := range blocks {
		for i := range blk {
			if !first {
				b.WriteByte(',')
			}
			first = false
			if enc, err = blk[i].appendJSON(enc[:0]); err != nil {
				return "", err
			}
			b.Write(enc)
		}
	}
	b.WriteByte(']')
	return b.String(), nil
}

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			enc, _ := marshalNoEscape(s)
			return append(b, enc...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// marshalNoEscape is json.Marshal without HTML escaping, so recorded
// prompts stay readable.
func marshalNoEscape(v any) ([]byte, error) {
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(strings.TrimSuffix(buf.String(), "\n")), nil
}

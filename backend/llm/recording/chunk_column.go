package recording

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/vlq"
)

// A recording's chunks are stored in one of two forms. The first is the
// JSON array ChunksJSON writes, one object a chunk with its time and its
// text: a 50,000-token answer took about 50 bytes a chunk beside its
// text. The second, written since issue 48, keeps each text once:
//
//	{"v":2, "at": "<each chunk's time in ns after the one before>",
//	 "content": "<every text chunk's content, one after another>", "clen": "<each chunk's content length>",
//	 "reasoning": "...", "rlen": "...", (only when some chunk has reasoning)
//	 "other": {"<index>": <the chunk's JSON>, ...}}
//
// with the lists of numbers in VLQ (package vlq). A text chunk has only
// content and reasoning; any other chunk (a finish reason, tool calls,
// usage, reasoning_details) is kept whole under "other" by its index, and
// its lengths are 0. DecodeChunks reads either form to the same chunks,
// and ChunksJSON of them gives the first form's bytes again, which is what
// an export holds.

// columnPrefix starts a chunks column in the second form.
const columnPrefix = `{"v":2,`

// chunkColumn is the second form.
type chunkColumn struct {
	At        string                     `json:"at"`
	Content   string                     `json:"content"`
	CLen      string                     `json:"clen"`
	Reasoning string                     `json:"reasoning"`
	RLen      string                     `json:"rlen"`
	Other     map[string]json.RawMessage `json:"other"`
}

// textChunk reports whether c is kept in the second form's texts.
func textChunk(c *RecordedChunk) bool {
	k := &c.Chunk
	return len(k.ToolCalls) == 0 && k.Usage == nil && len(k.ReasoningDetails) == 0 && k.FinishReason == ""
}

// ChunksColumn is the stored form of a recording's chunks, given in
// blocks in order: the second form, or "[]" for none (which keeps an
// empty list apart from a missing one, "null").
func ChunksColumn(blocks ...[]RecordedChunk) (string, error) {
	count := 0
	for _, blk := range blocks {
		count += len(blk)
	}
	if count == 0 {
		return "[]", nil
	}
	n, reasoning := len(columnPrefix)+64, false
	for _, blk := range blocks {
		for i := range blk {
			n += 8 + len(blk[i].Chunk.Content) + len(blk[i].Chunk.Reasoning)
			reasoning = reasoning || blk[i].Chunk.Reasoning != ""
		}
	}
	var b strings.Builder
	b.Grow(n)
	num := make([]byte, 0, 16)
	b.WriteString(columnPrefix + `"at":"`)
	var prev int64
	each(blocks, func(_ int, c *RecordedChunk) {
		num = vlq.Append(num[:0], int64(c.At)-prev)
		b.Write(num)
		prev = int64(c.At)
	})
	texts := func(name, lens string, text func(*RecordedChunk) string) {
		b.WriteString(`","` + lens + `":"`)
		each(blocks, func(_ int, c *RecordedChunk) {
			l := 0
			if textChunk(c) {
				l = len(text(c))
			}
			num = vlq.Append(num[:0], int64(l))
			b.Write(num)
		})
		b.WriteString(`","` + name + `":"`)
		each(blocks, func(_ int, c *RecordedChunk) {
			if textChunk(c) {
				appendStringBody(&b, text(c))
			}
		})
	}
	texts("content", "clen", func(c *RecordedChunk) string { return c.Chunk.Content })
	if reasoning {
		texts("reasoning", "rlen", func(c *RecordedChunk) string { return c.Chunk.Reasoning })
	}
	b.WriteString(`","other":{`)
	sep := false
	var err error
	var enc []byte
	each(blocks, func(i int, c *RecordedChunk) {
		if textChunk(c) || err != nil {
			return
		}
		if sep {
			b.WriteByte(',')
		}
		sep = true
		b.WriteString(`"` + strconv.Itoa(i) + `":`)
		enc, err = c.appendJSON(enc[:0])
		b.Write(enc)
	})
	b.WriteString("}}")
	return b.String(), err
}

// each calls fn with every chunk of blocks and its index.
func each(blocks [][]RecordedChunk, fn func(int, *RecordedChunk)) {
	i := 0
	for _, blk := range blocks {
		for j := range blk {
			fn(i, &blk[j])
			i++
		}
	}
}

// appendStringBody writes s as the inside of a JSON string.
func appendStringBody(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x7f {
			enc, _ := json.Marshal(s)
			b.Write(enc[1 : len(enc)-1])
			return
		}
	}
	b.WriteString(s)
}

// DecodeChunks reads a stored chunks column of either form; "null" and ""
// are no chunks.
func DecodeChunks(col string) ([]RecordedChunk, error) {
	if !strings.HasPrefix(col, columnPrefix) {
		var out []RecordedChunk
		if col == "" {
			return nil, nil
		}
		err := json.Unmarshal([]byte(col), &out)
		return out, err
	}
	var c chunkColumn
	if err := json.Unmarshal([]byte(col), &c); err != nil {
		return nil, err
	}
	at, clen, rlen := vlq.NewReader(c.At), vlq.NewReader(c.CLen), vlq.NewReader(c.RLen)
	var out []RecordedChunk
	var t int64
	coff, roff := 0, 0
	take := func(r *vlq.Reader, text string, off *int) (string, error) {
		if c.RLen == "" && r == rlen {
			return "", nil
		}
		n, err := r.Next()
		if err != nil || n < 0 || int64(*off)+n > int64(len(text)) {
			return "", fmt.Errorf("the recorded chunk %d is damaged", len(out))
		}
		s := text[*off : *off+int(n)]
		*off += int(n)
		return s, nil
	}
	for at.More() {
		step, err := at.Next()
		if err != nil {
			return nil, fmt.Errorf("the time of recorded chunk %d is damaged", len(out))
		}
		t += step
		content, err := take(clen, c.Content, &coff)
		if err != nil {
			return nil, err
		}
		reasoning, err := take(rlen, c.Reasoning, &roff)
		if err != nil {
			return nil, err
		}
		rc := RecordedChunk{At: time.Duration(t)}
		if raw, ok := c.Other[strconv.Itoa(len(out))]; ok {
			if err := json.Unmarshal(raw, &rc); err != nil {
				return nil, fmt.Errorf("recorded chunk %d does not read: %w", len(out), err)
			}
		} else {
			rc.Chunk.Content, rc.Chunk.Reasoning = content, reasoning
		}
		out = append(out, rc)
	}
	if clen.More() || rlen.More() || coff != len(c.Content) || roff != len(c.Reasoning) || len(c.Other) > len(out) {
		return nil, fmt.Errorf("the recorded chunks hold more than their %d chunks", len(out))
	}
	return out, nil
}

// ChunksFirstForm is a stored chunks column in the first form, the JSON
// array an export carries: a column in the second form is decoded and
// written again, one in the first is returned as it is.
func ChunksFirstForm(col string) (string, error) {
	if !strings.HasPrefix(col, columnPrefix) {
		return col, nil
	}
	chunks, err := DecodeChunks(col)
	if err != nil {
		return "", err
	}
	return ChunksJSON(chunks)
}

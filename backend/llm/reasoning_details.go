package llm

import (
	"bytes"
	"encoding/json"
)

// ReasoningDetails merges the reasoning_details fragments of a stream
// into the blocks a provider wants back. OpenRouter streams each block in
// pieces that share its type and index: the text (or summary, or
// encrypted data) arrives a few characters at a time, the signature and
// the format once, usually in the last piece. Pieces of one block are
// joined: their text fields concatenated, every other field taken from the
// last piece that sent it. Fields we do not know are kept as they came.
type ReasoningDetails struct {
	blocks []detailBlock
	// bad holds fragments that were not an array of objects: kept as
	// they came, appended after the merged blocks.
	bad []json.RawMessage
}

type detailBlock struct {
	key    string // type and index: which block a fragment continues
	fields map[string]json.RawMessage
	order  []string
	text   map[string]*bytes.Buffer // the joined text fields
}

// detailTextFields are the fields whose pieces are joined.
var detailTextFields = map[string]bool{"text": true, "summary": true, "data": true}

// Add merges one delta's reasoning_details array.
func (d *ReasoningDetails) Add(raw json.RawMessage) {
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		d.bad = append(d.bad, append(json.RawMessage(nil), raw...))
		return
	}
	for _, it := range items {
		key := string(it["type"]) + "\x00" + string(it["index"]) + "\x00" + string(it["id"])
		b := d.block(key)
		for k, v := range it {
			if detailTextFields[k] {
				var s string
				if json.Unmarshal(v, &s) == nil {
					if b.text[k] == nil {
						b.text[k] = &bytes.Buffer{}
						b.order = appendNew(b.order, k)
					}
					b.text[k].WriteString(s)
					continue
				}
			}
			if string(v) == "null" {
				if _, ok := b.fields[k]; ok {
					continue // a later null does not erase a value
				}
			}
			b.fields[k] = v
			b.order = appendNew(b.order, k)
		}
	}
}

func (d *ReasoningDetails) block(key string) *detailBlock {
	// A fragment continues the newest block with its key: a block of the
	// same type and index after another one is a new block only if the
	// provider says so with an id.
	for i := len(d.blocks) - 1; i >= 0; i-- {
		if d.blocks[i].key == key {
			return &d.blocks[i]
		}
	}
	d.blocks = append(d.blocks, detailBlock{key: key, fields: map[string]json.RawMessage{}, text: map[string]*bytes.Buffer{}})
	return &d.blocks[len(d.blocks)-1]
}

func appendNew(order []string, k string) []string {
	for _, o := range order {
		if o == k {
			return order
		}
	}
	return append(order, k)
}

// Merged returns the blocks as one JSON array, fields in the order they
// first came, or nil when there were none.
func (d *ReasoningDetails) Merged() json.RawMessage {
	if len(d.blocks) == 0 && len(d.bad) == 0 {
		return nil
	}
	var out bytes.Buffer
	out.WriteByte('[')
	n := 0
	sep := func() {
		if n > 0 {
			out.WriteByte(',')
		}
		n++
	}
	for _, b := range d.blocks {
		sep()
		out.WriteByte('{')
		for i, k := range b.order {
			if i > 0 {
				out.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			out.Write(kb)
			out.WriteByte(':')
			if t, ok := b.text[k]; ok {
				vb, _ := json.Marshal(t.String())
				out.Write(vb)
			} else {
				out.Write(b.fields[k])
			}
		}
		out.WriteByte('}')
	}
	for _, raw := range d.bad {
		// Not an array of objects: its items, or itself, kept as sent.
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) == nil {
			for _, it := range items {
				sep()
				out.Write(it)
			}
			continue
		}
		sep()
		out.Write(raw)
	}
	out.WriteByte(']')
	return out.Bytes()
}

package recording

import (
	"encoding/json"
	"strings"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// A recording's response holds the message the call assembled, whose
// content is its chunks' content one after another: the answer a second
// time. So when that is so, the response is stored without it, after the
// prefix "=chunks", and reads back with the chunks' content put back
// (issue 48). ResponseColumn checks at write that the stored form reads
// back to the very bytes json.Marshal gives of the response, and stores
// the response whole otherwise; an imported response is stored as it came.

// responsePrefix starts a response stored without its content.
const responsePrefix = "=chunks"

// chunksContent is the content of chunks, one after another.
func chunksContent(chunks []RecordedChunk) string {
	n := 0
	for i := range chunks {
		n += len(chunks[i].Chunk.Content)
	}
	var b strings.Builder
	b.Grow(n)
	for i := range chunks {
		b.WriteString(chunks[i].Chunk.Content)
	}
	return b.String()
}

// ResponseColumn is the stored form of resp, the response of a call whose
// chunks are chunks.
func ResponseColumn(resp llm.Response, chunks []RecordedChunk) (string, error) {
	whole, err := json.Marshal(resp)
	if err != nil {
		return "", err
	}
	content := resp.Message.Content
	if content == "" || content != chunksContent(chunks) {
		return string(whole), nil
	}
	bare := resp
	bare.Message.Content = ""
	enc, err := json.Marshal(bare)
	if err != nil {
		return "", err
	}
	col := responsePrefix + string(enc)
	if again, err := ResponseFirstForm(col, chunks); err != nil || again != string(whole) {
		return string(whole), nil // it would not read back as it was: keep it whole
	}
	return col, nil
}

// DecodeResponse reads a stored response of either form.
func DecodeResponse(col string, chunks []RecordedChunk) (llm.Response, error) {
	var resp llm.Response
	bare, byRef := strings.CutPrefix(col, responsePrefix)
	if err := json.Unmarshal([]byte(bare), &resp); err != nil {
		return resp, err
	}
	if byRef {
		resp.Message.Content = chunksContent(chunks)
	}
	return resp, nil
}

// ResponseFirstForm is a stored response as json.Marshal writes it, the
// form an export carries; a whole one is returned as it is.
func ResponseFirstForm(col string, chunks []RecordedChunk) (string, error) {
	if !strings.HasPrefix(col, responsePrefix) {
		return col, nil
	}
	resp, err := DecodeResponse(col, chunks)
	if err != nil {
		return "", err
	}
	enc, err := json.Marshal(resp)
	return string(enc), err
}

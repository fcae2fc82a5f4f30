package openai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// answerBody is the body of a 200 answer: a server-sent event stream, or
// (whole) one JSON object from a server that ignored "stream": true.
type answerBody struct {
	io.ReadCloser
	whole bool
}

// maxWholeBody bounds an answer read whole, and maxErrorBody an error
// body: what a server sends past them is not read.
const (
	maxWholeBody = 64 << 20
	maxErrorBody = 64 << 10
)

// post sends the request and returns the answer's body, or the error the
// status, a web page or the connection gave.
func (c *Client) post(ctx context.Context, req llm.Request) (*answerBody, error) {
	payload, err := json.Marshal(encodeRequest(req, c.cfg.Echo, c.cfg.Prefix))
	if err != nil {
		return nil, fmt.Errorf("encoding the request: %w", err)
	}
	resp, err := c.send(ctx, c.endpoint, payload, "text/event-stream")
	if err != nil {
		return nil, err
	}
	ct := strings.ToLower(resp.Header.Get("Content-Type"))
	return &answerBody{ReadCloser: resp.Body, whole: strings.HasPrefix(ct, "application/json")}, nil
}

// send posts a JSON payload to url and returns a response of status 2xx,
// or the error the status, a web page or the connection gave.
func (c *Client) send(ctx context.Context, url string, payload []byte, accept string) (*http.Response, error) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", accept)
	hr.Header.Set("Cache-Control", "no-cache")
	if c.cfg.APIKey != "" {
		hr.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.http.Do(hr)
	if err != nil {
		return nil, err
	}
	ct := strings.ToLower(resp.Header.Get("Content-Type"))
	if strings.HasPrefix(ct, "text/html") {
		// A proxy's or captive portal's page, not the API.
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		resp.Body.Close()
		return nil, &htmlPageError{status: resp.StatusCode, title: HTMLTitle(body), retryAfter: retryAfterOf(resp)}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return nil, statusErrorOf(resp, body)
	}
	return resp, nil
}

func retryAfterOf(resp *http.Response) time.Duration {
	return ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
}

// httpStatusError is an answer with a failure status, and what its body
// said.
type httpStatusError struct {
	status     int
	code       string
	message    string
	retryAfter time.Duration
}

func (e *httpStatusError) Error() string {
	return fmt.Sprintf("HTTP %d: %s", e.status, e.message)
}

func statusErrorOf(resp *http.Response, body []byte) *httpStatusError {
	e := &httpStatusError{status: resp.StatusCode, retryAfter: retryAfterOf(resp)}
	var w struct {
		Error   *wireError `json:"error"`
		Message string     `json:"message"`
	}
	switch {
	case json.Unmarshal(body, &w) == nil && w.Error != nil:
		e.code, e.message = w.Error.code(), w.Error.Message
	case w.Message != "":
		e.message = w.Message
	default:
		e.message = strings.TrimSpace(string(body))
	}
	return e
}

// streamEnd says how a stream ended: at "data: [DONE]", the server's own
// word that the answer is whole, or at the end of the body, which is only
// a proper end when a finish reason came before it.
type streamEnd int

const (
	endOfBody streamEnd = iota
	endDone
)

// readStream reads server-sent events and hands each data payload, decoded,
// to fn. It returns at "data: [DONE]" or the end of the body, saying which
// it saw; what the answer lacked then is the caller's to judge. Comments
// (": ping", OpenRouter's ": OPENROUTER PROCESSING"), event names and ids
// are skipped.
func readStream(body io.Reader, fn func(*wireChunk) error) (streamEnd, error) {
	r := bufio.NewReaderSize(body, 64<<10)
	var long []byte // a line longer than the buffer, being gathered
	for {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, line...)
			continue
		}
		if long != nil {
			line = append(long, line...)
			long = nil
		}
		if len(line) > 0 {
			done, perr := streamLine(line, fn)
			if perr != nil {
				return endOfBody, perr
			}
			if done {
				return endDone, nil
			}
		}
		if err == io.EOF {
			return endOfBody, nil
		}
		if err != nil {
			return endOfBody, err
		}
	}
}

var (
	dataPrefix = []byte("data:")
	doneMarker = []byte("[DONE]")
)

// streamLine handles one line of the stream; done is true at [DONE].
func streamLine(line []byte, fn func(*wireChunk) error) (done bool, err error) {
	line = bytes.TrimRight(line, "\r\n")
	payload, ok := bytes.CutPrefix(line, dataPrefix)
	if !ok {
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] == '{' {
			// A JSON line with no "data:": an error object some servers
			// write into the stream.
			payload = t
		} else {
			return false, nil
		}
	}
	payload = bytes.TrimSpace(payload)
	if len(payload) == 0 {
		return false, nil
	}
	if bytes.Equal(payload, doneMarker) {
		return true, nil
	}
	var w wireChunk
	if err := decodeChunk(payload, &w); err != nil {
		return false, err
	}
	return false, fn(&w)
}

// readWhole reads an answer labelled as one JSON object and hands it to
// fn as one chunk (chunkOf then reads its message, not a delta). streamed
// is true when the body was a stream after all, whatever its label said;
// end is then how that stream ended.
func readWhole(body io.Reader, fn func(*wireChunk) error) (streamed bool, end streamEnd, err error) {
	b, err := io.ReadAll(io.LimitReader(body, maxWholeBody))
	if err != nil {
		return false, endOfBody, err
	}
	t := bytes.TrimSpace(b)
	if len(t) == 0 {
		return false, endOfBody, nil
	}
	if bytes.HasPrefix(t, dataPrefix) || t[0] == ':' {
		end, err := readStream(bytes.NewReader(b), fn)
		return true, end, err
	}
	var w wireChunk
	if err := decodeWire(t, &w); err != nil {
		return false, endOfBody, err
	}
	w.whole = true
	return false, endOfBody, fn(&w)
}

// wireOptions make the decoder of chunks as forgiving as encoding/json,
// whose rules servers are written against: names match whatever their
// case, a repeated name keeps its last value, and text that is not UTF-8
// becomes U+FFFD instead of an error.
var wireOptions = jsonv2.JoinOptions(
	jsonv2.MatchCaseInsensitiveNames(true),
	jsontext.AllowDuplicateNames(true),
	jsontext.AllowInvalidUTF8(true),
)

// decodeWire decodes one chunk. It is the one decode every streamed token
// pays, so it uses the encoding/json/v2 design (go-json-experiment), which
// reads a chunk in one pass with two allocations where encoding/json
// validates first and then reads again with eleven: less than half the
// time per token (BenchmarkDecodeChunk).
func decodeWire(b []byte, w *wireChunk) error {
	return jsonv2.Unmarshal(b, w, wireOptions)
}

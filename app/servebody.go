package app

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

// How much a call may send, per method. A call's body is read whole and
// decoded, so each limit is what the method can need, not one size for
// all: one authenticated 100 MB POST used to take the process from 80 MB
// to 775 MB. UploadAttachment is not read whole: its file's base64 is
// decoded straight into the stored file (uploadCall), and its limit is the
// base64 of the upload limit.
const (
	// defaultBodyLimit is every call without its own: ids, titles,
	// settings, a provider, a workflow to check.
	defaultBodyLimit = 4 << 20
	// messageBodyLimit is a message with its images (each at most
	// store.MaxImageBytes, a third more in base64): a message is not
	// 256 MB.
	messageBodyLimit = 64 << 20
	// importBodyLimit is an exported session to import, its images inline.
	importBodyLimit = 256 << 20
	// evalCasesBodyLimit is a suite's YAML (2,000 cases are about 52 KB).
	evalCasesBodyLimit = 16 << 20
)

// bodyLimits are the methods whose bodies may be larger than defaultBodyLimit.
var bodyLimits = map[string]int64{
	"SendMessage":      messageBodyLimit,
	"ImportSession":    importBodyLimit,
	"ImportFile":       importBodyLimit,
	"SaveEvalCases":    evalCasesBodyLimit,
	"ValidateWorkflow": evalCasesBodyLimit,
}

// maxUploads is how many uploads are received at once; more wait for one
// to end, and past maxUploadWaiting waiting they are refused. Each one
// streams to disk, so this bounds the disk's writers and the open
// connections, not memory.
const (
	maxUploads       = 4
	maxUploadWaiting = 16
)

// bodyLimit is the most a call of method may send.
func (s *Server) bodyLimit(method string) int64 {
	limit, ok := bodyLimits[method]
	switch {
	case method == "UploadAttachment":
		// The name and the JSON around the base64 take a little more.
		limit = int64(base64.StdEncoding.EncodedLen(s.svc.uploadLimit())) + 64<<10
	case !ok:
		limit = defaultBodyLimit
	}
	if s.maxBody > 0 && limit > s.maxBody {
		return s.maxBody
	}
	return limit
}

// tooLarge is the 413 a body over its method's limit gets.
func tooLarge(w http.ResponseWriter, method string, limit int64) {
	writeErr(w, http.StatusRequestEntityTooLarge, apperr.New(apperr.Invalid,
		"The request to %s is larger than the %s it may send, so it was not read. Send less at once (a large file: attach it by its path, with `agentdeck run --attach FILE`).",
		method, megabytes(limit)))
}

// decodeArgs decodes a call's body, a JSON array of the arguments of a
// method of type ft, straight into them: the body is not copied first.
func decodeArgs(body io.Reader, name string, ft reflect.Type) ([]reflect.Value, error) {
	dec := json.NewDecoder(body)
	args := make([]reflect.Value, ft.NumIn())
	tok, err := dec.Token()
	if errors.Is(err, io.EOF) && ft.NumIn() == 0 {
		return args, nil // an empty body: no arguments
	}
	if err != nil || tok != json.Delim('[') {
		return nil, badBody(err, "The request body must be a JSON array of arguments.")
	}
	n := 0
	for ; dec.More(); n++ {
		if n >= ft.NumIn() {
			return nil, badBody(nil, "%s takes %d arguments, got more.", name, ft.NumIn())
		}
		v := reflect.New(ft.In(n))
		if err := dec.Decode(v.Interface()); err != nil {
			return nil, badBody(err, "Argument %d of %s is not a valid %s.", n+1, name, ft.In(n))
		}
		args[n] = v.Elem()
	}
	if _, err := dec.Token(); err != nil {
		return nil, badBody(err, "The request body must be a JSON array of arguments.")
	}
	if n != ft.NumIn() {
		return nil, badBody(nil, "%s takes %d arguments, got %d.", name, ft.NumIn(), n)
	}
	return args, nil
}

// badBody is a body that could not be read: too large (the caller answers
// 413) or not what the method takes.
func badBody(err error, format string, a ...any) error {
	if mb := (*http.MaxBytesError)(nil); errors.As(err, &mb) {
		return mb
	}
	return apperr.New(apperr.Invalid, format, a...)
}

// uploadCall serves UploadAttachment without reading the body whole: the
// body is ["name","base64"], and the base64 goes through a decoder into
// the stored file as it arrives.
func (s *Server) uploadCall(w http.ResponseWriter, r *http.Request, body io.Reader, limit int64) {
	const method = "UploadAttachment"
	release, err := s.uploadSlot(r)
	if err != nil {
		writeErr(w, statusOf(err), err)
		return
	}
	defer release()
	br := bufio.NewReader(body)
	name, err := readUploadHead(br)
	if err != nil {
		if mb := (*http.MaxBytesError)(nil); errors.As(err, &mb) {
			tooLarge(w, method, limit)
			return
		}
		writeErr(w, http.StatusBadRequest, apperr.New(apperr.Invalid, "The request body must be a JSON array of arguments: UploadAttachment takes a file's name and its bytes in base64."))
		return
	}
	content := &jsonStringReader{r: br}
	up, err := s.svc.api.uploadStream(name, content)
	if err == nil {
		if err = content.end(); err != nil {
			s.svc.consumeUploads([]string{up.Path}) // stored, but the call was not well formed
		}
	}
	switch {
	case content.tooLarge:
		tooLarge(w, method, limit)
		return
	case err != nil && content.n/4*3-2 > int64(s.svc.uploadLimit()):
		writeErr(w, http.StatusRequestEntityTooLarge, err) // the file is over the upload limit
		return
	case err != nil:
		writeErr(w, statusOf(err), err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(up)
}

// uploadSlot waits for one of the maxUploads slots while the request
// lives; too many waiting already are refused with 503.
func (s *Server) uploadSlot(r *http.Request) (release func(), err error) {
	release = func() { <-s.uploads }
	select {
	case s.uploads <- struct{}{}:
		return release, nil
	default:
	}
	if s.uploadWaiting.Add(1) > int64(s.maxWaiting) {
		s.uploadWaiting.Add(-1)
		return nil, apperr.New(apperr.Unavailable, "%d files are being received already and %d more are waiting. Attach this one again when they are done.", cap(s.uploads), s.maxWaiting)
	}
	defer s.uploadWaiting.Add(-1)
	if s.onUploadWait != nil {
		s.onUploadWait()
	}
	select {
	case s.uploads <- struct{}{}:
		return release, nil
	case <-r.Context().Done():
		return nil, apperr.New(apperr.Cancelled, "The upload was cancelled while it waited for others to end.")
	}
}

// uploadGate is the Server's bound on uploads received at once.
type uploadGate struct {
	uploads       chan struct{} // a slot per upload being received
	uploadWaiting atomic.Int64  // how many wait for a slot
	maxWaiting    int
	onUploadWait  func() // tests: an upload starts waiting
}

func newUploadGate() uploadGate {
	return uploadGate{uploads: make(chan struct{}, maxUploads), maxWaiting: maxUploadWaiting}
}

// readUploadHead reads `["name",` and leaves br at the opening quote's
// next byte, the base64's first.
func readUploadHead(br *bufio.Reader) (string, error) {
	if err := expect(br, '['); err != nil {
		return "", err
	}
	if err := expect(br, '"'); err != nil {
		return "", err
	}
	// The name is short: at most a few KB of JSON string, decoded by json.
	raw := []byte{'"'}
	for esc := false; ; {
		c, err := br.ReadByte()
		if err != nil {
			return "", err
		}
		raw = append(raw, c)
		if len(raw) > 16<<10 {
			return "", errors.New("the name is too long")
		}
		if !esc && c == '"' {
			break
		}
		esc = !esc && c == '\\'
	}
	var name string
	if err := json.Unmarshal(raw, &name); err != nil {
		return "", err
	}
	if err := expect(br, ','); err != nil {
		return "", err
	}
	return name, expect(br, '"')
}

// expect skips JSON white space and reads want.
func expect(br *bufio.Reader, want byte) error {
	for {
		c, err := br.ReadByte()
		if err != nil {
			return err
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case want:
			return nil
		}
		return fmt.Errorf("found %q where %q belongs", c, want)
	}
}

// jsonStringReader reads the rest of a JSON string holding base64 up to
// its closing quote. Base64 has no character JSON must escape; a `\/`,
// which JSON allows, is read as a slash, `\n` and `\r` as the line breaks
// base64 decoding skips, any other escape is an error.
type jsonStringReader struct {
	r        *bufio.Reader
	n        int64 // the characters read
	done     bool  // the closing quote was read
	tooLarge bool  // the body went past its limit
}

func (j *jsonStringReader) Read(p []byte) (int, error) {
	if j.done {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) {
		c, err := j.r.ReadByte()
		if err != nil {
			if mb := (*http.MaxBytesError)(nil); errors.As(err, &mb) {
				j.tooLarge = true
			}
			if errors.Is(err, io.EOF) {
				err = apperr.New(apperr.Invalid, "The upload ended before its end: the request body stops inside the file's bytes. Attach it again.")
			}
			return n, err
		}
		switch c {
		case '"':
			j.done = true
			return n, nil
		case '\\':
			next, err := j.r.ReadByte()
			switch {
			case err == nil && next == '/':
				c = '/'
			case err == nil && (next == 'n' || next == 'r'):
				c = '\n' // line breaks, which base64 decoding skips
			default:
				return n, base64.CorruptInputError(j.n)
			}
		}
		p[n] = c
		n++
		j.n++
	}
	return n, nil
}

// end reads what follows the string: `]` and the body's end.
func (j *jsonStringReader) end() error {
	if !j.done {
		if _, err := io.Copy(io.Discard, j); err != nil {
			return err
		}
	}
	if err := expect(j.r, ']'); err != nil {
		if strings.Contains(err.Error(), `found ','`) {
			return apperr.New(apperr.Invalid, "UploadAttachment takes 2 arguments, got more.")
		}
		return apperr.New(apperr.Invalid, "The request body must be a JSON array of arguments: UploadAttachment takes a file's name and its bytes in base64.")
	}
	if err := expect(j.r, 0); !errors.Is(err, io.EOF) {
		return apperr.New(apperr.Invalid, "The request body must be a JSON array of arguments, and nothing after it.")
	}
	return nil
}

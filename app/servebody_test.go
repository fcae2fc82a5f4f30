package app

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"runtime"
	"strings"
	"testing"
)

// repeatReader yields pattern n times: a large body made as it is sent,
// never held by the test.
type repeatReader struct {
	pattern string
	n, off  int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	w := 0
	for w < len(p) && r.n > 0 {
		c := copy(p[w:], r.pattern[r.off:])
		w += c
		r.off += c
		if r.off == len(r.pattern) {
			r.off, r.n = 0, r.n-1
		}
	}
	if w == 0 {
		return 0, io.EOF
	}
	return w, nil
}

// post sends body to a method; length, when not -1, is declared in
// Content-Length (otherwise the body goes chunked, its size unknown).
func post(t *testing.T, srv *Server, base, method string, body io.Reader, length int64) (int, map[string]string) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/api/call/"+method, body)
	req.ContentLength = length
	if length < 0 {
		req.ContentLength = 0 // unknown: chunked
	}
	req.Header.Set("Authorization", "Bearer "+srv.Token())
	resp, err := httpClient(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got map[string]string
	b, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(b, &got)
	if got == nil {
		got = map[string]string{"body": string(b)}
	}
	return resp.StatusCode, got
}

// uploadBody is UploadAttachment's JSON body for a file of n*3 bytes "aaa…".
func uploadBody(name string, n int) io.Reader {
	return io.MultiReader(strings.NewReader(`["`+name+`", "`), &repeatReader{pattern: "YWFh", n: n}, strings.NewReader(`" ]`))
}

// Each method's body has its own limit: a message is not 256 MB. A body
// over it is refused with 413 and a message that says so, whether its
// size is declared (refused before it is read) or not (refused at the
// limit), and nothing of it is stored.
func TestServeBodyLimits(t *testing.T) {
	t.Parallel()
	const hundredMB = 100 << 20
	tests := []struct {
		name, method string
		body         func() io.Reader
		length       int64
		want         string
	}{
		{name: "a rename of 100 MB, its size unknown", method: "RenameSession", length: -1,
			body: func() io.Reader {
				return io.MultiReader(strings.NewReader(`["id","`), &repeatReader{pattern: "title", n: hundredMB / 5}, strings.NewReader(`"]`))
			},
			want: "The request to RenameSession is larger than the 4 MB it may send, so it was not read."},
		{name: "a message of 100 MB, its size declared", method: "SendMessage", length: hundredMB,
			body: func() io.Reader { return &repeatReader{pattern: "[[[[", n: hundredMB / 4} },
			want: "The request to SendMessage is larger than the 64 MB it may send, so it was not read."},
		{name: "an upload whose body is over the upload's, its size unknown", method: "UploadAttachment", length: -1,
			body: func() io.Reader { return uploadBody("big.csv", 1<<20) },
			want: "The request to UploadAttachment is larger than the 0.1 MB it may send, so it was not read."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := uploadFixture(t, 1024)
			srv, base := startServer(t, f)
			status, got := post(t, srv, base, tt.method, tt.body(), tt.length)
			if status != http.StatusRequestEntityTooLarge || got["code"] != "invalid" || !strings.HasPrefix(got["message"], tt.want) {
				t.Fatalf("got %d %v, want 413 saying %q", status, got, tt.want)
			}
			if left := uploadsIn(t, f); len(left) > 0 {
				t.Fatalf("a refused body stored %v", left)
			}
		})
	}
}

// An upload of 100 MB is decoded into its file as it arrives: the
// process allocates a small fraction of it, not the body and its copies.
// TotalAlloc counts every byte allocated, so the figure does not depend on
// when the collector ran.
func TestServeUploadStreamsToDisk(t *testing.T) {
	// Not parallel: it measures the heap, which tests beside it would grow.
	const size = 100 << 20 // "aaa" per "YWFh": size/3 of them
	f := uploadFixture(t, size+3)
	srv, base := startServer(t, f)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	status, got := post(t, srv, base, "UploadAttachment", uploadBody("big.csv", size/3), -1)
	runtime.ReadMemStats(&after)
	if status != http.StatusOK {
		t.Fatalf("status %d: %v", status, got)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Fatalf("receiving a %d MB upload allocated %d MB; it must stream to disk (under 16 MB)", size>>20, grew>>20)
	}
	left := uploadsIn(t, f)
	if len(left) != 1 {
		t.Fatalf("uploads/ holds %v", left)
	}
	fi, err := os.Stat(got["path"])
	if err != nil || fi.Size() != size/3*3 {
		t.Fatalf("stored %v (%v), want %d bytes", fi, err, size/3*3)
	}
}

// The streamed upload takes what UploadAttachment takes, and refuses what
// it refuses, with the same messages.
func TestServeUploadBodies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		status     int
		want       string // a part of the message, or the stored content
	}{
		{name: "a CSV", body: `["sales.csv","` + b64("a,b\n1,2\n") + `"]`, status: 200, want: "a,b\n1,2\n"},
		{name: "white space around", body: " [ \"sales.csv\" ,\n \"" + b64("a\n1\n") + "\" ] \n", status: 200, want: "a\n1\n"},
		{name: "escaped slashes", body: `["s.bin","` + strings.ReplaceAll(base64.StdEncoding.EncodeToString([]byte{0xff, 0xff, 0xff}), "/", `\/`) + `"]`, status: 200, want: "\xff\xff\xff"},
		{name: "an escaped name", body: `["sal\u00e9s.csv","` + b64("a\n1\n") + `"]`, status: 200, want: "a\n1\n"},
		{name: "empty", body: `["e.csv",""]`, status: 400, want: "e.csv is empty"},
		{name: "not base64", body: `["s.csv","not base64!"]`, status: 400, want: "s.csv arrived damaged (its content is not base64)"},
		{name: "an escaped line break", body: `["s.csv","YW\r\nFh"]`, status: 200, want: "aaa"},
		{name: "another escape", body: `["s.csv","YW\tFh"]`, status: 400, want: "arrived damaged"},
		{name: "over the upload limit", body: `["big.csv","` + b64(strings.Repeat("a", 100)) + `"]`, status: 413, want: "big.csv is 0.0 MB, over the 0.0 MB a file sent from the page may have"},
		{name: "cut short", body: `["s.csv","YWFh`, status: 400, want: "The upload ended before its end"},
		{name: "a third argument", body: `["s.csv","YWFh",1]`, status: 400, want: "UploadAttachment takes 2 arguments, got more."},
		{name: "not an array", body: `{"name":"s.csv"}`, status: 400, want: "UploadAttachment takes a file's name and its bytes in base64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := uploadFixture(t, 64)
			srv, base := startServer(t, f)
			status, got := post(t, srv, base, "UploadAttachment", strings.NewReader(tt.body), int64(len(tt.body)))
			if status != tt.status {
				t.Fatalf("status %d %v, want %d", status, got, tt.status)
			}
			if status != 200 {
				if !strings.Contains(got["message"], tt.want) {
					t.Fatalf("message %q, want it to say %q", got["message"], tt.want)
				}
				if left := uploadsIn(t, f); len(left) > 0 {
					t.Fatalf("a refused upload left %v", left)
				}
				return
			}
			stored, err := os.ReadFile(got["path"])
			if err != nil || string(stored) != tt.want {
				t.Fatalf("stored %q, %v; want %q", stored, err, tt.want)
			}
		})
	}
}

// Uploads received at once are bounded: one more waits for a slot and
// goes on when one is free; past the waiting bound one is refused with a
// message.
func TestServeUploadsAreBounded(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	srv, base := startServer(t, f)
	for range cap(srv.uploads) {
		srv.uploads <- struct{}{} // every slot busy
	}
	waiting := make(chan struct{})
	srv.onUploadWait = func() { close(waiting) }
	body := `["a.csv","` + b64("a\n1\n") + `"]`
	type reply struct {
		status int
		got    map[string]string
	}
	done := make(chan reply)
	go func() {
		s, g := post(t, srv, base, "UploadAttachment", strings.NewReader(body), int64(len(body)))
		done <- reply{s, g}
	}()
	<-waiting

	// The waiting list is full: the next is refused at once.
	srv.maxWaiting = 1
	status, got := post(t, srv, base, "UploadAttachment", strings.NewReader(body), int64(len(body)))
	if status != http.StatusServiceUnavailable || got["message"] != "4 files are being received already and 1 more are waiting. Attach this one again when they are done." {
		t.Fatalf("with the list full: %d %v", status, got)
	}

	<-srv.uploads // a slot frees
	r := <-done
	if r.status != http.StatusOK || r.got["name"] != "a.csv" {
		t.Fatalf("the waiting upload: %d %v", r.status, r.got)
	}
}

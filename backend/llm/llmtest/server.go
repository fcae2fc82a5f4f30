package llmtest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Server is a scripted OpenAI-compatible chat-completions server. All its
// methods are safe for concurrent use.
type Server struct {
	srv       *httptest.Server
	closing   chan struct{} // closed by Close: in-flight handlers stop waiting
	closeOnce sync.Once

	mu          sync.Mutex
	queue       []Reply
	respond     func(Request) Reply
	models      []string
	extra       map[string]json.RawMessage // "METHOD /path" → body (ServeJSON)
	extraSeen   []string                   // "METHOD /path" of each request served from extra
	requests    []Request
	disconnects []time.Time
	unscripted  int
	changed     chan struct{} // closed and replaced whenever a record grows

	embedFail     int // status POST /v1/embeddings answers; 0: vectors
	embedRequests int

	logMu     sync.Mutex
	logf      func(format string, args ...any)
	logClosed bool
}

// NewServer starts a server on a loopback port and closes it with
// t.Cleanup. Server errors (from net/http) are logged with t.Logf.
func NewServer(t testing.TB) *Server {
	t.Helper()
	s := NewStandalone(t.Logf)
	t.Cleanup(s.Close)
	return s
}

// NewStandalone starts a server outside a test (the window smoke test's
// fake model, demos); logf receives the server's error log. The caller
// must Close it.
func NewStandalone(logf func(format string, args ...any)) *Server {
	s := &Server{logf: logf, closing: make(chan struct{}), changed: make(chan struct{})}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.route))
	s.srv.Config.ErrorLog = log.New(serverLog{s}, "llmtest: ", 0)
	s.srv.Start()
	return s
}

// URL is the base URL including "/v1", as an OpenAI client wants it.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Close stops the server: in-flight responses are cut, hung and sleeping
// handlers return (their end is not recorded as a client disconnect), and
// later requests fail to connect. It is idempotent.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.closing)
		s.srv.Listener.Close()
		// httptest's Close waits for active requests; a handler blocked
		// writing to a client that stopped reading would wait forever.
		s.srv.CloseClientConnections()
		s.srv.Close()
		s.logMu.Lock()
		s.logClosed = true
		s.logMu.Unlock()
	})
}

// Enqueue adds replies for the next chat requests, served first in first
// out, before any Respond func is consulted.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// Respond sets fn to choose the reply to any chat request that finds the
// queue empty; nil removes it. fn runs on the handler's goroutine, possibly
// concurrently with itself, so it must be safe for concurrent use.
func (s *Server) Respond(fn func(req Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.respond = fn
}

// SetModels sets the models listed at GET /v1/models (none by default).
func (s *Server) SetModels(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = append([]string(nil), ids...)
}

// Pending is the number of queued replies not yet served.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Requests returns every chat request received so far, in arrival order,
// including unscripted and undecodable ones.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// WaitRequests waits until at least n chat requests have arrived and
// reports whether they did within timeout.
func (s *Server) WaitRequests(n int, timeout time.Duration) bool {
	return s.wait(timeout, func() bool { return len(s.requests) >= n })
}

// Unscripted is the number of chat requests that found no queued reply and
// no Respond func; each was answered 500 "llmtest: no reply scripted".
func (s *Server) Unscripted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.unscripted
}

// Disconnects returns, in order, the moments the server noticed a client
// go away while a response was in progress (hanging, sleeping or
// writing). A connection cut by DropAfter or Close is not a disconnect.
func (s *Server) Disconnects() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.disconnects...)
}

// WaitDisconnect waits for the first disconnect to be recorded and returns
// its time; ok is false if none was within timeout.
func (s *Server) WaitDisconnect(timeout time.Duration) (at time.Time, ok bool) {
	d, ok := s.WaitDisconnects(1, timeout)
	if !ok {
		return time.Time{}, false
	}
	return d[0], true
}

// WaitDisconnects waits until at least n disconnects have been recorded
// and returns them all; ok is false if fewer were within timeout.
func (s *Server) WaitDisconnects(n int, timeout time.Duration) ([]time.Time, bool) {
	ok := s.wait(timeout, func() bool { return len(s.disconnects) >= n })
	return s.Disconnects(), ok
}

// wait waits until cond, called with s.mu held, is true.
func (s *Server) wait(timeout time.Duration, cond func() bool) bool {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		s.mu.Lock()
		done, changed := cond(), s.changed
		s.mu.Unlock()
		if done {
			return true
		}
		select {
		case <-changed:
		case <-timer.C:
			s.mu.Lock()
			defer s.mu.Unlock()
			return cond()
		}
	}
}

// notifyLocked wakes every waiter; s.mu must be held.
func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Server) recordDisconnect() {
	at := time.Now()
	select {
	case <-s.closing:
		return // the server cut the connection, not the client
	default:
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.disconnects = append(s.disconnects, at)
	s.notifyLocked()
}

func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	route := r.Method + " " + r.URL.Path
	s.mu.Lock()
	body, ok := s.extra[route]
	if ok {
		s.extraSeen = append(s.extraSeen, route)
	}
	s.mu.Unlock()
	if ok {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
		return
	}
	switch r.URL.Path {
	case "/v1/chat/completions":
		if r.Method != http.MethodPost {
			writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", "llmtest: "+r.Method+" "+r.URL.Path+": use POST")
			return
		}
		s.serveChat(w, r)
	case "/v1/models":
		if r.Method != http.MethodGet {
			writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", "llmtest: "+r.Method+" "+r.URL.Path+": use GET")
			return
		}
		s.serveModels(w)
	case "/v1/embeddings":
		if r.Method != http.MethodPost {
			writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", "llmtest: "+r.Method+" "+r.URL.Path+": use POST")
			return
		}
		s.serveEmbeddings(w, r)
	default:
		writeError(w, http.StatusNotFound, "unknown_url", "llmtest: no route for "+r.Method+" "+r.URL.Path)
	}
}

// ServeJSON makes the server answer method and path (e.g. "GET",
// "/props") with body, encoded as JSON: the endpoints besides chat that
// servers of one kind or another have (Ollama's /api/show, llama.cpp's
// /props, a /v1/models with more fields). It takes precedence over the
// built-in routes.
func (s *Server) ServeJSON(method, path string, body any) {
	b, err := json.Marshal(body)
	if err != nil {
		panic("llmtest: ServeJSON body: " + err.Error())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.extra == nil {
		s.extra = map[string]json.RawMessage{}
	}
	s.extra[method+" "+path] = b
}

// Served lists the "METHOD /path" of each request answered from ServeJSON,
// in order.
func (s *Server) Served() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.extraSeen...)
}

func (s *Server) serveModels(w http.ResponseWriter) {
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list", Data: []model{}}
	s.mu.Lock()
	for _, id := range s.models {
		list.Data = append(list.Data, model{ID: id, Object: "model", Created: 1700000000, OwnedBy: "llmtest"})
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(list)
}

func (s *Server) serveChat(w http.ResponseWriter, r *http.Request) {
	// Reading to EOF also starts net/http's background read, which is what
	// cancels r.Context() when the client goes away.
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return // the client is gone before it finished sending
	}
	req, err := decodeRequest(raw, r.Header)
	valid := err == nil && req.Body != nil

	s.mu.Lock()
	req.Seq = len(s.requests) + 1
	s.requests = append(s.requests, req)
	var reply Reply
	scripted := false
	if valid && len(s.queue) > 0 {
		reply, s.queue, scripted = s.queue[0], s.queue[1:], true
	}
	respond := s.respond
	if valid && !scripted && respond == nil {
		s.unscripted++
	}
	s.notifyLocked()
	s.mu.Unlock()

	id := "chatcmpl-llmtest-" + strconv.Itoa(req.Seq)
	w.Header().Set("X-Request-Id", "req-llmtest-"+strconv.Itoa(req.Seq))
	switch {
	case !valid:
		writeError(w, http.StatusBadRequest, "invalid_json", fmt.Sprintf("llmtest: request body is not a JSON object: %.200q", raw))
		return
	case !scripted && respond == nil:
		writeError(w, http.StatusInternalServerError, "llmtest_unscripted",
			fmt.Sprintf("llmtest: no reply scripted for chat request %d (use Enqueue or Respond)", req.Seq))
		return
	case !scripted:
		reply = respond(req)
	}
	s.serve(w, r, req, reply, id)
}

// serve answers req with reply.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, req Request, reply Reply, id string) {
	if reply.Handler != nil {
		r.Body = io.NopCloser(bytes.NewReader(req.Raw))
		reply.Handler(w, r)
		return
	}
	ctx := r.Context()
	if reply.Hang {
		select {
		case <-ctx.Done():
			s.recordDisconnect()
		case <-s.closing:
			abort()
		}
		return
	}
	if !s.sleep(ctx, reply.FirstByteDelay) {
		return
	}
	for k, v := range reply.Header {
		w.Header().Set(k, v)
	}
	switch {
	case reply.Status != 0 || reply.Body != "":
		if reply.ContentType != "" || w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", cmp.Or(reply.ContentType, "application/json"))
		}
		w.WriteHeader(cmp.Or(reply.Status, http.StatusOK))
		_, _ = io.WriteString(w, reply.Body)
	case req.Stream && !reply.IgnoreStream:
		s.stream(w, r, req, reply, id)
	default:
		s.complete(w, r, req, reply, id)
	}
}

// sleep sleeps d and reports whether the response should go on: false when
// the client disconnected (recorded). It aborts the response when the
// server closes.
func (s *Server) sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		s.recordDisconnect()
		return false
	case <-s.closing:
		abort()
		return false
	}
}

// abort ends the handler so that net/http closes the connection instead of
// completing the response: a handler that merely returned before writing
// would send an empty 200.
func abort() { panic(http.ErrAbortHandler) }

// cut ends the response abruptly: whatever was written is flushed, then
// the connection is closed with no clean end of body.
func cut(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	conn, _, err := rc.Hijack()
	if err != nil {
		abort() // not hijackable (HTTP/2): aborting resets the stream
	}
	_ = conn.Close()
}

func writeError(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, errorBody(status, code, message, ""))
}

// serverLog forwards net/http's error log to t.Logf until the server is
// closed; logging after a test has ended would panic.
type serverLog struct{ s *Server }

func (l serverLog) Write(p []byte) (int, error) {
	l.s.logMu.Lock()
	defer l.s.logMu.Unlock()
	if !l.s.logClosed {
		l.s.logf("%s", bytes.TrimRight(p, "\n"))
	}
	return len(p), nil
}

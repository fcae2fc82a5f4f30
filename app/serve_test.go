package app

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

func startServer(t *testing.T, f *fixture) (*Server, string) {
	t.Helper()
	srv, err := NewServer(f.svc, ServeConfig{Addr: "127.0.0.1:0", Assets: fstest.MapFS{"index.html": {Data: []byte("<title>Agentdeck</title>")}}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { srv.Serve(ctx, ln); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return srv, "http://" + ln.Addr().String()
}

func TestServeRefusesWithoutTokenOrFromForeignSites(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	srv, base := startServer(t, f)
	client := httpClient(t)
	tests := []struct {
		name   string
		header map[string]string
		host   string
		path   string
		want   int
	}{
		{name: "no token", path: "/api/call/Status", want: 401},
		{name: "wrong token", path: "/api/call/Status", header: map[string]string{"Authorization": "Bearer nope"}, want: 401},
		{name: "foreign origin", path: "/api/call/Status", header: map[string]string{"Authorization": "Bearer " + srv.Token(), "Origin": "http://evil.example"}, want: 403},
		{name: "foreign host (DNS rebinding)", path: "/api/call/Status", host: "evil.example", header: map[string]string{"Authorization": "Bearer " + srv.Token()}, want: 403},
		{name: "page without token", path: "/", want: 401},
		{name: "good call", path: "/api/call/Status", header: map[string]string{"Authorization": "Bearer " + srv.Token(), "Origin": base}, want: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", base+tt.path, strings.NewReader("[]"))
			if tt.path == "/" {
				req.Method = "GET"
			}
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			if tt.host != "" {
				req.Host = tt.host
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.want)
			}
		})
	}
}

func TestServeRefusesNonLoopbackWithoutTheFlag(t *testing.T) {
	t.Parallel()
	if _, err := NewServer(&Service{}, ServeConfig{Addr: "0.0.0.0:7788"}); err == nil || !strings.Contains(err.Error(), "--allow-remote") {
		t.Fatalf("err = %v", err)
	}
}

func TestServePageLoadSetsACookieAndStreamsEvents(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	srv, base := startServer(t, f)
	client := httpClient(t)
	resp, err := client.Get(base + "/?token=" + srv.Token())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == cookieName {
			cookie = c
		}
	}
	if resp.StatusCode != 200 || cookie == nil || !cookie.HttpOnly {
		t.Fatalf("page load: %d, cookie %+v", resp.StatusCode, cookie)
	}

	// Events over SSE with the cookie, while a turn runs through the HTTP
	// API; the stream's events go to a recorder the test waits on.
	req, _ := http.NewRequest("GET", base+"/api/events", nil)
	req.AddCookie(cookie)
	ev, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	streamed := &turntest.Recorder{}
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(ev.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var msg wireMessage
			var batch EventBatch
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && json.Unmarshal([]byte(data), &msg) == nil &&
				msg.Kind == KindEvents && json.Unmarshal(msg.Data, &batch) == nil {
				for _, d := range batch {
					_ = streamed.Emit(d.Event)
				}
			}
		}
	}()
	t.Cleanup(func() { ev.Body.Close(); <-read })

	f.srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("hello from the browser", 4)})
	s := f.session(t, "web")
	call := func(method string, args ...any) *http.Response {
		b, _ := json.Marshal(args)
		r, _ := http.NewRequest("POST", base+"/api/call/"+method, strings.NewReader(string(b)))
		r.Header.Set("Authorization", "Bearer "+srv.Token())
		resp, err := client.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	r := call("SendMessage", SendRequest{SessionID: s.ID, Message: "hi"})
	var ref TurnRef
	if err := json.NewDecoder(r.Body).Decode(&ref); r.StatusCode != 200 || err != nil {
		t.Fatalf("SendMessage status %d: %v", r.StatusCode, err)
	}
	r.Body.Close()

	var text strings.Builder
	for _, e := range streamed.UntilEnded(t, ref.TurnID) {
		if e.Type == turn.EventToken {
			text.WriteString(turntest.Data[turn.TokenData](t, e).Text)
		}
	}
	if text.String() != "hello from the browser" {
		t.Fatalf("streamed %q", text.String())
	}

	bad := call("NoSuchMethod")
	if bad.StatusCode != 404 {
		t.Fatalf("unknown method status %d", bad.StatusCode)
	}
	bad.Body.Close()
}

// wireMessage is an envelope as a UI reads it off the event stream.
type wireMessage struct {
	Kind MessageKind     `json:"kind"`
	Data json.RawMessage `json:"data"`
}

// decodeWire reads one message of the stream and, when it is of into's
// kind, decodes its data into into.
func decodeWire[T Message](t *testing.T, data string, into *T) wireMessage {
	t.Helper()
	var msg wireMessage
	if err := json.Unmarshal([]byte(data), &msg); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	if msg.Kind == (*into).Kind() {
		if err := json.Unmarshal(msg.Data, into); err != nil {
			t.Fatalf("%s: %v: %s", msg.Kind, err, msg.Data)
		}
	}
	return msg
}

// The artifact frame's loader has its own policy, and the app's pages
// allow no frame but that loader: in browser mode (static) and in the
// window (the asset server's middleware).
func TestServePoliciesByPath(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	assets := fstest.MapFS{"index.html": {Data: []byte("<title>Agentdeck</title>")}, "artifact.html": {Data: []byte("<title>Artifact</title>")}}
	srv, err := NewServer(f.svc, ServeConfig{Addr: "127.0.0.1:0", Assets: assets})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { srv.Serve(ctx, ln); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	base := "http://" + ln.Addr().String()
	client := httpClient(t)

	tests := []struct {
		name, path string
		want       []string // in the policy
		not        []string // not in it
	}{
		{
			name: "app page",
			path: "/",
			want: []string{"script-src 'self';", "frame-ancestors 'none'", "frame-src " + base + "/artifact.html"},
			not:  []string{"unsafe-inline'; style", "unsafe-eval", "frame-src 'self'", "sandbox"},
		},
		{
			name: "artifact loader",
			path: "/artifact.html",
			want: []string{"default-src 'none'", "script-src 'unsafe-inline'", "connect-src 'none'", "form-action 'none'", "frame-ancestors 'self'", "sandbox allow-scripts"},
			not:  []string{"'self' data:", "allow-same-origin", "allow-popups", "allow-forms", "allow-top-navigation", "allow-modals"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", base+tt.path, nil)
			req.Header.Set("Authorization", "Bearer "+srv.Token())
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			csp := resp.Header.Get("Content-Security-Policy")
			if resp.StatusCode != 200 {
				t.Fatalf("status %d", resp.StatusCode)
			}
			for _, w := range tt.want {
				if !strings.Contains(csp, w) {
					t.Errorf("policy %q lacks %q", csp, w)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(csp, n) {
					t.Errorf("policy %q has %q", csp, n)
				}
			}
		})
	}

	// The window: only the loader gets a header; the app's pages keep
	// index.html's <meta>.
	h := withArtifactCSP(http.FileServerFS(assets))
	for path, want := range map[string]string{"/artifact.html": ArtifactCSP, "/": ""} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "wails://wails"+path, nil))
		if got := rec.Header().Get("Content-Security-Policy"); got != want {
			t.Errorf("window %s: policy %q, want %q", path, got, want)
		}
	}
}

// An artifact's frame has an opaque origin: what it sends carries
// "Origin: null", which the API refuses even with the cookie (a sandboxed
// frame's requests may carry it: SameSite looks at the frame's address).
func TestServeRefusesTheOpaqueOrigin(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	srv, base := startServer(t, f)
	for _, path := range []string{"/api/call/Status", "/api/events"} {
		req, _ := http.NewRequest("POST", base+path, strings.NewReader("[]"))
		if path == "/api/events" {
			req.Method = "GET"
		}
		req.AddCookie(&http.Cookie{Name: cookieName, Value: srv.Token()})
		req.Header.Set("Origin", "null")
		resp, err := httpClient(t).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s from Origin: null: status %d, want 403", path, resp.StatusCode)
		}
	}
}

package catalog

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
	"go.uber.org/goleak"
)

// modelsServer answers /v1/models with status and body, recording the
// Authorization header it saw.
func modelsServer(t *testing.T, status int, contentType, body string, gotAuth *string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		if gotAuth != nil {
			*gotAuth = r.Header.Get("Authorization")
		}
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		if status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "7")
		}
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// deadURL returns a loopback base URL on which nothing listens.
func deadURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/v1"
}

// hangServer never answers until the client leaves. released is closed when
// the handler has returned, so tests can check it noticed the disconnect.
func hangServer(t *testing.T) (srv *httptest.Server, released <-chan struct{}) {
	t.Helper()
	done := make(chan struct{}, 16)
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() { done <- struct{}{} }()
		select {
		case <-r.Context().Done():
		case <-time.After(2 * time.Minute): // a safety net; the test fails long before
		}
	}))
	return srv, done
}

const jsonCT = "application/json"

func TestListModels(t *testing.T) {
	tests := []struct {
		name        string
		status      int
		contentType string
		body        string
		key         string
		want        []string
		wantKind    llm.ErrorKind
		wantMsg     string
		wantRetry   time.Duration
	}{
		{name: "sorted and deduplicated", status: 200, contentType: jsonCT, key: "k1",
			body: `{"object":"list","data":[{"id":"qwen3:8b"},{"id":"llama3.2"},{"id":""},{"id":"qwen3:8b"}]}`,
			want: []string{"llama3.2", "qwen3:8b"}},
		{name: "empty list", status: 200, contentType: jsonCT, body: `{"data":[]}`, want: []string{}},
		{name: "wrong key", status: 401, contentType: jsonCT, key: "k1",
			body:     `{"error":{"message":"Incorrect API key provided"}}`,
			wantKind: llm.ErrAuth, wantMsg: `refused the API key (HTTP 401): check the key in the key field. The server said: "Incorrect API key provided"`},
		{name: "missing key", status: 401, body: `{"error":"unauthorized"}`,
			wantKind: llm.ErrAuth, wantMsg: "needs an API key (HTTP 401): add one in the key field"},
		{name: "forbidden", status: 403, key: "k1", wantKind: llm.ErrAuth, wantMsg: "refused the API key (HTTP 403)"},
		{name: "html page", status: 200, contentType: "text/html; charset=utf-8",
			body: "<!doctype html><html><body>Sign in to the proxy</body></html>", key: "k1",
			wantKind: llm.ErrHTMLPage, wantMsg: "answered with a web page instead of JSON (HTTP 200): check the base URL"},
		{name: "html without content type", status: 404, body: "\n  <html><title>Not\n Found</title></html>",
			wantKind: llm.ErrHTMLPage, wantMsg: `answered with a web page ("Not Found") instead of JSON (HTTP 404)`},
		{name: "gateway html page", status: 502, contentType: "text/html", body: "<html>bad gateway</html>",
			wantKind: llm.ErrServer, wantMsg: "web page instead of JSON (HTTP 502)"},
		{name: "not openai compatible", status: 404, body: "404 page not found",
			wantKind: llm.ErrBadRequest, wantMsg: "not an OpenAI-compatible server"},
		{name: "rate limited", status: 429, contentType: jsonCT, body: `{"message":"slow down"}`,
			wantKind: llm.ErrRateLimited, wantMsg: `HTTP 429): wait a moment and try again. The server said: "slow down"`, wantRetry: 7 * time.Second},
		{name: "server error", status: 500, body: "boom", wantKind: llm.ErrServer, wantMsg: "failed (HTTP 500)"},
		{name: "other 4xx", status: 400, body: "", wantKind: llm.ErrBadRequest, wantMsg: "refused the request (HTTP 400)."},
		{name: "malformed json", status: 200, contentType: jsonCT, body: `{"data":[`,
			wantKind: llm.ErrMalformedStream, wantMsg: "did not answer /models with an OpenAI model list"},
		{name: "json without data", status: 200, contentType: jsonCT, body: `{"models":[]}`,
			wantKind: llm.ErrMalformedStream, wantMsg: "OpenAI model list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var auth string
			srv := modelsServer(t, tt.status, tt.contentType, tt.body, &auth)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			got, err := ListModels(ctx, srv.Client(), srv.URL+"/v1/", tt.key)
			wantAuth := ""
			if tt.key != "" {
				wantAuth = "Bearer " + tt.key
			}
			if auth != wantAuth {
				t.Errorf("Authorization = %q, want %q", auth, wantAuth)
			}
			if tt.wantKind == "" {
				if err != nil {
					t.Fatalf("ListModels: %v", err)
				}
				if got == nil || !slices.Equal(got, tt.want) {
					t.Fatalf("models = %#v, want %#v", got, tt.want)
				}
				return
			}
			var e *llm.Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if e.Kind != tt.wantKind {
				t.Errorf("kind = %q, want %q (%v)", e.Kind, tt.wantKind, err)
			}
			if e.Status != tt.status {
				t.Errorf("status = %d, want %d", e.Status, tt.status)
			}
			if !strings.Contains(e.Message, tt.wantMsg) {
				t.Errorf("message %q does not contain %q", e.Message, tt.wantMsg)
			}
			if !strings.HasPrefix(e.Message, "The server at http://127.0.0.1:") {
				t.Errorf("message %q does not name the server", e.Message)
			}
			if e.RetryAfter != tt.wantRetry {
				t.Errorf("RetryAfter = %v, want %v", e.RetryAfter, tt.wantRetry)
			}
		})
	}
}

func TestListModelsRefused(t *testing.T) {
	_, err := ListModels(context.Background(), nil, deadURL(t), "")
	if llm.KindOf(err) != llm.ErrNetwork {
		t.Fatalf("kind = %q, want network (%v)", llm.KindOf(err), err)
	}
	if msg := err.(*llm.Error).Message; !strings.Contains(msg, "refused the connection: check the base URL") {
		t.Errorf("message = %q", msg)
	}
}

func TestListModelsHang(t *testing.T) {
	srv, released := hangServer(t)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := ListModels(ctx, srv.Client(), srv.URL+"/v1", "")
	if llm.KindOf(err) != llm.ErrTimeout {
		t.Fatalf("kind = %q, want timeout (%v)", llm.KindOf(err), err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("ListModels took %v after a 150ms deadline", d)
	}
	select {
	case <-released:
	case <-time.After(2 * time.Minute): // a safety net for a hung test, not a measure
		t.Fatal("the handler did not notice the client left")
	}
}

func TestListModelsCancelled(t *testing.T) {
	srv, released := hangServer(t)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := ListModels(ctx, srv.Client(), srv.URL+"/v1", "")
	if llm.KindOf(err) != llm.ErrCancelled {
		t.Fatalf("kind = %q, want cancelled (%v)", llm.KindOf(err), err)
	}
	<-released
}

func TestListModelsClientTimeout(t *testing.T) {
	srv, released := hangServer(t)
	defer srv.Close()
	hc := srv.Client()
	hc.Timeout = 100 * time.Millisecond
	_, err := ListModels(context.Background(), hc, srv.URL+"/v1", "")
	if llm.KindOf(err) != llm.ErrTimeout {
		t.Fatalf("kind = %q, want timeout (%v)", llm.KindOf(err), err)
	}
	<-released
}

func TestTransportErrorMessages(t *testing.T) {
	refused := &url.Error{Op: "Get", URL: "http://x/v1/models", Err: &net.OpError{
		Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}
	other := &url.Error{Op: "Get", URL: "http://x/v1/models", Err: errors.New("connection reset by peer")}
	dns := &url.Error{Op: "Get", URL: "http://x/v1/models", Err: &net.DNSError{Err: "no such host", Name: "x", IsNotFound: true}}
	tests := []struct {
		base string
		err  error
		want string
	}{
		{"http://127.0.0.1:11434/v1", refused,
			"Ollama at http://127.0.0.1:11434/v1 is not running: start it with `ollama serve`."},
		{"http://localhost:1234/v1", refused,
			"LM Studio at http://localhost:1234/v1 is not running: start the server in LM Studio's Developer tab or with `lms server start`."},
		{"http://[::1]:8080/v1", refused, "llama.cpp at http://[::1]:8080/v1 is not running: start it with `llama-server"},
		{"http://127.0.0.1:8000/v1", refused, "vLLM at http://127.0.0.1:8000/v1 is not running: start it with `vllm serve <model>`."},
		{"http://127.0.0.1:11434/v1", other, "Ollama at http://127.0.0.1:11434/v1 could not be reached: check that it is running (start it with `ollama serve`)."},
		{"http://10.1.1.1:11434/v1", refused, "The server at http://10.1.1.1:11434/v1 refused the connection"},
		{"https://api.openai.com/v1", other, "OpenAI at https://api.openai.com/v1 could not be reached: check the base URL and your network connection."},
		{"https://nowhere.invalid/v1", dns, "The host of the server at https://nowhere.invalid/v1 could not be found"},
	}
	for _, tt := range tests {
		t.Run(tt.base, func(t *testing.T) {
			u, msg := checkBaseURL(tt.base)
			if msg != "" {
				t.Fatal(msg)
			}
			e := modelsTransportError(context.Background(), describeServer(u), tt.err)
			if e.Kind != llm.ErrNetwork {
				t.Errorf("kind = %q", e.Kind)
			}
			if !strings.HasPrefix(e.Message, tt.want) {
				t.Errorf("message = %q, want prefix %q", e.Message, tt.want)
			}
		})
	}
}

func TestDetectLocal(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())

	live := modelsServer(t, 200, jsonCT, `{"data":[{"id":"b"},{"id":"a"}]}`, nil)
	defer live.Close()
	hang, released := hangServer(t)
	defer hang.Close()
	candidates := []llm.Provider{
		{Name: "dead", Kind: KindOllama, BaseURL: deadURL(t), Local: true},
		{Name: "hosted", Kind: KindCustom, BaseURL: live.URL + "/v1"}, // not local: never probed
		{Name: "hang", Kind: KindVLLM, BaseURL: hang.URL + "/v1", Local: true},
		{Name: "live", Kind: KindLMStudio, BaseURL: live.URL + "/v1", Local: true},
	}
	start := time.Now()
	got := DetectLocal(context.Background(), nil, candidates, 200*time.Millisecond)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("DetectLocal took %v with a 200ms probe timeout", d)
	}
	if len(got) != 1 || got[0].Provider.Name != "live" {
		t.Fatalf("detected %+v, want only live", got)
	}
	if !slices.Equal(got[0].Models, []string{"a", "b"}) {
		t.Errorf("models = %v", got[0].Models)
	}
	if got[0].Latency <= 0 || got[0].Latency > 200*time.Millisecond {
		t.Errorf("latency = %v", got[0].Latency)
	}
	<-released
}

func TestDetectLocalOrder(t *testing.T) {
	a := modelsServer(t, 200, jsonCT, `{"data":[{"id":"a"}]}`, nil)
	b := modelsServer(t, 200, jsonCT, `{"data":[{"id":"b"}]}`, nil)
	candidates := []llm.Provider{
		{Name: "b", Kind: KindCustom, BaseURL: b.URL + "/v1", Local: true},
		{Name: "a", Kind: KindCustom, BaseURL: a.URL + "/v1", Local: true},
	}
	got := DetectLocal(context.Background(), a.Client(), candidates, 0)
	if len(got) != 2 || got[0].Provider.Name != "b" || got[1].Provider.Name != "a" {
		t.Fatalf("detected %+v, want b then a", got)
	}
	if got := DetectLocal(context.Background(), nil, nil, 0); got != nil {
		t.Errorf("no candidates: got %v", got)
	}
}

// TestListModelsNeverLeaksKey drives every error path with a server that
// echoes the key back, and checks the key is nowhere in the error.
func TestListModelsNeverLeaksKey(t *testing.T) {
	const key = "sk-test-Zq9SECRETvalue0123456789abcdef"
	echo := func(status int, ct, format string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			if ct != "" {
				w.Header().Set("Content-Type", ct)
			}
			w.WriteHeader(status)
			fmt.Fprintf(w, format, got)
		}))
		t.Cleanup(srv.Close)
		return srv.URL + "/v1"
	}
	hang, _ := hangServer(t)
	t.Cleanup(hang.Close)
	tests := []struct {
		name    string
		baseURL string
		key     string
		timeout time.Duration
	}{
		{"401 json", echo(401, jsonCT, `{"error":{"message":"Incorrect API key provided: %s"}}`), key, 0},
		{"403 string error", echo(403, jsonCT, `{"error":"key %s is disabled"}`), key, 0},
		{"400 plain", echo(400, "text/plain", "bad header Bearer %s"), key, 0},
		{"500 plain", echo(500, "", "panic: %s"), key, 0},
		{"429", echo(429, jsonCT, `{"message":"too many for %s"}`), key, 0},
		{"html", echo(200, "text/html", "<html>%s</html>"), key, 0},
		{"malformed", echo(200, jsonCT, `{"data":"%s"`), key, 0},
		{"key with newline", echo(401, jsonCT, `{"error":{"message":"bad key %s"}}`), key + "\n", 0},
		{"refused", deadURL(t), key, 0},
		{"timeout", hang.URL + "/v1", key, 100 * time.Millisecond},
		{"key in query", "http://127.0.0.1:1/v1?api_key=" + key, key, 0},
		{"key as password", "http://user:" + key + "@127.0.0.1:1/v1", key, 0},
		{"key in path", deadURL(t) + "/" + key, key, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			if tt.timeout > 0 {
				cancel()
				ctx, cancel = context.WithTimeout(context.Background(), tt.timeout)
			}
			defer cancel()
			_, err := ListModels(ctx, nil, tt.baseURL, tt.key)
			if err == nil {
				t.Fatal("ListModels succeeded")
			}
			texts := []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)}
			for e := err; e != nil; e = errors.Unwrap(e) {
				texts = append(texts, e.Error())
			}
			var le *llm.Error
			if errors.As(err, &le) {
				texts = append(texts, le.Message)
			}
			for _, s := range texts {
				if strings.Contains(s, key) || strings.Contains(s, key[8:20]) {
					t.Fatalf("the key leaked into %q", s)
				}
			}
		})
	}
}

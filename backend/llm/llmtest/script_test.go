package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestRequestsRecorded(t *testing.T) {
	srv := NewServer(t)
	srv.Enqueue(Reply{Chunks: Text("ok", 1)})
	body := `{"model":"qwen3:8b","stream":true,"stream_options":{"include_usage":true},"temperature":0.2,
		"tools":[{"type":"function","function":{"name":"read_file","parameters":{}}},{"type":"function","function":{"name":"grep"}}],
		"messages":[
			{"role":"system","content":"be brief"},
			{"role":"user","content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"x"}},{"type":"text","text":"here"}]},
			{"role":"assistant","content":null,"tool_calls":[
				{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a\"}"}},
				{"id":"c2","type":"function","function":{"name":"grep","arguments":{"q":"x"}}}]},
			{"role":"tool","tool_call_id":"c1","name":"read_file","content":"text"}]}`
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL()+"/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer sk-test")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests recorded", len(reqs))
	}
	r := reqs[0]
	if r.Seq != 1 || r.Model != "qwen3:8b" || !r.Stream || !r.IncludeUsage || string(r.Raw) != body {
		t.Errorf("request %+v", r)
	}
	if r.Header.Get("Authorization") != "Bearer sk-test" {
		t.Errorf("headers %v", r.Header)
	}
	if fmt.Sprint(r.Tools) != "[read_file grep]" || r.Body["temperature"] != 0.2 {
		t.Errorf("tools %v, temperature %v", r.Tools, r.Body["temperature"])
	}
	want := []Message{
		{Role: "system", Content: "be brief"},
		{Role: "user", Content: "look\nhere"},
		{Role: "assistant", ToolCalls: []ToolCall{{"c1", "read_file", `{"path":"a"}`}, {"c2", "grep", `{"q":"x"}`}}},
		{Role: "tool", Content: "text", ToolCallID: "c1", Name: "read_file"},
	}
	if got := fmt.Sprintf("%+v", r.Messages); got != fmt.Sprintf("%+v", want) {
		t.Errorf("messages\n%s\nwant\n%s", got, fmt.Sprintf("%+v", want))
	}
}

func TestLenientDecoding(t *testing.T) {
	srv := NewServer(t)
	srv.Respond(func(Request) Reply { return Reply{Chunks: Text("ok", 1)} })
	// stream has the wrong type; the rest must still be read.
	resp := post(t, t.Context(), srv.URL(), `{"model":"m","stream":"yes","messages":[{"role":"user","content":"hi"}]}`)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status %d", resp.StatusCode)
	}
	r := srv.Requests()[0]
	if r.Model != "m" || r.Stream || len(r.Messages) != 1 || r.Messages[0].Content != "hi" {
		t.Errorf("request %+v", r)
	}
}

func TestInvalidBody(t *testing.T) {
	for _, body := range []string{"not json", "[]", "null", ""} {
		t.Run(fmt.Sprintf("%q", body), func(t *testing.T) {
			srv := NewServer(t)
			srv.Enqueue(Reply{Chunks: Text("kept", 1)})
			resp := post(t, t.Context(), srv.URL(), body)
			readAll(t, resp)
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("status %d, want 400", resp.StatusCode)
			}
			if srv.Pending() != 1 || srv.Unscripted() != 0 || len(srv.Requests()) != 1 {
				t.Errorf("pending %d, unscripted %d, requests %d; want 1, 0, 1", srv.Pending(), srv.Unscripted(), len(srv.Requests()))
			}
		})
	}
}

func TestUnscripted(t *testing.T) {
	srv := NewServer(t)
	srv.Enqueue(Reply{Chunks: Text("one", 1)})
	for range 2 {
		readAll(t, post(t, t.Context(), srv.URL(), chatBody(true, false)))
	}
	resp := post(t, t.Context(), srv.URL(), chatBody(true, false))
	body := readAll(t, resp)
	if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(body, "llmtest: no reply scripted") {
		t.Errorf("status %d body %q", resp.StatusCode, body)
	}
	if !json.Valid([]byte(body)) {
		t.Errorf("body %q is not JSON", body)
	}
	if n := srv.Unscripted(); n != 2 {
		t.Errorf("Unscripted %d, want 2", n)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests recorded, want 3", n)
	}
}

func TestRespond(t *testing.T) {
	srv := NewServer(t)
	srv.Enqueue(Reply{Chunks: Text("queued", 1)})
	srv.Respond(func(req Request) Reply {
		return Reply{Chunks: Text("echo "+req.Messages[0].Content, 2), Delay: time.Millisecond}
	})
	ask := func(ctx context.Context, msg string) (string, error) {
		body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"` + msg + `"}]}`
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL()+"/chat/completions", strings.NewReader(body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		a, err := assemble(t, resp.Body)
		return a.content, err
	}
	if got, err := ask(t.Context(), "first"); got != "queued" || err != nil {
		t.Fatalf("first reply %q, %v; want the queued one", got, err)
	}

	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			msg := fmt.Sprint("m", i)
			got, err := ask(t.Context(), msg)
			if got != "echo "+msg || err != nil {
				t.Errorf("reply to %s: %q, %v", msg, got, err)
			}
		})
	}
	wg.Wait()
	if !srv.WaitRequests(n+1, time.Second) || srv.Unscripted() != 0 {
		t.Errorf("requests %d, unscripted %d", len(srv.Requests()), srv.Unscripted())
	}

	srv.Respond(nil)
	readAll(t, post(t, t.Context(), srv.URL(), chatBody(true, false)))
	if srv.Unscripted() != 1 {
		t.Errorf("Respond(nil) should leave requests unscripted")
	}
}

func TestHandler(t *testing.T) {
	srv := NewServer(t)
	srv.Enqueue(Reply{Handler: func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.WriteHeader(http.StatusTeapot)
		fmt.Fprintf(w, "%d", len(b))
	}})
	body := chatBody(false, false)
	resp := post(t, t.Context(), srv.URL(), body)
	if got := readAll(t, resp); resp.StatusCode != http.StatusTeapot || got != fmt.Sprint(len(body)) {
		t.Errorf("status %d body %q", resp.StatusCode, got)
	}
}

func TestModels(t *testing.T) {
	tests := []struct {
		name string
		ids  []string
		want string
	}{
		{"none", nil, `{"object":"list","data":[]}`},
		{"some", []string{"llama3", "qwen3:8b"}, `{"object":"list","data":[` +
			`{"id":"llama3","object":"model","created":1700000000,"owned_by":"llmtest"},` +
			`{"id":"qwen3:8b","object":"model","created":1700000000,"owned_by":"llmtest"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := NewServer(t)
			srv.SetModels(tt.ids...)
			resp, err := http.Get(srv.URL() + "/models")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if got := strings.TrimSpace(readAll(t, resp)); got != tt.want {
				t.Errorf("got %s\nwant %s", got, tt.want)
			}
			if len(srv.Requests()) != 0 {
				t.Errorf("a models request was recorded as a chat request")
			}
		})
	}
}

func TestRoutes(t *testing.T) {
	srv := NewServer(t)
	tests := []struct {
		method, path string
		want         int
	}{
		{http.MethodGet, "/v1/chat/completions", http.StatusMethodNotAllowed},
		{http.MethodPost, "/v1/models", http.StatusMethodNotAllowed},
		{http.MethodPost, "/v1/v1/chat/completions", http.StatusNotFound},
		{http.MethodPost, "/chat/completions", http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, strings.TrimSuffix(srv.URL(), "/v1")+tt.path, strings.NewReader("{}"))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body := readAll(t, resp)
			if resp.StatusCode != tt.want || !json.Valid([]byte(body)) || !strings.Contains(body, tt.path) {
				t.Errorf("status %d body %q", resp.StatusCode, body)
			}
		})
	}
	if len(srv.Requests()) != 0 || srv.Unscripted() != 0 {
		t.Errorf("stray routes were recorded")
	}
}

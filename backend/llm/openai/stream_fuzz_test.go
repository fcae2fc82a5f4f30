package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/openai"
)

// fuzzBody is what the fuzz server answers with.
type fuzzBody struct {
	status      int
	contentType string
	body        []byte
}

// fuzzResponseKinds are the status and content type a fuzzed body is sent
// with, chosen by the fuzzed kind byte.
var fuzzResponseKinds = []struct {
	status      int
	contentType string
}{
	{200, "text/event-stream"},
	{200, "application/json"},
	{400, "application/json"},
	{429, "application/json"},
	{500, "text/plain"},
	{200, "text/html; charset=utf-8"},
	{502, "text/html"},
	{404, ""},
}

// FuzzStreamBody feeds arbitrary bytes as the body of a chat-completions
// response, through a real HTTP server, into the real client: it must never
// panic or hang, and must return either a response whose message is what
// the callback saw, or an *llm.Error with a message.
func FuzzStreamBody(f *testing.F) {
	chunk := func(delta string, finish string) string {
		fr := "null"
		if finish != "" {
			fr = strconv.Quote(finish)
		}
		return `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + fr + "}]}\n\n"
	}
	for _, s := range []struct {
		body string
		kind uint8
	}{
		{chunk(`{"role":"assistant","content":"Hel"}`, "") + chunk(`{"content":"lo"}`, "") + chunk(`{}`, "stop") + "data: [DONE]\n\n", 0},
		{chunk(`{"content":"Hi"}`, "stop") + `data: {"id":"c","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}` + "\n\ndata: [DONE]\n\n", 0},
		{chunk(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]}`, "") +
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":1}"}}]}`, "") +
			chunk(`{"tool_calls":[{"index":-7,"function":{"name":"g","arguments":"x"}},{"function":{"arguments":"y"}}]}`, "tool_calls"), 0},
		{chunk(`{"content":"cut"}`, ""), 0},
		{chunk(`{"reasoning_content":"think","content":""}`, "length") + "data: [DONE]\n\n", 0},
		{": ping\n\nevent: message\r\ndata: " + `{"choices":[{"delta":{"content":"crlf"},"finish_reason":"stop"}]}` + "\r\n\r\ndata: [DONE]\r\n\r\n", 0},
		{`data: {"error":{"message":"model overloaded","type":"server_error","code":"overloaded"}}` + "\n\n", 0},
		{`data: {"choices":[{"delta":{"content":`, 0},
		{"data: [DONE]\n\n", 0},
		{"data:\n\ndata: \n\ndata: {}\n\ndata: null\n\ndata: []\n\n", 0},
		{strings.Repeat(": keep-alive\n", 400), 0},
		{"", 0},
		{`{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"whole"},"finish_reason":"stop"}]}`, 1},
		{`{"error":{"message":"bad model","type":"invalid_request_error","param":null,"code":"model_not_found"}}`, 2},
		{`{"error":{"message":"slow down","code":429}}`, 3},
		{`{"error":"a string, not an object"}`, 2},
		{"upstream connect error or disconnect/reset before headers", 4},
		{"<html><head><title>Sign in to the Wi-Fi</title></head></html>", 5},
		{"<html><title>502 Bad Gateway</title></html>", 6},
		{"", 7},
	} {
		f.Add([]byte(s.body), s.kind)
	}

	var bodies sync.Map // model name -> fuzzBody
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string `json:"model"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		v, ok := bodies.Load(req.Model)
		if !ok {
			http.Error(w, "no body for "+req.Model, http.StatusTeapot)
			return
		}
		b := v.(fuzzBody)
		if b.contentType != "" {
			w.Header().Set("Content-Type", b.contentType)
		}
		w.WriteHeader(b.status)
		_, _ = w.Write(b.body)
	}))
	f.Cleanup(srv.Close)
	client := openai.NewClient(openai.Config{BaseURL: srv.URL + "/v1", Label: "the fuzz server", MaxRetries: -1, IdleTimeout: 10 * time.Second})
	var n atomic.Int64

	f.Fuzz(func(t *testing.T, body []byte, kind uint8) {
		k := fuzzResponseKinds[int(kind)%len(fuzzResponseKinds)]
		model := "fuzz-" + strconv.FormatInt(n.Add(1), 10)
		bodies.Store(model, fuzzBody{status: k.status, contentType: k.contentType, body: body})
		defer bodies.Delete(model)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()

		var streamed strings.Builder
		resp, err := client.Stream(ctx, llm.Request{Model: model, Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}},
			func(c llm.Chunk) error { streamed.WriteString(c.Content); return nil })
		if ctx.Err() != nil {
			t.Fatalf("the call hung on a %d-byte body", len(body))
		}
		if err != nil {
			var lerr *llm.Error
			if !errors.As(err, &lerr) {
				t.Fatalf("error %T %v is not an *llm.Error", err, err)
			}
			if strings.TrimSpace(lerr.Message) == "" || lerr.Kind == "" {
				t.Fatalf("error with no message or kind: %#v", lerr)
			}
			if resp.Diagnostics.OK || resp.Diagnostics.ErrorKind != lerr.Kind {
				t.Fatalf("diagnostics %+v do not match the error %v", resp.Diagnostics, lerr.Kind)
			}
			return
		}
		if resp.Message.Role != llm.RoleAssistant || resp.Message.Content != streamed.String() || !resp.Diagnostics.OK {
			t.Fatalf("response %+v does not match the streamed text %q", resp.Message, streamed.String())
		}
		if k.status != http.StatusOK {
			t.Fatalf("HTTP %d was taken for an answer: %+v", k.status, resp.Message)
		}
	})
}

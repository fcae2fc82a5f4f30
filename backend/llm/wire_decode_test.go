package llm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// wireLines are chunk payloads shaped like what servers send, with the
// quirks encoding/json forgives: the decoder of chunks must read each one
// exactly as encoding/json does, or fail where it fails.
var wireLines = []struct{ name, line string }{
	{"openai delta", `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":" tok"},"logprobs":null,"finish_reason":null}]}`},
	{"role only", `{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`},
	{"finish and usage", `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15,"prompt_tokens_details":{"cached_tokens":2},"completion_tokens_details":{"reasoning_tokens":3}}}`},
	{"usage only, no choices", `{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`},
	{"null everywhere", `{"choices":[{"delta":{"content":null,"reasoning_content":null,"reasoning_details":null,"tool_calls":null},"finish_reason":null}],"usage":null,"error":null}`},
	{"tool call delta", `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{\"q\":"}}]}}]}`},
	{"reasoning details", `{"choices":[{"delta":{"reasoning":"hm","reasoning_details":[{"type":"reasoning.encrypted","data":"abc=="}]}}]}`},
	{"whole message", `{"choices":[{"message":{"role":"assistant","content":"all at once"},"finish_reason":"stop"}]}`},
	{"names in another case", `{"Choices":[{"Delta":{"Content":"x","REASONING_CONTENT":"y"},"Finish_Reason":"stop"}]}`},
	{"repeated name keeps the last", `{"choices":[{"delta":{"content":"first","content":"last"}}]}`},
	{"escapes", `{"choices":[{"delta":{"content":"line\nquote\" tab\t \u00e9 \ud83d\ude00 \u003cb\u003e"}}]}`},
	{"lone surrogate", `{"choices":[{"delta":{"content":"a\ud800b"}}]}`},
	{"invalid utf-8", "{\"choices\":[{\"delta\":{\"content\":\"a\xff\xfeb\"}}]}"},
	{"error object", `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`},
	{"error with a number code", `{"error":{"message":"busy","code":429}}`},
	{"error as a string", `{"error":"model not found"}`},
	{"unknown fields", `{"x_groq":{"id":"req_1","usage":{"queue_time":0.1}},"choices":[{"delta":{"content":"k"},"extra":[1,2,{"a":null}]}]}`},
	{"empty object", `{}`},
	{"truncated", `{"choices":[{"delta":{"content":"par`},
	{"not json", `<html>`},
	{"wrong type", `{"choices":[{"delta":{"content":5}}]}`},
	{"choices not an array", `{"choices":{"delta":{"content":"x"}}}`},
	{"trailing garbage", `{"choices":[]} x`},
}

// TestDecodeWireReadsWhatEncodingJSONReads holds decodeWire to
// encoding/json's reading of every chunk above and of every data line of
// the recorded provider streams in testdata/streams.
func TestDecodeWireReadsWhatEncodingJSONReads(t *testing.T) {
	cases := wireLines
	files, _ := filepath.Glob(filepath.Join("testdata", "streams", "*.sse"))
	if len(files) == 0 {
		t.Fatal("no recorded streams in testdata/streams")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<20)
		for n := 1; sc.Scan(); n++ {
			if p, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:")); ok {
				if p = bytes.TrimSpace(p); len(p) > 0 && p[0] == '{' {
					cases = append(cases, struct{ name, line string }{fmt.Sprintf("%s:%d", filepath.Base(f), n), string(p)})
				}
			}
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var want, got wireChunk
			wantErr := json.Unmarshal([]byte(c.line), &want)
			gotErr := decodeWire([]byte(c.line), &got)
			if (wantErr != nil) != (gotErr != nil) {
				t.Fatalf("encoding/json error %v, decodeWire error %v", wantErr, gotErr)
			}
			if gotErr != nil {
				if !malformedJSON(gotErr) {
					t.Fatalf("decodeWire error %v is not classed as malformed JSON", gotErr)
				}
				return
			}
			if !reflect.DeepEqual(want, got) {
				t.Fatalf("decodeWire read\n%+v\nencoding/json read\n%+v", got, want)
			}
		})
	}
}

// BenchmarkDecodeChunk compares the decode of one token's chunk by
// encoding/json and by decodeWire.
func BenchmarkDecodeChunk(b *testing.B) {
	line := []byte(wireLines[0].line)
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var w wireChunk
			if err := json.Unmarshal(line, &w); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decodeWire", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var w wireChunk
			if err := decodeWire(line, &w); err != nil {
				b.Fatal(err)
			}
		}
	})
}

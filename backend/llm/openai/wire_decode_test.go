package openai

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

// TestDecodeWireReadsWhatEncodingJSONReads holds the decoder of chunks
// (decodeChunk: its one pass over plain chunks, else decodeWire) to
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
			gotErr := decodeChunk([]byte(c.line), &got)
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
	b.Run("decodeChunk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var w wireChunk
			if err := decodeChunk(line, &w); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// FuzzDecodeChunk holds decodeChunk to decodeWire on any input: the same
// chunk where decodeWire reads one, an error where it fails, so its own
// pass over plain chunks never reads anything differently. (decodeWire is
// held to encoding/json above; on inputs no server sends, such as a
// repeated "choices", which encoding/json merges into the first, the two
// may differ, so the fuzzer compares with decodeWire.) The seeds are the
// chunks above and shapes near the edge of what decodeChunk reads itself.
func FuzzDecodeChunk(f *testing.F) {
	for _, c := range wireLines {
		f.Add(c.line)
	}
	for _, s := range []string{
		`{"choices":[{"delta":{"content":"a"}}],"choices":[{"delta":{"reasoning":"b"}}]}`,
		`{"choices":[{"delta":{"content":"a"},"delta":{"reasoning":"b"}}]}`,
		`{"choices":[{"delta":{"content":"a"}},{"finish_reason":"stop"}],"n":-0.5e+3,"t":[true,false,null,{}]}`,
		`{"choices":[]}`, `{"choices":[{}]}`, `{"choices":null}`, `{"choices":[null]}`, `{"choices":[{"delta":null}]}`,
		`{"cHoices":[]}`, `{"choices":[{"Delta":{}}]}`, `{"n":01}`, `{"n":1.}`, `{"n":-}`, `{"s":"\u0041"}`, ` {"choices" : [ ] } `,
		`{"choices":[{"delta":{"content":"x"}}]}` + "\n", `{"a":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		var want, got wireChunk
		wantErr := decodeWire([]byte(line), &want)
		gotErr := decodeChunk([]byte(line), &got)
		if (wantErr != nil) != (gotErr != nil) {
			t.Fatalf("%q: decodeWire error %v, decodeChunk error %v", line, wantErr, gotErr)
		}
		if wantErr == nil && !reflect.DeepEqual(want, got) {
			t.Fatalf("%q: decodeChunk read\n%+v\ndecodeWire read\n%+v", line, got, want)
		}
	})
}

// TestPlainChunksTakeTheFastWay: the chunks of a streamed answer in the
// recorded provider streams' shape are read by decodeChunk's own pass, not
// handed to decodeWire, so the saving is not lost to a shape it misses.
func TestPlainChunksTakeTheFastWay(t *testing.T) {
	for _, line := range []string{
		wireLines[0].line,
		`{"id":"gen-1","provider":"OpenAI","model":"openai/gpt-4o","object":"chat.completion.chunk","created":1700000000,"choices":[{"index":0,"delta":{"role":"assistant","content":"Hello"},"finish_reason":null,"native_finish_reason":null,"logprobs":null}],"system_fingerprint":"fp_1"}`,
		`{"id":"chatcmpl-2","object":"chat.completion.chunk","created":1,"model":"qwen3","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":" world"},"finish_reason":null}]}`,
		`{"id":"x","choices":[{"index":0,"delta":{"reasoning_content":"think"},"logprobs":null,"finish_reason":null}],"usage":null}`,
	} {
		var w wireChunk
		if !plainChunk([]byte(line), &w) {
			t.Errorf("not read as plain: %s", line)
		}
	}
}

package openai_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/capturefile"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/llm/openai"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
)

// The fixtures in testdata/toolcalls are SSE bodies shaped like real
// providers' streams (see each case). They are served byte for byte, and
// read either whole or one byte per Read, so every event is also split in
// the middle of a string, of an escape and of a multibyte UTF-8 character.

// generatedID is the form of an id the client makes for a call sent without one.
var generatedID = regexp.MustCompile(`^call_[0-9a-f]{24}$`)

// wantCall is a call expected in the Response; an empty ID means the
// client must have generated one.
type wantCall struct{ ID, Name, Arguments string }

var toolCallCases = []struct {
	name    string
	fixture string
	content string
	finish  string
	usage   int // total tokens the server reported
	want    []wantCall
	// unchanged: the callback must see the tool-call deltas exactly as
	// the server sent them (the OpenAI shape).
	unchanged bool
}{
	{
		name:    "openai parallel calls interleaved",
		fixture: "openai_parallel.sse",
		finish:  "tool_calls",
		usage:   140,
		want: []wantCall{
			{"call_DdmO9pD3xa9XTPNJ32zg2hcA", "get_weather", `{"city":"Zürich","note":"say \"hi\"\n"}`},
			{"call_ABqhx6n1AQLM4NXDe5Mb8uT0", "get_time", `{"tz":"Europe/Zurich","emoji":"🌤"}`},
		},
		unchanged: true,
	},
	{
		name:    "id then name then arguments",
		fixture: "id_then_name.sse",
		finish:  "tool_calls",
		usage:   34,
		want:    []wantCall{{"call_q1w2e3", "list_dir", `{"dir":"/tmp"}`}},
		// Nothing to normalize: id first, one call.
		unchanged: true,
	},
	{
		name:    "no index, whole calls with ids (Gemini)",
		fixture: "no_index.sse",
		finish:  "tool_calls",
		usage:   62,
		want: []wantCall{
			{"call_g7Qk1", "get_weather", `{"city":"Paris"}`},
			{"call_g7Qk2", "get_weather", `{"city":"Tōkyō"}`},
		},
	},
	{
		name:    "no index, no ids, two calls in one delta",
		fixture: "no_index_one_delta.sse",
		finish:  "tool_calls",
		usage:   62,
		want: []wantCall{
			{"", "get_weather", `{"city":"Paris"}`},
			{"", "get_time", `{"tz":"Europe/Paris"}`},
		},
	},
	{
		name:    "two calls at index 0 with different ids (vLLM)",
		fixture: "same_index_ids.sse",
		finish:  "tool_calls",
		usage:   181,
		want: []wantCall{
			{"chatcmpl-tool-4a1e0c9b", "search", `{"query": "golang \"generics\"", "limit": 5}`},
			{"chatcmpl-tool-9d3f7b2e", "search", `{"query": "rust async\u00e9", "limit": 3}`},
		},
	},
	{
		name:    "two calls at index 0 with no ids (LM Studio, llama.cpp)",
		fixture: "same_index_no_ids.sse",
		content: "Let me check both.",
		finish:  "tool_calls",
		usage:   85,
		want: []wantCall{
			{"", "get_weather", `{"city":"Oslo"}`},
			{"", "get_weather", `{"city":"Bergen","units":"°C"}`},
		},
	},
	{
		name:    "single call with no id",
		fixture: "single_no_id.sse",
		finish:  "tool_calls",
		usage:   42,
		want:    []wantCall{{"", "read_file", `{"path":"C:\\Users\\zoë\\notes.md"}`}},
	},
	{
		name:    "name before id",
		fixture: "name_then_id.sse",
		finish:  "tool_calls",
		usage:   34,
		// The id generated with the name stands; the late one is dropped.
		want: []wantCall{{"", "list_dir", `{"dir":"/var"}`}},
	},
	{
		name:    "whole calls each in one delta at index 0 (Ollama)",
		fixture: "ollama.sse",
		finish:  "stop",
		usage:   204,
		want: []wantCall{
			{"call_5ruvx0mq", "get_weather", `{"city":"Paris"}`},
			{"call_hn3tw8eb", "get_weather", `{"city":"Zürich"}`},
		},
	},
	{
		name:    "whole calls each in one delta, no index, no ids",
		fixture: "ollama_no_ids.sse",
		finish:  "stop",
		usage:   204,
		want: []wantCall{
			{"", "get_weather", `{"city":"Paris"}`},
			{"", "get_weather", `{"city":"Zürich"}`},
		},
	},
}

func TestToolCallIDs(t *testing.T) {
	for _, tc := range toolCallCases {
		body := readToolCallFixture(t, tc.fixture)
		for _, read := range []struct {
			name    string
			oneByte bool
		}{{"whole", false}, {"byte by byte", true}} {
			t.Run(tc.name+"/"+read.name, func(t *testing.T) {
				srv := serveToolCallFixture(t, body)
				chunks, resp, err := streamToolCalls(t, toolCallClient(srv, read.oneByte), context.Background(), toolCallRequest)
				if err != nil {
					t.Fatal(err)
				}
				if n := srv.Unscripted(); n != 0 {
					t.Fatalf("%d unscripted requests", n)
				}
				if resp.FinishReason != tc.finish || resp.Message.Content != tc.content {
					t.Fatalf("finish %q content %q, want %q %q", resp.FinishReason, resp.Message.Content, tc.finish, tc.content)
				}
				if resp.Usage.Estimated || resp.Usage.TotalTokens != tc.usage {
					t.Fatalf("usage %+v, want %d tokens as reported", resp.Usage, tc.usage)
				}
				checkToolCalls(t, resp.Message.ToolCalls, tc.want)
				checkCallbackMatchesResponse(t, chunks, resp)
				if tc.unchanged {
					if got, want := streamedDeltas(chunks), wireDeltas(t, body); !reflect.DeepEqual(got, want) {
						t.Fatalf("an OpenAI-shaped stream was changed\n got %+v\nwant %+v", got, want)
					}
				}
			})
		}
	}
}

// TestToolCallIDsRecordAndReplay records calls whose ids the client made
// and replays them: the replay, whole or stopped after its last chunk (when
// the message is assembled from the recorded deltas), gives the same calls
// and ids.
func TestToolCallIDsRecordAndReplay(t *testing.T) {
	for _, fixture := range []string{"same_index_no_ids.sse", "same_index_ids.sse", "ollama_no_ids.sse", "name_then_id.sse"} {
		t.Run(strings.TrimSuffix(fixture, ".sse"), func(t *testing.T) {
			store, err := capturefile.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			srv := serveToolCallFixture(t, readToolCallFixture(t, fixture))
			req := toolCallRequest

			rec := recording.WithCapture(toolCallClient(srv, false), recording.Options{Mode: recording.Record, Store: store})
			recChunks, recResp, err := streamToolCalls(t, rec, context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			checkCallbackMatchesResponse(t, recChunks, recResp)

			play := recording.WithCapture(toolCallClient(srv, false), recording.Options{Mode: recording.Replay, Store: store})
			playChunks, playResp, err := streamToolCalls(t, play, context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(streamedDeltas(playChunks), streamedDeltas(recChunks)) {
				t.Fatalf("replayed deltas differ from the recorded ones\n got %+v\nwant %+v", streamedDeltas(playChunks), streamedDeltas(recChunks))
			}
			if !reflect.DeepEqual(playResp.Message.ToolCalls, recResp.Message.ToolCalls) {
				t.Fatalf("replayed calls %+v, recorded %+v", playResp.Message.ToolCalls, recResp.Message.ToolCalls)
			}

			stop := errors.New("stop")
			seen := 0
			partial, err := play.Stream(context.Background(), req, func(llm.Chunk) error {
				if seen++; seen == len(recChunks) {
					return stop
				}
				return nil
			})
			if !errors.Is(err, stop) {
				t.Fatalf("err %v, want the callback's", err)
			}
			if !reflect.DeepEqual(partial.Message.ToolCalls, recResp.Message.ToolCalls) {
				t.Fatalf("calls assembled from the recording %+v, want %+v", partial.Message.ToolCalls, recResp.Message.ToolCalls)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Fatalf("%d requests reached the server, want 1 (the recording)", n)
			}
		})
	}
}

var toolCallRequest = llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "weather?"}}}

// streamToolCalls runs a call and returns the chunks the callback saw.
func streamToolCalls(t *testing.T, c llm.Client, ctx context.Context, req llm.Request) ([]llm.Chunk, llm.Response, error) {
	t.Helper()
	var got []llm.Chunk
	resp, err := c.Stream(ctx, req, func(ch llm.Chunk) error {
		got = append(got, ch)
		return nil
	})
	return got, resp, err
}

// checkToolCalls compares the Response's calls with want and checks that
// every id is non-empty and unique.
func checkToolCalls(t *testing.T, got []llm.ToolCall, want []wantCall) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d calls, want %d: %+v", len(got), len(want), got)
	}
	seen := map[string]bool{}
	for i, w := range want {
		g := got[i]
		if g.Name != w.Name || g.Arguments != w.Arguments {
			t.Errorf("call %d: %s(%s), want %s(%s)", i, g.Name, g.Arguments, w.Name, w.Arguments)
		}
		switch {
		case w.ID != "" && g.ID != w.ID:
			t.Errorf("call %d: id %q, want the server's %q", i, g.ID, w.ID)
		case w.ID == "" && !generatedID.MatchString(g.ID):
			t.Errorf("call %d: id %q, want a generated one", i, g.ID)
		}
		if g.ID == "" || seen[g.ID] {
			t.Errorf("call %d: id %q is empty or not unique", i, g.ID)
		}
		seen[g.ID] = true
	}
}

// checkCallbackMatchesResponse merges the deltas the callback saw by index,
// as a consumer of the stream (the UI, the capture layer) does, and checks
// that this gives exactly the Response's calls, and that each call's id
// came in its first delta.
func checkCallbackMatchesResponse(t *testing.T, chunks []llm.Chunk, resp llm.Response) {
	t.Helper()
	var content strings.Builder
	byIndex := map[int]*llm.ToolCall{}
	var order []int
	for _, c := range chunks {
		content.WriteString(c.Content)
		for _, d := range c.ToolCalls {
			tc := byIndex[d.Index]
			if tc == nil {
				if d.ID == "" {
					t.Errorf("the first delta of the call at index %d has no id: %+v", d.Index, d)
				}
				tc = &llm.ToolCall{}
				byIndex[d.Index] = tc
				order = append(order, d.Index)
			} else if d.ID != "" && d.ID != tc.ID {
				t.Errorf("the call at index %d changed id from %q to %q", d.Index, tc.ID, d.ID)
			}
			if d.ID != "" {
				tc.ID = d.ID
			}
			tc.Name += d.Name
			tc.Arguments += d.Arguments
		}
	}
	sort.Ints(order)
	var merged []llm.ToolCall
	for _, i := range order {
		merged = append(merged, *byIndex[i])
	}
	if !reflect.DeepEqual(merged, resp.Message.ToolCalls) {
		t.Fatalf("the callback's deltas merge to\n%+v\nthe Response has\n%+v", merged, resp.Message.ToolCalls)
	}
	if content.String() != resp.Message.Content {
		t.Fatalf("the callback's text %q, the Response's %q", content.String(), resp.Message.Content)
	}
}

func streamedDeltas(chunks []llm.Chunk) []llm.ToolCallDelta {
	var out []llm.ToolCallDelta
	for _, c := range chunks {
		out = append(out, c.ToolCalls...)
	}
	return out
}

// wireDeltas parses the tool-call deltas of an SSE body as the server sent
// them; a delta with no index is at its position, as go-openai leaves it.
func wireDeltas(t *testing.T, body string) []llm.ToolCallDelta {
	t.Helper()
	var out []llm.ToolCallDelta
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var ev struct {
			Choices []struct {
				Delta struct {
					ToolCalls []struct {
						Index    *int   `json:"index"`
						ID       string `json:"id"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("fixture event %q: %v", data, err)
		}
		for _, ch := range ev.Choices {
			for i, d := range ch.Delta.ToolCalls {
				idx := i
				if d.Index != nil {
					idx = *d.Index
				}
				out = append(out, llm.ToolCallDelta{Index: idx, ID: d.ID, Name: d.Function.Name, Arguments: d.Function.Arguments})
			}
		}
	}
	return out
}

func readToolCallFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "toolcalls", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// serveToolCallFixture answers every chat request with body, verbatim.
func serveToolCallFixture(t *testing.T, body string) *llmtest.Server {
	srv := llmtest.NewServer(t)
	srv.Respond(func(llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Chunks: []llmtest.Chunk{{Verbatim: body}}, NoDone: true}
	})
	return srv
}

// toolCallClient is a client for srv; with oneByte, every Read of a
// response body returns at most one byte.
func toolCallClient(srv *llmtest.Server, oneByte bool) *openai.Client {
	hc := &http.Client{}
	if oneByte {
		hc.Transport = oneByteTransport{}
	}
	return openai.NewClient(openai.Config{BaseURL: srv.URL(), Label: "the test server", MaxRetries: -1, HTTPClient: hc})
}

type oneByteTransport struct{}

func (oneByteTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	resp.Body = struct {
		io.Reader
		io.Closer
	}{iotest.OneByteReader(resp.Body), resp.Body}
	return resp, nil
}

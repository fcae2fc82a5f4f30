package openai

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// filterTools are the tools every case offers.
var filterTools = []llm.Tool{
	{Name: "get_weather"}, {Name: "search"}, {Name: "read_file"}, {Name: "list_files"},
}

// filterCase is one model output and what the filter must make of it,
// however the output is split into deltas.
type filterCase struct {
	name      string
	file      string // under testdata/textfilter; in is its content
	in        string
	callsOff  bool // newContentFilter(filterTools, false)
	noTools   bool // newContentFilter(nil, true)
	same      bool // the content out is in, byte for byte, and nothing else
	content   string
	reasoning string
	calls     []llm.ToolCall
}

func TestContentFilterFixtures(t *testing.T) {
	weatherParis := llm.ToolCall{Name: "get_weather", Arguments: `{"location":"Paris, France","unit":"celsius"}`}
	museums := llm.ToolCall{Name: "search", Arguments: `{"query":"Paris museums open on Monday"}`}
	tests := []filterCase{
		{
			name:      "qwen3 think then tool call",
			file:      "qwen3_think_tool_call.txt",
			reasoning: "\nThe user wants the current weather in Paris. I have a get_weather tool that takes a location and a unit, so I'll call it with Paris and celsius.\n",
			calls:     []llm.ToolCall{weatherParis},
		},
		{
			name:      "qwen3 think, prose, call, prose",
			file:      "qwen3_think_prose_call_text.txt",
			reasoning: "\nI can't summarize the config without reading it. read_file takes a path.\n",
			content:   "I'll read the config file first.\nAfter that I'll summarize the settings.",
			calls:     []llm.ToolCall{{Name: "read_file", Arguments: `{"path":"config/app.yaml"}`}},
		},
		{
			name:    "hermes two calls after prose, arguments first",
			file:    "hermes_two_calls.txt",
			content: "I'll check the weather in both cities for you.\n",
			calls: []llm.ToolCall{
				{Name: "get_weather", Arguments: `{"location":"Paris, France"}`},
				{Name: "get_weather", Arguments: `{"location":"Tokyo, Japan"}`},
			},
		},
		{name: "hermes with calls off stays text", file: "hermes_two_calls.txt", callsOff: true, same: true},
		{name: "hermes with no tools offered stays text", file: "hermes_two_calls.txt", noTools: true, same: true},
		{
			name:    "qwen2.5 arguments as a JSON string",
			file:    "qwen25_string_arguments.txt",
			content: "Let me look that up.\n\n",
			calls:   []llm.ToolCall{{Name: "search", Arguments: `{"query":"Go 1.26 release notes","limit":5}`}},
		},
		{
			name:  "llama 3.1 python_tag ending in eom_id",
			file:  "llama31_python_tag.txt",
			calls: []llm.ToolCall{{Name: "search", Arguments: `{"query":"weather in Menlo Park today"}`}},
		},
		{name: "llama 3.1 built-in tool call is not JSON", file: "llama31_builtin_tool.txt", same: true},
		{
			name:  "llama 3.2 bare JSON",
			file:  "llama32_bare_json.txt",
			calls: []llm.ToolCall{{Name: "get_weather", Arguments: `{"location":"San Francisco, CA","unit":"fahrenheit"}`}},
		},
		{
			name: "llama 3.2 bare JSON separated by semicolons",
			file: "llama32_semicolons.txt",
			calls: []llm.ToolCall{
				{Name: "get_weather", Arguments: `{"location":"Paris"}`},
				{Name: "get_weather", Arguments: `{"location":"London"}`},
			},
		},
		{
			name: "llama 3.3 bare array after newlines",
			file: "llama33_bare_array.txt",
			calls: []llm.ToolCall{
				{Name: "get_weather", Arguments: `{"location":"Berlin"}`},
				{Name: "search", Arguments: `{"query":"Berlin events this weekend"}`},
			},
		},
		{name: "mistral v3 array", file: "mistral_v3_array.txt", calls: []llm.ToolCall{weatherParis, museums}},
		{name: "mistral v11 name[ARGS]", file: "mistral_v11_args.txt", calls: []llm.ToolCall{weatherParis, museums}},
		{
			name:      "deepseek-r1 think then answer",
			file:      "deepseek_r1.txt",
			reasoning: "\nThe user asks for the capital of Australia. Many people guess Sydney, but the capital is Canberra, chosen as a compromise between Sydney and Melbourne.\n",
			content:   "The capital of Australia is **Canberra**, not Sydney. It was purpose-built as a compromise between Sydney and Melbourne.",
		},
		{
			name:      "deepseek-r1 with calls off still splits the thinking",
			file:      "deepseek_r1.txt",
			callsOff:  true,
			reasoning: "\nThe user asks for the capital of Australia. Many people guess Sydney, but the capital is Canberra, chosen as a compromise between Sydney and Melbourne.\n",
			content:   "The capital of Australia is **Canberra**, not Sydney. It was purpose-built as a compromise between Sydney and Melbourne.",
		},
		{
			name:      "unclosed think is all reasoning",
			file:      "think_unclosed.txt",
			reasoning: "\nThe user wants a haiku about autumn. Five, seven, five syllables. First line: \"Red leaves drift",
		},
		{name: "markers mentioned in prose stay text", file: "prose_mention.txt", same: true},
		{name: "markers mentioned in prose, calls off", file: "prose_mention.txt", callsOff: true, same: true},
		{name: "think tag later in prose stays text", file: "think_mentioned_later.txt", same: true},
		{name: "unknown tool stays text", file: "unknown_tool.txt", same: true},
		{name: "invalid JSON in tool_call stays text", file: "invalid_json_tool_call.txt", same: true},
		{name: "python dict in tool_call stays text", file: "python_dict_tool_call.txt", same: true},
		{name: "JSON answer", file: "json_answer.txt", same: true},
		{name: "JSON answer with a name key", file: "json_answer_named.txt", same: true},
		{name: "JSON array answer", file: "json_array_answer.txt", same: true},
	}
	for _, tc := range tests {
		data, err := os.ReadFile(filepath.Join("testdata", "textfilter", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		tc.in = string(data)
		t.Run(tc.name, func(t *testing.T) { checkEverySplit(t, tc) })
	}
}

func TestContentFilterCases(t *testing.T) {
	paris := llm.ToolCall{Name: "get_weather", Arguments: `{"location":"Paris"}`}
	tests := []filterCase{
		{name: "empty"},
		{name: "only whitespace", in: " \n\t", same: true},
		{name: "plain text", in: "Hello, world.", same: true},
		{name: "leading whitespace before think", in: "  \n<think>hmm</think>\n\nAnswer.", reasoning: "hmm", content: "Answer."},
		{name: "leading whitespace before text", in: "\n\nAnswer.", same: true},
		{name: "empty think", in: "<think></think>Answer.", content: "Answer."},
		{name: "unfinished think tag", in: "<thin", same: true},
		{name: "think tag not at the start", in: "Hi <think>x</think>", same: true},
		{name: "not a think tag", in: "<thinking>x</thinking>", same: true},
		{name: "think tag with calls off", in: "<think>a</think>b", callsOff: true, reasoning: "a", content: "b"},
		{
			name:      "think text holding a tool_call stays reasoning",
			in:        `<think>maybe <tool_call>{"name": "search"}</tool_call></think>ok`,
			reasoning: `maybe <tool_call>{"name": "search"}</tool_call>`, content: "ok",
		},
		{
			name:  "leading whitespace before a call is dropped",
			in:    "\n <tool_call>{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Paris\"}}</tool_call>\n",
			calls: []llm.ToolCall{paris},
		},
		{name: "leading whitespace before a failed call is kept", in: "\n <tool_call> tags", same: true},
		{
			name:    "closing tag cut off at the end",
			in:      `Checking. <tool_call>{"name": "get_weather", "arguments": {"location": "Paris"}}</tool_`,
			content: "Checking. ", calls: []llm.ToolCall{paris},
		},
		{name: "call cut off at the end", in: `Checking. <tool_call>{"name": "get_weather", "argu`, same: true},
		{name: "marker cut off at the end", in: "See <tool_", same: true},
		{name: "arguments absent", in: `<tool_call>{"name": "list_files"}</tool_call>`, calls: []llm.ToolCall{{Name: "list_files", Arguments: "{}"}}},
		{name: "arguments null", in: `<tool_call>{"name": "list_files", "arguments": null}</tool_call>`, calls: []llm.ToolCall{{Name: "list_files", Arguments: "{}"}}},
		{name: "arguments an array", in: `<tool_call>{"name": "get_weather", "arguments": [1]}</tool_call>`, same: true},
		{name: "arguments a string holding no object", in: `<tool_call>{"name": "get_weather", "arguments": "Paris"}</tool_call>`, same: true},
		{name: "name not a string", in: `<tool_call>{"name": 7, "arguments": {}}</tool_call>`, same: true},
		{name: "text after the JSON inside tool_call", in: `<tool_call>{"name": "list_files"} please</tool_call>`, same: true},
		{
			name:    "a failed call then a real one",
			in:      "<tool_call>\n<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Paris\"}}</tool_call>",
			content: "<tool_call>\n", calls: []llm.ToolCall{paris},
		},
		{
			name:    "markers inside a call's strings are data",
			in:      `<tool_call>{"name": "search", "arguments": {"query": "<tool_call> and [TOOL_CALLS] </tool_call>"}}</tool_call>`,
			calls:   []llm.ToolCall{{Name: "search", Arguments: `{"query":"<tool_call> and [TOOL_CALLS] </tool_call>"}`}},
			content: "",
		},
		{
			name:    "prose then python_tag with semicolons and eot_id",
			in:      `Searching both. <|python_tag|>{"name": "search", "parameters": {"query": "a"}}; {"name": "search", "parameters": {"query": "b"}}<|eot_id|>`,
			content: "Searching both. ",
			calls: []llm.ToolCall{
				{Name: "search", Arguments: `{"query":"a"}`},
				{Name: "search", Arguments: `{"query":"b"}`},
			},
		},
		{
			name:    "bare call then text",
			in:      `{"name": "get_weather", "parameters": {"location": "Paris"}}` + "\nLet me know if you need more.",
			content: "Let me know if you need more.", calls: []llm.ToolCall{paris},
		},
		{name: "bare call with eot_id", in: `{"name": "get_weather", "parameters": {"location": "Paris"}}<|eot_id|>`, calls: []llm.ToolCall{paris}},
		{name: "bare call of an unknown tool", in: `{"name": "rm", "parameters": {}}`, same: true},
		{name: "bare call later in prose is text", in: `Call {"name": "get_weather", "parameters": {"location": "Paris"}}`, same: true},
		{name: "bare JSON with leading whitespace", in: "  {\"a\": 1}", same: true},
		{name: "bare JSON holding markers", in: `["<tool_call>{\"name\": \"list_files\"}</tool_call>"] <`, same: true},
		{name: "footnote bracket", in: "[1] Smith et al., 2020.", same: true},
		{name: "markdown link first", in: "[docs](https://example.com) say [TOOL_CALLS] is a token.", same: true},
		{name: "bare call with calls off", in: `{"name": "get_weather", "parameters": {"location": "Paris"}}`, callsOff: true, same: true},
		{
			name:  "mistral call id",
			in:    `[TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]{"location": "Paris"}`,
			calls: []llm.ToolCall{paris},
		},
		{name: "mistral without [ARGS]", in: `[TOOL_CALLS]get_weather{"location": "Paris"}`, calls: []llm.ToolCall{paris}},
		{name: "mistral single object", in: `[TOOL_CALLS]{"name": "get_weather", "arguments": {"location": "Paris"}}`, calls: []llm.ToolCall{paris}},
		{name: "mistral unknown name", in: `[TOOL_CALLS]rm_rf[ARGS]{"path": "/"}`, same: true},
		{name: "mistral arguments not an object", in: `[TOOL_CALLS]get_weather[ARGS]["Paris"]`, same: true},
		{name: "mistral marker in prose", in: "Mistral writes [TOOL_CALLS] first.", same: true},
		{name: "mistral array with one unknown tool", in: `[TOOL_CALLS][{"name": "get_weather", "arguments": {}}, {"name": "rm", "arguments": {}}]`, same: true},
		{
			name:    "mistral call then prose",
			in:      `Sure.[TOOL_CALLS]get_weather[ARGS]{"location": "Paris"} Done.`,
			content: "Sure.Done.", calls: []llm.ToolCall{paris},
		},
		{name: "utf-8 prose", in: "Température à <Paris> : 18 °C — ☀️ [ok]", same: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkEverySplit(t, tc) })
	}
}

// checkEverySplit runs tc.in through the filter whole, split at every byte
// into two deltas, one rune per delta and in random chunks, and checks the
// result of each; and that content released while streaming is always a
// prefix of the final content, so nothing released is ever part of a call.
func checkEverySplit(t *testing.T, tc filterCase) {
	t.Helper()
	want := filterResult{Content: tc.content, Reasoning: tc.reasoning, Calls: tc.calls}
	if tc.same {
		want = filterResult{Content: tc.in}
	}
	var splits [][]string
	splits = append(splits, []string{tc.in})
	for i := 0; i <= len(tc.in); i++ {
		splits = append(splits, []string{tc.in[:i], tc.in[i:]})
	}
	splits = append(splits, runeChunks(tc.in))
	for seed := range uint64(20) {
		splits = append(splits, randomChunks(tc.in, seed))
	}
	for _, deltas := range splits {
		f := tc.filter()
		got := runFilter(t, f, deltas, want.Content)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("split %q:\n got %s\nwant %s", deltas, got, want)
		}
	}
}

func (tc filterCase) filter() *contentFilter {
	switch {
	case tc.callsOff:
		return newContentFilter(filterTools, false)
	case tc.noTools:
		return newContentFilter(nil, true)
	}
	return newContentFilter(filterTools, true)
}

// filterResult is all a filter released over a stream.
type filterResult struct {
	Content, Reasoning string
	Calls              []llm.ToolCall
}

func (r filterResult) String() string {
	return fmt.Sprintf("{content %q reasoning %q calls %v}", r.Content, r.Reasoning, r.Calls)
}

// runFilter pushes deltas and flushes. When t is not nil, it checks after
// every delta that the content so far is a prefix of final.
func runFilter(t *testing.T, f *contentFilter, deltas []string, final string) filterResult {
	var r filterResult
	add := func(out filtered) {
		r.Content += out.Content
		r.Reasoning += out.Reasoning
		r.Calls = append(r.Calls, out.Calls...)
	}
	for _, d := range deltas {
		add(f.push(d))
		if t != nil && !strings.HasPrefix(final, r.Content) {
			t.Fatalf("split %q: released %q while streaming, not a prefix of %q", deltas, r.Content, final)
		}
	}
	add(f.flush())
	return r
}

func runeChunks(s string) []string {
	var out []string
	for len(s) > 0 {
		_, n := utf8.DecodeRuneInString(s)
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// randomChunks splits s into chunks of 1 to 12 bytes.
func randomChunks(s string, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 0x7e47f11))
	var out []string
	for len(s) > 0 {
		n := min(len(s), 1+r.IntN(12))
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

func TestContentFilterPlainTextDoesNotAllocate(t *testing.T) {
	f := newContentFilter(filterTools, true)
	f.push("Hello")
	if n := testing.AllocsPerRun(1000, func() { f.push("word ") }); n != 0 {
		t.Errorf("plain text: %v allocations per delta, want 0", n)
	}
	f = newContentFilter(filterTools, true)
	f.push("<think>")
	if n := testing.AllocsPerRun(1000, func() { f.push("word ") }); n != 0 {
		t.Errorf("reasoning: %v allocations per delta, want 0", n)
	}
}

func TestContentFilterStartsOverAfterFlush(t *testing.T) {
	f := newContentFilter(filterTools, true)
	f.push("<think>a")
	f.flush()
	got := runFilter(t, f, []string{"<think>b</think>c"}, "c")
	if want := (filterResult{Content: "c", Reasoning: "b"}); !reflect.DeepEqual(got, want) {
		t.Errorf("got %s, want %s", got, want)
	}
}

// FuzzContentFilter checks that the filter never panics, that how the
// stream is split never changes what comes out, that text with no leading
// <think> and no call found comes out byte for byte, and that every call
// names an offered tool and has a JSON object for arguments.
func FuzzContentFilter(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "textfilter", "*.txt"))
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data), true, uint64(1))
		f.Add(string(data), false, uint64(2))
	}
	for _, s := range []string{
		"", " <think>x", "<think></think>{\"name\":\"search\"}", "[TOOL_CALLS]search[CALL_ID]x[ARGS]{}",
		"<|python_tag|>{\"name\":\"search\"};<|eom_id|>[", "{\"name\":\"search\",\"parameters\":\"{}\"}",
	} {
		f.Add(s, true, uint64(3))
	}
	f.Fuzz(func(t *testing.T, in string, textCalls bool, seed uint64) {
		whole := runFilter(nil, newContentFilter(filterTools, textCalls), []string{in}, "")
		split := runFilter(nil, newContentFilter(filterTools, textCalls), randomChunks(in, seed), "")
		bytewise := runFilter(nil, newContentFilter(filterTools, textCalls), strings.Split(in, ""), "")
		if !reflect.DeepEqual(whole, split) || !reflect.DeepEqual(whole, bytewise) {
			t.Fatalf("%q: whole %s\nsplit %s\nbytewise %s", in, whole, split, bytewise)
		}
		leadingThink := strings.HasPrefix(strings.TrimLeft(in, " \t\r\n"), thinkOpen)
		if !leadingThink && len(whole.Calls) == 0 && (whole.Content != in || whole.Reasoning != "") {
			t.Fatalf("%q: no think block and no call, but got %s", in, whole)
		}
		if !textCalls && len(whole.Calls) > 0 {
			t.Fatalf("%q: calls off, but got %v", in, whole.Calls)
		}
		for _, c := range whole.Calls {
			var args map[string]any
			if !slicesContainTool(filterTools, c.Name) || json.Unmarshal([]byte(c.Arguments), &args) != nil || args == nil {
				t.Fatalf("%q: bad call %+v", in, c)
			}
		}
	})
}

func slicesContainTool(tools []llm.Tool, name string) bool {
	for _, t := range tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// BenchmarkContentFilterPlain streams 50,000 small deltas of plain prose,
// the common case, which must pass through without copying.
func BenchmarkContentFilterPlain(b *testing.B) {
	words := []string{"word ", "the ", "model ", "answers, ", "plainly.\n"}
	deltas := make([]string, 50_000)
	for i := range deltas {
		deltas[i] = words[i%len(words)]
	}
	b.ReportAllocs()
	for b.Loop() {
		f := newContentFilter(filterTools, true)
		for _, d := range deltas {
			f.push(d)
		}
		f.flush()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(deltas)), "ns/delta")
}

// BenchmarkContentFilterLongCall streams a call with 1 MB of arguments in
// 16-byte deltas: holding it must stay linear.
func BenchmarkContentFilterLongCall(b *testing.B) {
	body, _ := json.Marshal(strings.Repeat("line of a file, with \"quotes\" and {braces}\n", 24_000))
	in := `<tool_call>{"name": "read_file", "arguments": {"path": ` + string(body) + `}}</tool_call>`
	var deltas []string
	for s := in; len(s) > 0; {
		n := min(len(s), 16)
		deltas = append(deltas, s[:n])
		s = s[n:]
	}
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		f := newContentFilter(filterTools, true)
		var calls int
		for _, d := range deltas {
			calls += len(f.push(d).Calls)
		}
		if calls+len(f.flush().Calls) != 1 {
			b.Fatal("no call")
		}
	}
}

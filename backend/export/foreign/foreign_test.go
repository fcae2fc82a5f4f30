package foreign

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/llm"
)

// The files under testdata/ (see testdata/SOURCES.md):
//
//   - chatgpt_export_parser_branch.json: github.com/mitkury/chatgpt-export-parser,
//     example-conversation.json at f5be928f (MIT licence): a ChatGPT
//     conversation with a branch (an edited user message).
//   - chatgpt_openwebui_importer.json: github.com/yetanotherchris/openwebui-importer,
//     examples/gpt_example.json at fca2812c (MIT licence): a real ChatGPT
//     export (a hidden system message, custom instructions, gpt-4o).
//   - openwebui_importer_chat.json: the same repository,
//     examples/webui-json.json (MIT licence): an Open WebUI chat.
//   - openai_cookbook_toy_chat.jsonl: github.com/openai/openai-cookbook,
//     examples/data/toy_chat_fine_tuning.jsonl at 9172b0ff (MIT licence),
//     its first four lines: OpenAI fine-tuning JSONL.
//
// The rest are made here for the edges: branches, tool and system roles,
// multimodal parts, LM Studio's versions (no LM Studio file with a
// licence that allows copying was found; lmstudio_versions follows the
// shape of lmstudio-js's ChatHistoryData and of files other tools
// parse), and broken files.

func readFile(t *testing.T, name string) Result {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Read(context.Background(), name, data)
	if err != nil {
		t.Fatalf("Read(%s): %v", name, err)
	}
	return res
}

// conversation is what a test checks of one document.
type conversation struct {
	title    string
	model    string
	turns    int
	branches int
	// firstTurns counts the turns that follow none: the versions of the
	// first message.
	firstTurns int
	// activeFinal is the active turn's answer.
	activeFinal string
	leftOut     []string
}

func TestRead(t *testing.T) {
	cases := []struct {
		file   string
		format App
		want   []conversation
	}{
		{"chatgpt_export_parser_branch.json", ChatGPT, []conversation{{
			title: "Sample conversation with branch", model: "gpt-4", turns: 3, branches: 2, firstTurns: 1,
			activeFinal: "Here's how to write a function in JavaScript:", leftOut: []string{}}}},
		{"chatgpt_openwebui_importer.json", ChatGPT, []conversation{{
			title: "How photosynthesis works", model: "gpt-4o", turns: 5, branches: 1, firstTurns: 1,
			activeFinal: "Forests, like ponds, are not sentient", leftOut: []string{"1 custom instructions block"}}}},
		{"chatgpt_edge.json", ChatGPT, []conversation{{
			title: "Odd roles and parts", model: "gpt-4o", turns: 3, branches: 2, firstTurns: 2,
			activeFinal: "It shows a cat; 2**10 = 1024.",
			leftOut:     []string{"1 browsing result", "1 code interpreter output", "1 image not in the file", "1 reasoning block"}}}},
		{"openwebui_importer_chat.json", OpenWebUI, []conversation{{
			title: "🧠 Goldwater Rule Ethics", model: "deepseek/deepseek-chat:free", turns: 1, branches: 1, firstTurns: 1,
			activeFinal: "The principle you''re referring to", leftOut: []string{}}}},
		{"openwebui_branches.json", OpenWebUI, []conversation{{
			title: "Regenerated answer", model: "llama3:8b", turns: 2, branches: 2, firstTurns: 2,
			activeFinal: "Blue.", leftOut: []string{"1 image not in the file"}}}},
		{"lmstudio_versions.conversation.json", LMStudio, []conversation{{
			title: "Regenerated and edited", model: "qwen2.5-7b-instruct", turns: 3, branches: 3, firstTurns: 3,
			activeFinal: "First answer", leftOut: []string{"1 attachment not in the file", "1 reasoning block"}}}},
		{"openai_cookbook_toy_chat.jsonl", OpenAI, []conversation{
			{title: "I fell off my bike today.", turns: 1, branches: 1, firstTurns: 1, activeFinal: "It's great that you're getting exercise outdoors!", leftOut: []string{}},
			{title: "I lost my tennis match today.", turns: 4, branches: 1, firstTurns: 1, activeFinal: "It's easy to learn!", leftOut: []string{}},
			{title: "I lost my book today.", turns: 1, branches: 1, firstTurns: 1, activeFinal: "You can read everything on ebooks these days!", leftOut: []string{}},
			{title: "Imported from OpenAI messages", turns: 1, branches: 1, firstTurns: 1, activeFinal: "You're great!", leftOut: []string{}},
		}},
		{"openai_lines.jsonl", OpenAI, []conversation{{title: "Hi", turns: 1, branches: 1, firstTurns: 1, activeFinal: "Hello!", leftOut: []string{}}}},
		{"openai_tools.json", OpenAI, []conversation{{title: "Weather in Paris? See the map.", turns: 1, branches: 1, firstTurns: 1,
			activeFinal: "It is 18C and cloudy in Paris.", leftOut: []string{"1 image not in the file", "1 inline image"}}}},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			res := readFile(t, tc.file)
			if res.App != tc.format || res.Report.App != tc.format {
				t.Fatalf("format %q (report %q), want %q", res.App, res.Report.App, tc.format)
			}
			if len(res.Documents) != len(tc.want) || len(res.Report.Conversations) != len(tc.want) {
				t.Fatalf("%d documents, %d reported, want %d", len(res.Documents), len(res.Report.Conversations), len(tc.want))
			}
			for i, want := range tc.want {
				doc, rep := res.Documents[i], res.Report.Conversations[i]
				checkDocument(t, doc, tc.format)
				first := 0
				for _, tr := range doc.Turns {
					if tr.ParentTurnID == "" {
						first++
					}
				}
				got := conversation{title: doc.Session.Title, model: doc.Session.Model, turns: rep.Turns, branches: rep.Branches,
					firstTurns: first, activeFinal: activeTurn(doc).FinalText, leftOut: rep.LeftOut}
				if got.title != want.title || got.model != want.model || got.turns != want.turns || len(doc.Turns) != want.turns ||
					got.branches != want.branches || got.firstTurns != want.firstTurns || !strings.HasPrefix(got.activeFinal, want.activeFinal) ||
					!slices.Equal(got.leftOut, want.leftOut) || rep.Title != want.title {
					t.Errorf("conversation %d:\n got %+v\nwant %+v", i, got, want)
				}
			}
		})
	}
}

// checkDocument checks what every document must hold for the store to
// take it: parents before children, seq from 1, the marks of an import.
func checkDocument(t *testing.T, doc export.Document, f App) {
	t.Helper()
	if doc.Format != export.FormatName || doc.Session.ID == "" || doc.Session.ActiveTurnID == "" {
		t.Fatalf("document head %+v", doc.Session)
	}
	seen := map[string]bool{}
	for i, tr := range doc.Turns {
		if tr.Seq != i+1 || tr.ID == "" || (tr.ParentTurnID != "" && !seen[tr.ParentTurnID]) {
			t.Fatalf("turn %d: seq %d, parent %q before it: %v", i, tr.Seq, tr.ParentTurnID, seen[tr.ParentTurnID])
		}
		seen[tr.ID] = true
		if string(tr.Run) != `{"imported_from":"`+string(f)+`"}` {
			t.Errorf("turn %d run %s", i, tr.Run)
		}
		if tr.State != export.StateCompleted || tr.CompletedAt == nil || tr.StartedAt.IsZero() && !doc.Session.CreatedAt.IsZero() {
			t.Errorf("turn %d: state %s, times %v %v", i, tr.State, tr.StartedAt, tr.CompletedAt)
		}
	}
	if !seen[doc.Session.ActiveTurnID] {
		t.Errorf("active turn %s is not a turn of the document", doc.Session.ActiveTurnID)
	}
}

func activeTurn(doc export.Document) export.Turn {
	for _, tr := range doc.Turns {
		if tr.ID == doc.Session.ActiveTurnID {
			return tr
		}
	}
	return export.Turn{}
}

// TestReadKeepsRolesAndParts: system prompts open the first turn, tool
// calls and their results stay paired, images are named as missing, and
// times and models are kept.
func TestReadKeepsRolesAndParts(t *testing.T) {
	tools := readFile(t, "openai_tools.json").Documents[0].Turns[0]
	roles := []llm.Role{}
	for _, m := range tools.Messages {
		roles = append(roles, m.Role)
	}
	if want := []llm.Role{"system", "user", "assistant", "tool", "assistant"}; !slices.Equal(roles, want) {
		t.Fatalf("roles %v, want %v", roles, want)
	}
	if tc := tools.Messages[2].ToolCalls; len(tc) != 1 || tc[0].ID != "call_1" || tc[0].Name != "get_weather" || tc[0].Arguments != `{"city":"Paris"}` {
		t.Errorf("tool calls %+v", tc)
	}
	if m := tools.Messages[3]; m.ToolCallID != "call_1" || m.Content != "18C, cloudy" {
		t.Errorf("tool result %+v", m)
	}
	if !strings.Contains(tools.UserMessage, "[missing attachment: image https://example.org/map.png]") {
		t.Errorf("user message %q does not name the missing image", tools.UserMessage)
	}

	edge := readFile(t, "chatgpt_edge.json").Documents[0]
	first := edge.Turns[0]
	if first.Messages[0].Role != llm.RoleSystem || first.Messages[0].Content != "Be brief." {
		t.Errorf("first turn opens with %+v, want the system prompt", first.Messages[0])
	}
	if !strings.Contains(first.UserMessage, "[missing attachment: image file-abc123]") || !strings.Contains(first.UserMessage, "compute 2**10") {
		t.Errorf("multimodal user message %q", first.UserMessage)
	}
	if code := first.Messages[2]; code.Role != llm.RoleAssistant || code.Content != "```python\nprint(2**10)\n```" {
		t.Errorf("code message %+v", code)
	}
	if got := edge.Turns[1].Model; got != "gpt-4o-mini" {
		t.Errorf("the second version's model %q, want its own", got)
	}
	if got := first.StartedAt.Unix(); got != 1704067300 {
		t.Errorf("started at %d, want the user message's time", got)
	}
	if got := edge.Session.CreatedAt.UnixMilli(); got != 1704067200500 {
		t.Errorf("session created %d ms", got)
	}
}

// TestReadRefusesBrokenFiles: a file that cannot be read is refused,
// naming the place.
func TestReadRefusesBrokenFiles(t *testing.T) {
	cases := []struct {
		name, content, file string
		want                string
	}{
		{name: "wrong kind", file: "chatgpt_broken_parts.json", want: "chatgpt_broken_parts.json[1].mapping.y.message.content.parts is a number where a list was expected"},
		{name: "cut short", file: "chatgpt_truncated.json", want: "chatgpt_truncated.json:4:1: is not valid JSON"},
		{name: "jsonl line", file: "openai_broken.jsonl", want: "openai_broken.jsonl:2:"},
		{name: "unknown role", content: `[{"role":"user","content":"hi"},{"role":"critic","content":"no"}]`, want: "x.json[1].role is \"critic\""},
		{name: "chatgpt role", content: `[{"mapping":{"a":{"parent":null,"children":[],"message":{"author":{"role":"robot"},"content":{"content_type":"text","parts":["x"]}}}}}]`,
			want: "x.json[0].mapping.a.message.author.role is \"robot\""},
		{name: "missing parent", content: `[{"mapping":{"a":{"parent":"zz","children":[]}}}]`, want: "x.json[0].mapping.a.parent names node \"zz\""},
		{name: "current node", content: `[{"mapping":{},"current_node":"q"}]`, want: "x.json[0].current_node names node \"q\""},
		{name: "open webui parent", content: `{"chat":{"history":{"currentId":"","messages":{"m":{"parentId":"nope","role":"user","content":"x"}}}}}`,
			want: "x.json: chat.history.messages.m.parentId names message \"nope\""},
		{name: "lm studio selection", content: `{"name":"n","messages":[{"versions":[{"role":"user","content":[]}],"currentlySelected":3}]}`,
			want: "x.json: messages[0].currentlySelected is 3"},
		{name: "jsonl conversation", content: "{\"messages\":[{\"role\":\"user\",\"content\":\"a\"}]}\n{\"messages\":[{\"role\":\"user\",\"content\":7}]}\n",
			want: "x.json:2: messages[0].content is neither text nor a list of parts"},
		{name: "a cycle", content: `[{"mapping":{"a":{"parent":"b","children":["b"],"message":{"author":{"role":"user"},"content":{"content_type":"text","parts":["x"]}}},"b":{"parent":"a","children":["a"]}}}]`,
			want: "x.json[0].mapping.a.parent makes a loop"},
		{name: "empty", content: "  ", want: "x.json is empty"},
		{name: "not json", content: "hello", want: "x.json is not JSON or JSONL"},
		{name: "empty list", content: "[]", want: "x.json is an empty list"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data, name := []byte(tc.content), "x.json"
			if tc.file != "" {
				var err error
				if data, err = os.ReadFile(filepath.Join("testdata", tc.file)); err != nil {
					t.Fatal(err)
				}
				name = tc.file
			}
			_, err := Read(context.Background(), name, data)
			if apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(err.Error(), tc.want) || !strings.Contains(strings.ToLower(err.Error()), "nothing was imported") {
				t.Fatalf("Read: %v, want an invalid-file error naming %q", err, tc.want)
			}
		})
	}
}

func TestDetect(t *testing.T) {
	cases := map[string]App{
		`{"format":"agentdeck-session","version":5,"session":{}}`:                             Ours,
		`[{"title":"t","mapping":{},"current_node":null}]`:                                    ChatGPT,
		`[{"id":"1","title":"t","chat":{"history":{"messages":{}}}}]`:                         OpenWebUI,
		`{"title":"t","history":{"messages":{},"currentId":null}}`:                            OpenWebUI,
		`{"name":"n","messages":[{"versions":[],"currentlySelected":0}]}`:                     LMStudio,
		`[{"role":"user","content":"hi"}]`:                                                    OpenAI,
		`{"messages":[{"role":"user","content":"hi"}]}`:                                       OpenAI,
		"{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"assistant\",\"content\":\"b\"}\n": OpenAI,
	}
	for content, want := range cases {
		got, err := Detect([]byte(content))
		if err != nil || got != want {
			t.Errorf("Detect(%.40s) = %q, %v; want %q", content, got, err, want)
		}
	}
}

// TestReadSkipsEmptyConversations: a conversation with no message with
// text makes no session, and the report names it.
func TestReadSkipsEmptyConversations(t *testing.T) {
	data := `[{"title":"Blank","mapping":{"r":{"parent":null,"children":[],"message":null}}},
		{"title":"Said something","mapping":{"a":{"parent":null,"children":[],"message":{"author":{"role":"user"},"content":{"content_type":"text","parts":["hi"]}}}}}]`
	res, err := Read(context.Background(), "x.json", []byte(data))
	if err != nil || len(res.Documents) != 1 || res.Documents[0].Session.Title != "Said something" || !slices.Equal(res.Report.Empty, []string{"Blank"}) {
		t.Fatalf("Read: %+v %v", res.Report, err)
	}
}

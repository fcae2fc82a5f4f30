package store

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// -update rewrites the golden files. Another test file of the package may
// define the flag first; then its value is read.
var exportUpdate = func() func() bool {
	if f := flag.Lookup("update"); f != nil {
		return func() bool { return f.Value.String() == "true" }
	}
	p := flag.Bool("update", false, "rewrite the golden files in testdata")
	return func() bool { return *p }
}()

func TestParseExportFormat(t *testing.T) {
	tests := []struct {
		in   string
		want ExportFormat
		ok   bool
	}{
		{"json", ExportJSON, true},
		{".JSON", ExportJSON, true},
		{"md", ExportMarkdown, true},
		{" Markdown ", ExportMarkdown, true},
		{"jsonl", ExportJSONL, true},
		{".jsonl", ExportJSONL, true},
		{"csv", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseExportFormat(tt.in)
			if (err == nil) != tt.ok || got != tt.want {
				t.Fatalf("ParseExportFormat(%q) = %q, %v", tt.in, got, err)
			}
			if err != nil && apperr.CodeOf(err) != apperr.Invalid {
				t.Fatalf("code %s", apperr.CodeOf(err))
			}
			if tt.ok && got.Extension() != "."+string(tt.want) {
				t.Fatalf("extension %q", got.Extension())
			}
		})
	}
}

func TestExportErrors(t *testing.T) {
	db := mustOpen(t)
	s := newSession(t, db, "s")
	var buf bytes.Buffer
	if err := db.Export(ctx, "nope", ExportJSON, &buf, ExportOptions{}); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("missing session: %v", err)
	}
	if err := db.Export(ctx, s.ID, "pdf", &buf, ExportOptions{}); apperr.CodeOf(err) != apperr.Invalid {
		t.Fatalf("unknown format: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := db.Export(cancelled, s.ID, ExportMarkdown, &buf, ExportOptions{}); err == nil {
		t.Fatal("a cancelled export succeeded")
	}
	err := db.Export(ctx, s.ID, ExportJSON, failingWriter{}, ExportOptions{})
	if apperr.CodeOf(err) != apperr.Unavailable || !strings.Contains(apperr.MessageOf(err), "Writing the export failed") {
		t.Fatalf("write failure: %v", err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, os.ErrPermission }

// TestExportGolden renders a fixed session (imported from exportFixture,
// so every id and time is known) as Markdown and JSONL.
func TestExportGolden(t *testing.T) {
	db := mustOpen(t)
	s, err := db.Import(ctx, bytes.NewReader(exportFixtureJSON(t, exportFixture())))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []ExportFormat{ExportMarkdown, ExportJSONL} {
		t.Run(string(f), func(t *testing.T) {
			var buf bytes.Buffer
			if err := db.Export(ctx, s.ID, f, &buf, ExportOptions{}); err != nil {
				t.Fatal(err)
			}
			exportGolden(t, filepath.Join("testdata", "export", "session"+f.Extension()), buf.Bytes())
		})
	}
}

func exportGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if exportUpdate() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (run with -update to accept):\n%s", path, got)
	}
}

func TestExportMarkdownContent(t *testing.T) {
	db := mustOpen(t)
	s, err := db.Import(ctx, bytes.NewReader(exportFixtureJSON(t, exportFixture())))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := db.Export(ctx, s.ID, ExportMarkdown, &buf, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{
		"# Sales \\& forecasts",
		"### You\n\nWhat were sales by month?",
		"### Assistant",
		"- Called `read_file`",
		"```json\n  {\n    \"path\": \"sales.csv\"\n  }\n  ```",
		"Result (first 2000 of ",
		"- [x] Read the data",
		"- [ ] Draw a chart _(running)_",
		"#### Chart: Sales by month",
		`"$schema": "https://vega.github.io/schema/vega-lite/v5.json"`,
		"| Stage | Agent | Outcome | Termination | Tokens in/out | Duration |",
		"| research | researcher | succeeded | max\\_iterations\\_reached (5/5) | 1200 / 300 | 2.5 s |",
		"_Stopped — partial answer_",
		"_Failed: the model server did not answer \\| try again_",
		"_Interrupted: Agentdeck stopped during this turn — partial answer_",
		"Partial answer so far",
		"- [ ] Fit a trend _(running)_",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the transcript lacks %q", want)
		}
	}
	// The stopped answer's open fence is closed before the next turn.
	if i := strings.Index(md, "func main() {"); i < 0 || !strings.HasPrefix(md[i:], "func main() {\n```\n\n_Stopped") {
		t.Errorf("the open fence of the stopped answer is not closed:\n%s", md[max(i, 0):])
	}
	// The long tool result is cut, and its ``` cannot end the block.
	if strings.Contains(md, "2020-10,") || !strings.Contains(md, "2000-01,1000") {
		t.Error("the tool result is not truncated")
	}
	if !strings.Contains(md, "  ````\n") {
		t.Error("the tool result block's fence is not longer than the backticks in it")
	}
}

func TestMarkdownRepair(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "hello *world*", "hello *world*"},
		{"closed fence", "```go\nx\n```\nafter", "```go\nx\n```\nafter"},
		{"open fence", "```go\nfunc main() {", "```go\nfunc main() {\n```"},
		{"open long fence", "````\n```\nx", "````\n```\nx\n````"},
		{"open tilde fence", "~~~\nx", "~~~\nx\n~~~"},
		{"indented four is code, not a fence", "    ```\nx", "    ```\nx"},
		{"inline backticks are not a fence", "use ```x``` here", "use ```x``` here"},
		{"unclosed pre", "<pre>\nraw", "\\<pre>\nraw"},
		{"closed pre", "<pre>\nraw\n</pre>", "<pre>\nraw\n</pre>"},
		{"unclosed comment", "<!-- note\nmore", "\\<!-- note\nmore"},
		{"closed comment", "<!-- note -->", "<!-- note -->"},
		{"html in a fence is code", "```\n<pre>\n```", "```\n<pre>\n```"},
		{"other html ends at a blank line", "<div>\nx", "<div>\nx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mdRepair(tt.in); got != tt.want {
				t.Fatalf("mdRepair(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestMarkdownCode(t *testing.T) {
	tests := []struct{ name, content, fence string }{
		{"no backticks", "x := 1", "```"},
		{"a fence inside", "```go\nx\n```", "````"},
		{"a long run", "a ````` b", "``````"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			mdCodeBlock(&b, "", "", tt.content)
			want := tt.fence + "\n" + tt.content + "\n" + tt.fence + "\n\n"
			if b.String() != want {
				t.Fatalf("got %q, want %q", b.String(), want)
			}
		})
	}
	inline := map[string]string{"read_file": "`read_file`", "a`b": "``a`b``", "`x": "`` `x ``", "two\nlines": "`two lines`"}
	for in, want := range inline {
		if got := mdCode(in); got != want {
			t.Errorf("mdCode(%q) = %q, want %q", in, got, want)
		}
	}
	if got := mdEscape("a|b *c* <d> #1\nnext"); got != `a\|b \*c\* \<d\> \#1 next` {
		t.Errorf("mdEscape = %q", got)
	}
}

func TestExportJSONL(t *testing.T) {
	db := mustOpen(t)
	s, err := db.Import(ctx, bytes.NewReader(exportFixtureJSON(t, exportFixture())))
	if err != nil {
		t.Fatal(err)
	}
	storeTurn(t, db, s.ID, "Thanks, and April?", "April was flat.")
	var buf bytes.Buffer
	if err := db.Export(ctx, s.ID, ExportJSONL, &buf, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	// Completed turns: 1 and the one just stored; 2 to 4 did not complete.
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2:\n%s", len(lines), buf.String())
	}
	type message struct {
		Role      string `json:"role"`
		Content   string `json:"content"`
		ToolCalls []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
		ToolCallID string `json:"tool_call_id"`
		Weight     *int   `json:"weight"`
	}
	var prev []message
	for i, line := range lines {
		var l struct {
			Messages []message `json:"messages"`
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			t.Fatalf("line %d: %v\n%s", i+1, err, line)
		}
		msgs := l.Messages
		if len(msgs) <= len(prev) || msgs[0].Role != "user" || msgs[len(msgs)-1].Role != "assistant" || msgs[len(msgs)-1].Weight != nil {
			t.Fatalf("line %d is not a conversation ending in a trained answer: %+v", i+1, msgs)
		}
		for j := range prev {
			if msgs[j].Role != prev[j].Role || msgs[j].Content != prev[j].Content {
				t.Fatalf("line %d does not continue line %d at message %d", i+1, i, j)
			}
			if msgs[j].Role == "assistant" && (msgs[j].Weight == nil || *msgs[j].Weight != 0) {
				t.Fatalf("line %d: earlier answer %d is trained again", i+1, j)
			}
		}
		calls := map[string]bool{}
		for _, m := range msgs {
			switch m.Role {
			case "user", "assistant":
				for _, c := range m.ToolCalls {
					if c.ID == "" || c.Type != "function" || c.Function.Name == "" || !json.Valid([]byte(c.Function.Arguments)) {
						t.Fatalf("line %d: bad tool call %+v", i+1, c)
					}
					calls[c.ID] = true
				}
			case "tool":
				if !calls[m.ToolCallID] {
					t.Fatalf("line %d: tool message answers no call: %+v", i+1, m)
				}
			default:
				t.Fatalf("line %d: role %q", i+1, m.Role)
			}
		}
		prev = msgs
	}
	if !strings.Contains(lines[0], `"name":"read_file"`) || !strings.Contains(lines[1], "Partial answer so far") || !strings.Contains(lines[1], "April was flat.") {
		t.Fatalf("lines lack the expected content:\n%s", buf.String())
	}
}

// TestExportHoldsNoSecrets: an export holds only the session's own rows,
// never settings, provider definitions or anything from the environment.
func TestExportHoldsNoSecrets(t *testing.T) {
	const (
		settingKey  = "sk-setting-5f1e8a7c0b3d4e2f9a6b"
		providerKey = "sk-provider-9c2d7e4a1b8f3c6d5e0a"
		envKey      = "sk-env-3a9f1c7e5b2d8a4c6e0f"
	)
	t.Setenv("OPENAI_API_KEY", envKey)
	t.Setenv("AGENTDECK_API_KEY", envKey)
	db := mustOpen(t)
	if _, err := db.writer.Exec(`INSERT INTO settings (key, value) VALUES ('provider.openai.api_key', ?)`, `"`+settingKey+`"`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.writer.Exec(`INSERT INTO providers (name, definition) VALUES ('openai', ?)`, `{"base_url":"https://api.openai.com/v1","api_key":"`+providerKey+`"}`); err != nil {
		t.Fatal(err)
	}
	s, err := db.Import(ctx, bytes.NewReader(exportFixtureJSON(t, exportFixture())))
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := storeTurn(t, db, s.ID, "hello", "hi")
	if err := db.Captures(tr.ID).PutCapture(ctx, &llm.Capture{Key: "cap-1", Model: "m", Request: json.RawMessage(`{"model":"m"}`)}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []ExportFormat{ExportJSON, ExportMarkdown, ExportJSONL} {
		t.Run(string(f), func(t *testing.T) {
			var buf bytes.Buffer
			if err := db.Export(ctx, s.ID, f, &buf, ExportOptions{Captures: true}); err != nil {
				t.Fatal(err)
			}
			for _, secret := range []string{settingKey, providerKey, envKey, "sk-"} {
				if bytes.Contains(buf.Bytes(), []byte(secret)) {
					t.Fatalf("the %s export contains %q", f, secret)
				}
			}
		})
	}
}

// exportFixture is a session with every kind of turn, with fixed ids and
// times: a completed turn with a tool call, a plan, a chart and one stage;
// a stopped one with two stages and an open code fence; a failed one; and
// one still running.
func exportFixture() exportDoc {
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	at := func(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }
	ptr := func(t time.Time) *time.Time { return &t }
	raw := func(v any) json.RawMessage {
		b, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		return b
	}
	seqs := map[string]int64{}
	ev := func(tr, stage string, sec int, typ turn.EventType, data any) turn.Event {
		seqs[tr]++
		if data == nil {
			data = json.RawMessage(`{}`)
		}
		return turn.Event{ID: fmt.Sprintf("%s-e%d", tr, seqs[tr]), SessionID: "sess-fixture", TurnID: tr, StageID: stage, Seq: seqs[tr],
			At: turn.Time{Time: at(sec)}, Type: typ, Phase: turn.PhaseOf(typ), Checkpoint: turn.IsCheckpoint(typ), Data: raw(data)}
	}
	stage := func(id, name, ag string, out turn.Outcome, term turn.Termination, in, outTok int, ms int64) exportStage {
		return exportStage{ID: id, Name: name, Agent: ag, Phase: "", Outcome: out, Termination: raw(term), Response: json.RawMessage(`null`),
			Diagnostics: raw(turn.StageDiagnostics{DurationMS: ms, Usage: llm.Usage{InputTokens: in, OutputTokens: outTok, TotalTokens: in + outTok}})}
	}
	var rows strings.Builder
	for i := range 250 {
		fmt.Fprintf(&rows, "%d-%02d,%d\n", 2000+i/12, i%12+1, 1000+i*7)
	}
	longResult := "month,sales\n```\n" + rows.String()
	chart := json.RawMessage(`{"$schema":"https://vega.github.io/schema/vega-lite/v5.json","mark":"bar","encoding":{"x":{"field":"month"},"y":{"field":"sales","type":"quantitative"}}}`)
	plan := []turn.PlanStep{{Title: "Read the data", Status: "done"}, {Title: "Draw a chart", Status: "running"}}

	t1 := exportTurn{ID: "turn-1", Seq: 1, UserMessage: "What were sales by month? Use `sales.csv`.", State: StateCompleted, Workflow: "chat", Model: "m",
		StartedAt: at(0), CompletedAt: ptr(at(5)), FinalText: "Sales peaked in **March**.", Outcome: turn.OutcomeSucceeded,
		Termination: raw(turn.Termination{Kind: turn.TermNaturalCompletion}),
		Result:      raw(turn.TurnCompletedData{Result: turn.Result{OK: true, FinalText: "Sales peaked in **March**.", PlanSteps: plan, Outcome: turn.OutcomeSucceeded}}),
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: "What were sales by month? Use `sales.csv`."},
			{Role: llm.RoleAssistant, Content: "Let me read the file.", ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "read_file", Arguments: `{"path":"sales.csv"}`}}},
			{Role: llm.RoleTool, ToolCallID: "call_1", Name: "read_file", Content: longResult},
			{Role: llm.RoleAssistant, Content: "Sales peaked in **March**.\n\n```python\nprint(max(sales))\n```"},
		},
		Stages: []exportStage{stage("turn-1", "chat", "assistant", turn.OutcomeSucceeded, turn.Termination{Kind: turn.TermNaturalCompletion}, 800, 120, 850)},
		ModelCalls: []exportModelCall{{StageID: "turn-1", Idx: 0, Model: "m", StartedAt: at(1), DurationMS: 400, TTFTMS: 90, InputTokens: 400, OutputTokens: 60, OK: true},
			{StageID: "turn-1", Idx: 1, Model: "m", StartedAt: at(3), DurationMS: 450, TTFTMS: 80, InputTokens: 400, OutputTokens: 60, OK: true}},
		ToolCalls: []exportToolCall{{StageID: "turn-1", CallID: "call_1", Name: "read_file", Arguments: `{"path":"sales.csv"}`, ResultSize: len(longResult), StartedAt: at(2), DurationMS: 12, OK: true}},
		Approvals: []exportApproval{{CallID: "call_1", Tool: "read_file", Args: `{"path":"sales.csv"}`, Guard: "workspace", Answer: "allow", At: at(2)}},
	}
	t1.Events = []turn.Event{
		ev("turn-1", "turn-1", 1, turn.EventPlanGenerated, turn.PlanData{Steps: plan}),
		ev("turn-1", "turn-1", 1, turn.EventThinkStart, nil),
		ev("turn-1", "turn-1", 1, turn.EventToken, turn.TokenData{Text: "Let me read the file."}),
		ev("turn-1", "turn-1", 2, turn.EventThinkEnd, turn.ThinkEndData{PromptTokens: 400, CompletionTokens: 60}),
		ev("turn-1", "turn-1", 2, turn.EventToolCall, turn.ToolCallData{CallID: "call_1", Name: "read_file", Args: json.RawMessage(`{"path":"sales.csv"}`)}),
	}
	res := ev("turn-1", "turn-1", 2, turn.EventToolResult, turn.ToolResultData{CallID: "call_1", Name: "read_file", Output: longResult, DurationMS: 12})
	res.ParentID = t1.Events[4].ID
	t1.Events = append(t1.Events, res,
		ev("turn-1", "turn-1", 3, turn.EventChart, turn.ChartData{Spec: chart, Title: "Sales by month"}),
		ev("turn-1", "turn-1", 4, turn.EventFinalAnswer, turn.FinalAnswerData{Text: "Sales peaked in **March**."}),
		ev("turn-1", "", 5, turn.EventTurnCompleted, json.RawMessage(t1.Result)),
	)

	t2 := exportTurn{ID: "turn-2", Seq: 2, UserMessage: "Write a long report", State: StateCancelled, Workflow: "research", Model: "m",
		StartedAt: at(60), CompletedAt: ptr(at(70)), FinalText: "Here is the start:", Outcome: turn.OutcomeCancelled,
		Termination: raw(turn.Termination{Kind: turn.TermCancelled}),
		Result:      raw(turn.TurnCompletedData{Result: turn.Result{Cancelled: true, FinalText: "Here is the start:", Outcome: turn.OutcomeCancelled}}),
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: "Write a long report"},
			{Role: llm.RoleAssistant, Content: "Here is the start:\n\n```go\nfunc main() {"},
		},
		Stages: []exportStage{
			stage("stage-2a", "research", "researcher", turn.OutcomeSucceeded, turn.Termination{Kind: turn.TermMaxIterations, Limit: 5, Used: 5}, 1200, 300, 2500),
			stage("stage-2b", "writer", "writer", turn.OutcomeCancelled, turn.Termination{Kind: turn.TermCancelled}, 500, 40, 300),
		},
		ModelCalls: []exportModelCall{{StageID: "stage-2a", Idx: 0, Model: "m", StartedAt: at(61), DurationMS: 2500, InputTokens: 1200, OutputTokens: 300, OK: true}},
		ToolCalls:  []exportToolCall{},
	}
	t2.Events = []turn.Event{
		ev("turn-2", "stage-2a", 60, turn.EventStageStart, nil),
		ev("turn-2", "stage-2a", 63, turn.EventStageEnd, nil),
		ev("turn-2", "stage-2b", 63, turn.EventStageStart, nil),
		ev("turn-2", "stage-2b", 70, turn.EventCancelled, turn.CancelledData{PartialText: "Here is the start:"}),
		ev("turn-2", "", 70, turn.EventTurnCompleted, json.RawMessage(t2.Result)),
	}

	t3 := exportTurn{ID: "turn-3", Seq: 3, UserMessage: "Summarise <pre> blocks", State: StateFailed, Workflow: "chat", Model: "m",
		StartedAt: at(120), CompletedAt: ptr(at(121)), Outcome: turn.OutcomeFailed,
		Termination: raw(turn.Termination{Kind: turn.TermFailed, Error: "the model server did not answer | try again"}),
		Result:      raw(turn.TurnCompletedData{Result: turn.Result{Error: "the model server did not answer | try again", Outcome: turn.OutcomeFailed}}),
		Messages:    []llm.Message{{Role: llm.RoleUser, Content: "Summarise <pre> blocks"}},
		Stages:      []exportStage{stage("turn-3", "chat", "assistant", turn.OutcomeFailed, turn.Termination{Kind: turn.TermFailed, Error: "the model server did not answer | try again"}, 0, 0, 0)},
		ModelCalls:  []exportModelCall{{StageID: "turn-3", Model: "m", StartedAt: at(120), DurationMS: 1000, Error: "connection refused"}},
		ToolCalls:   []exportToolCall{},
	}
	t3.Events = []turn.Event{
		ev("turn-3", "", 121, turn.EventError, turn.ErrorData{Source: "llm", Message: "the model server did not answer | try again"}),
		ev("turn-3", "", 121, turn.EventTurnCompleted, json.RawMessage(t3.Result)),
	}

	t4 := exportTurn{ID: "turn-4", Seq: 4, UserMessage: "And the forecast?", State: StateRunning, Workflow: "chat", Model: "m",
		StartedAt: at(180), Termination: json.RawMessage(`{}`), Result: json.RawMessage(`{}`),
		Messages: []llm.Message{}, Stages: []exportStage{}, ModelCalls: []exportModelCall{}, ToolCalls: []exportToolCall{}}
	t4.Events = []turn.Event{
		ev("turn-4", "", 180, turn.EventPlanGenerated, turn.PlanData{Steps: []turn.PlanStep{{Title: "Fit a trend", Status: "running"}}}),
		ev("turn-4", "", 181, turn.EventThinkStart, nil),
		ev("turn-4", "", 181, turn.EventToken, turn.TokenData{Text: "Partial answer "}),
		ev("turn-4", "", 182, turn.EventToken, turn.TokenData{Text: "so far"}),
	}

	return exportDoc{Format: exportFormatName, Version: ExportVersion, ExportedAt: at(200), AppVersion: "test",
		Session: exportSession{ID: "sess-fixture", Title: "Sales & forecasts", CreatedAt: t0, UpdatedAt: at(180), Provider: "local",
			Model: "m", Workflow: "chat", Workspace: "/tmp/ws", Settings: json.RawMessage(`{"temperature":0.2}`)},
		Turns: []exportTurn{t1, t2, t3, t4}}
}

func exportFixtureJSON(t *testing.T, doc exportDoc) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := writeJSON(&buf, &doc); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

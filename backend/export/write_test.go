package export_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/export/exporttest"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

// The store is the Source the app and the command line export from.
var _ export.Source = (*store.DB)(nil)

var ctx = context.Background()

// -update rewrites the golden files.
var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestExportErrors(t *testing.T) {
	db := openStore(t)
	s := newSession(t, db, "s")
	var buf bytes.Buffer
	if err := export.Write(ctx, db, "nope", export.JSON, &buf, export.Options{}); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("missing session: %v", err)
	}
	if err := export.Write(ctx, db, s.ID, "pdf", &buf, export.Options{}); apperr.CodeOf(err) != apperr.Invalid {
		t.Fatalf("unknown format: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := export.Write(cancelled, db, s.ID, export.Markdown, &buf, export.Options{}); err == nil {
		t.Fatal("a cancelled export succeeded")
	}
	err := export.Write(ctx, db, s.ID, export.JSON, failingWriter{}, export.Options{})
	if apperr.CodeOf(err) != apperr.Unavailable || !strings.Contains(apperr.MessageOf(err), "Writing the export failed") {
		t.Fatalf("write failure: %v", err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, os.ErrPermission }

// TestExportGolden renders a fixed session (imported from exporttest.Fixture,
// so every id and time is known) as Markdown and JSONL.
func TestExportGolden(t *testing.T) {
	db := openStore(t)
	s, err := db.Import(ctx, bytes.NewReader(exporttest.JSON(t, exporttest.Fixture())))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []export.Format{export.Markdown, export.JSONL} {
		t.Run(string(f), func(t *testing.T) {
			var buf bytes.Buffer
			if err := export.Write(ctx, db, s.ID, f, &buf, export.Options{}); err != nil {
				t.Fatal(err)
			}
			exportGolden(t, filepath.Join("testdata", "export", "session"+f.Extension()), buf.Bytes())
		})
	}
}

func exportGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
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
	db := openStore(t)
	s, err := db.Import(ctx, bytes.NewReader(exporttest.JSON(t, exporttest.Fixture())))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := export.Write(ctx, db, s.ID, export.Markdown, &buf, export.Options{}); err != nil {
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

func TestExportJSONL(t *testing.T) {
	db := openStore(t)
	s, err := db.Import(ctx, bytes.NewReader(exporttest.JSON(t, exporttest.Fixture())))
	if err != nil {
		t.Fatal(err)
	}
	storeTurn(t, db, s.ID, "Thanks, and April?", "April was flat.")
	var buf bytes.Buffer
	if err := export.Write(ctx, db, s.ID, export.JSONL, &buf, export.Options{}); err != nil {
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

// TestExportJSONLFollowsEachBranch: with two versions of the second
// message, each line holds the conversation along its own turn's branch,
// with --all-branches too: no line holds the other version's exchange.
func TestExportJSONLFollowsEachBranch(t *testing.T) {
	doc := exporttest.Chat(
		exporttest.Exchange{ID: "a", User: "one", Answer: "re one"},
		exporttest.Exchange{ID: "b", Parent: "a", User: "two", Answer: "re two"},
		exporttest.Exchange{ID: "c", Parent: "a", User: "two again", Answer: "re two again"},
		exporttest.Exchange{ID: "d", Parent: "c", User: "three", Answer: "re three"},
	)
	tests := []struct {
		name string
		all  bool
		want []string
	}{
		{"active branch", false, []string{
			"one|re one",
			"one|(re one)|two again|re two again",
			"one|(re one)|two again|(re two again)|three|re three",
		}},
		{"all branches", true, []string{
			"one|re one",
			"one|(re one)|two|re two",
			"one|(re one)|two again|re two again",
			"one|(re one)|two again|(re two again)|three|re three",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := jsonlLines(t, doc, tt.all); strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Fatalf("lines:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// jsonlLines imports doc into a new store and exports it as JSONL, each
// line as its messages' text joined by "|", an answer that is context
// only (weight 0) in parentheses.
func jsonlLines(t *testing.T, doc export.Document, all bool) []string {
	t.Helper()
	db := openStore(t)
	s, err := db.Import(ctx, bytes.NewReader(exporttest.JSON(t, doc)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := export.Write(ctx, db, s.ID, export.JSONL, &buf, export.Options{AllBranches: all}); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		var l struct {
			Messages []struct {
				Content string `json:"content"`
				Weight  *int   `json:"weight"`
			} `json:"messages"`
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		var parts []string
		for _, m := range l.Messages {
			if m.Weight != nil && *m.Weight == 0 {
				m.Content = "(" + m.Content + ")"
			}
			parts = append(parts, m.Content)
		}
		lines = append(lines, strings.Join(parts, "|"))
	}
	return lines
}

// openStore opens a new database in a temp dir, closed with the test.
func openStore(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "agentdeck.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func newSession(t *testing.T, db *store.DB, title string) store.Session {
	t.Helper()
	s, err := db.CreateSession(ctx, store.Session{Title: title})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// storeTurn runs a fake completed turn through the store's write path:
// StartTurn, the event log, FinishTurn.
func storeTurn(t *testing.T, db *store.DB, sessionID, user, answer string) {
	t.Helper()
	tr, err := db.StartTurn(ctx, store.Turn{SessionID: sessionID, UserMessage: user, Workflow: "chat", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	log := db.NewEventLog(tr.ID, store.EventLogOptions{})
	rec := &turntest.Recorder{}
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: sessionID, TurnID: tr.ID, Sinks: []turn.Sink{log, rec}})
	res := turn.RunTurn(ctx, em, func(context.Context) turn.Result {
		em.Emit(turn.Draft{Data: turn.ThinkStartData{}})
		for _, w := range strings.SplitAfter(answer, " ") {
			em.Emit(turn.Draft{Data: turn.TokenData{Text: w}})
		}
		em.Emit(turn.Draft{Data: turn.ThinkEndData{}})
		return turn.Result{OK: true, Outcome: turn.OutcomeSucceeded, Termination: turn.Termination{Kind: turn.TermNaturalCompletion}, FinalText: answer,
			Messages:  []llm.Message{{Role: llm.RoleSystem, Content: "sys"}, {Role: llm.RoleUser, Content: user}, {Role: llm.RoleAssistant, Content: answer}},
			PlanSteps: []turn.PlanStep{{Title: "answer", Status: "done"}}}
	})
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.FinishTurn(ctx, tr.ID, 0, res); err != nil {
		t.Fatal(err)
	}
	turntest.Check(t, rec.Events())
}

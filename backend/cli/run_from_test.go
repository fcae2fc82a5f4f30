package cli

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/timeline"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// rerunFixture is a recorded turn to re-run from: it wrote log.txt,
// read it back and answered.
type rerunFixture struct {
	db, ws, turnID string
	srv            *llmtest.Server
}

func cliToolCall(id, name string, args any) llmtest.Reply {
	b, _ := json.Marshal(args)
	return llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, id, name, string(b), 2), "tool_calls")}
}

func newRerunFixture(t *testing.T) rerunFixture {
	t.Helper()
	dir := t.TempDir()
	f := rerunFixture{db: filepath.Join(dir, "a.db"), ws: filepath.Join(dir, "ws"), srv: llmtest.NewServer(t)}
	if err := os.Mkdir(f.ws, 0o700); err != nil {
		t.Fatal(err)
	}
	f.srv.Enqueue(
		cliToolCall("w1", "write_file", map[string]any{"path": "log.txt", "content": "ran\n"}),
		cliToolCall("r1", "read_file", map[string]any{"path": "log.txt"}),
		llmtest.Reply{Chunks: llmtest.Text("The log has one line.", 3)},
	)
	r := agentdeck(t, f.db, f.srv.URL(), nil, nil, "run", "--json", "--workspace", f.ws, "--approve", "all", "Log a line, then read it.")
	if r.code != ExitOK {
		t.Fatalf("the original: exit %d: %s", r.code, r.stderr)
	}
	f.turnID = firstEvent(t, r.stdout).TurnID
	// The side effect is seen again only if it runs again.
	if err := os.Remove(filepath.Join(f.ws, "log.txt")); err != nil {
		t.Fatal(err)
	}
	return f
}

func firstEvent(t *testing.T, ndjson string) turn.Event {
	t.Helper()
	var e turn.Event
	if err := json.Unmarshal([]byte(strings.SplitN(ndjson, "\n", 2)[0]), &e); err != nil {
		t.Fatalf("not NDJSON: %q", ndjson)
	}
	return e
}

// The steps of a turn are listed with their ids; a re-run names its
// source turn and step and where it went live.
func TestTurnsShowListsSteps(t *testing.T) {
	f := newRerunFixture(t)
	r := agentdeck(t, f.db, f.srv.URL(), nil, nil, "turns", "show", f.turnID, "--json")
	var v struct {
		Steps  []timeline.TimelineStep `json:"steps"`
		Events []turn.Event            `json:"events"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || r.code != ExitOK {
		t.Fatalf("turns show: %d %v %s", r.code, err, r.stderr)
	}
	if got, want := stepIDs(v.Steps), "start stage1 call1 tool1 call2 tool2 call3"; got != want {
		t.Fatalf("steps %q, want %q", got, want)
	}
	if s := v.Steps[3]; s.Tool != "write_file" || s.CallID != "w1" || s.RecordedCalls != 1 {
		t.Fatalf("tool1 = %+v", s)
	}
	if v.Events != nil {
		t.Fatal("turns show --json printed the events without --events")
	}
	text := agentdeck(t, f.db, f.srv.URL(), nil, nil, "turns", "show", f.turnID)
	for _, want := range []string{"Steps (re-run from one: agentdeck run --from " + f.turnID + ":STEP):", "  tool1    Tool result 1: write_file (chat)", "  call3    Model call 3 (chat)"} {
		if !strings.Contains(text.stdout, want) {
			t.Errorf("turns show lacks %q:\n%s", want, text.stdout)
		}
	}

	f.srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("Again.", 1)})
	rr := agentdeck(t, f.db, f.srv.URL(), nil, nil, "run", "--json", "--from", f.turnID+":call3")
	id := firstEvent(t, rr.stdout).TurnID
	show := agentdeck(t, f.db, f.srv.URL(), nil, nil, "turns", "show", id, "--json")
	var re struct {
		FromTurnID string             `json:"from_turn_id"`
		FromStep   string             `json:"from_step"`
		LiveFrom   *turn.LiveFromData `json:"live_from"`
	}
	json.Unmarshal([]byte(show.stdout), &re)
	if re.FromTurnID != f.turnID || re.FromStep != "call3" || re.LiveFrom == nil || re.LiveFrom.RecordedCalls != 2 || re.LiveFrom.RecordedTools != 2 {
		t.Fatalf("the re-run's link: %+v %+v (%s)", re, re.LiveFrom, show.stderr)
	}
	text = agentdeck(t, f.db, f.srv.URL(), nil, nil, "turns", "show", id)
	for _, want := range []string{"re-run of " + f.turnID + " from step call3, no edit", "live after 2 recorded model calls and 2 tool results"} {
		if !strings.Contains(text.stdout, want) {
			t.Errorf("turns show of the re-run lacks %q:\n%s", want, text.stdout)
		}
	}
}

func stepIDs(steps []timeline.TimelineStep) string {
	var ids []string
	for _, s := range steps {
		ids = append(ids, s.ID)
	}
	return strings.Join(ids, " ")
}

// run --from with each edit: the model is asked only for what follows the
// step, sent exactly the edited history, and the side effect before the
// step never runs again.
func TestRunFromEachEdit(t *testing.T) {
	f := newRerunFixture(t)
	typed := filepath.Join(t.TempDir(), "result.txt")
	if err := os.WriteFile(typed, []byte("(empty file)"), 0o600); err != nil {
		t.Fatal(err)
	}
	lastOf := func(r llmtest.Request) llmtest.Message { return r.Messages[len(r.Messages)-1] }
	system := func(r llmtest.Request) string {
		var b strings.Builder
		for _, m := range r.Messages {
			if m.Role == "system" {
				b.WriteString(m.Content)
			}
		}
		return b.String()
	}
	tests := []struct {
		name  string
		args  []string
		stdin string
		live  []llmtest.Reply
		// calls is how many model calls the re-run makes; check looks at them.
		calls int
		check func(t *testing.T, reqs []llmtest.Request)
		final string
		edit  string
	}{{
		name: "the message", args: []string{"--from", f.turnID + ":start", "--edit-message", "Only say hi."},
		live: []llmtest.Reply{{Chunks: llmtest.Text("Hi.", 1)}}, calls: 1, final: "Hi.", edit: "message",
		check: func(t *testing.T, reqs []llmtest.Request) {
			if m := lastOf(reqs[0]); m.Role != "user" || m.Content != "Only say hi." {
				t.Errorf("sent %+v, want the edited message", m)
			}
		},
	}, {
		name: "the system prompt", args: []string{"--from", f.turnID + ":start", "--edit-system-prompt", "Answer in French."},
		live: []llmtest.Reply{{Chunks: llmtest.Text("Bonjour.", 1)}}, calls: 1, final: "Bonjour.", edit: "system_prompt",
		check: func(t *testing.T, reqs []llmtest.Request) {
			if !strings.Contains(system(reqs[0]), "Answer in French.") {
				t.Errorf("the system prompt sent lacks the edit: %q", system(reqs[0]))
			}
			if m := lastOf(reqs[0]); m.Content != "Log a line, then read it." {
				t.Errorf("the message changed: %+v", m)
			}
		},
	}, {
		name: "a tool result from a file", args: []string{"--from", f.turnID + ":tool2", "--edit-tool-result", typed},
		live: []llmtest.Reply{{Chunks: llmtest.Text("The log is empty.", 1)}}, calls: 1, final: "The log is empty.", edit: "tool_result",
		check: func(t *testing.T, reqs []llmtest.Request) {
			if m := lastOf(reqs[0]); m.Role != "tool" || m.Content != "(empty file)" {
				t.Errorf("sent %+v, want the typed tool result", m)
			}
		},
	}, {
		name: "a tool result from stdin", args: []string{"--from", f.turnID + ":tool2", "--edit-tool-result", "-"}, stdin: "piped in",
		live: []llmtest.Reply{{Chunks: llmtest.Text("It says piped in.", 1)}}, calls: 1, final: "It says piped in.", edit: "tool_result",
		check: func(t *testing.T, reqs []llmtest.Request) {
			if m := lastOf(reqs[0]); m.Role != "tool" || m.Content != "piped in" {
				t.Errorf("sent %+v, want stdin", m)
			}
		},
	}, {
		name: "a reply", args: []string{"--from", f.turnID + ":call2", "--edit-reply", "I will not read it."},
		calls: 0, final: "I will not read it.", edit: "reply",
	}, {
		name: "the settings", args: []string{"--from", f.turnID + ":call3", "--model", "other-model", "--temperature", "0.25"},
		live: []llmtest.Reply{{Chunks: llmtest.Text("Other.", 1)}}, calls: 1, final: "Other.", edit: "settings",
		check: func(t *testing.T, reqs []llmtest.Request) {
			if reqs[0].Model != "other-model" || reqs[0].Body["temperature"] != 0.25 {
				t.Errorf("sent model %q temperature %v, want the edited settings", reqs[0].Model, reqs[0].Body["temperature"])
			}
			if m := lastOf(reqs[0]); m.Role != "tool" || m.ToolCallID != "r1" {
				t.Errorf("the history before the step changed: %+v", m)
			}
		},
	}, {
		name: "a stage", args: []string{"--from", f.turnID + ":stage1", "--edit-stage", "system_prompt=You are terse.", "--edit-stage", "temperature=0.5"},
		live: []llmtest.Reply{{Chunks: llmtest.Text("Done.", 1)}}, calls: 1, final: "Done.", edit: "stage",
		check: func(t *testing.T, reqs []llmtest.Request) {
			if !strings.Contains(system(reqs[0]), "You are terse.") || reqs[0].Body["temperature"] != 0.5 {
				t.Errorf("sent system %q temperature %v, want the stage edit", system(reqs[0]), reqs[0].Body["temperature"])
			}
		},
	}, {
		name: "a model for the live part, at a tool result", args: []string{"--from", f.turnID + ":tool2", "--model", "other-model"},
		live: []llmtest.Reply{{Chunks: llmtest.Text("Other model.", 1)}}, calls: 1, final: "Other model.",
		check: func(t *testing.T, reqs []llmtest.Request) {
			if reqs[0].Model != "other-model" {
				t.Errorf("the live call used %q, want --model's", reqs[0].Model)
			}
		},
	}, {
		name: "no edit", args: []string{"--from", f.turnID + ":call3"},
		live: []llmtest.Reply{{Chunks: llmtest.Text("Same again.", 1)}}, calls: 1, final: "Same again.",
		check: func(t *testing.T, reqs []llmtest.Request) {
			if reqs[0].Model != "test-model" {
				t.Errorf("the live call used %q, want the original's model", reqs[0].Model)
			}
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(f.srv.Requests())
			f.srv.Enqueue(tc.live...)
			args := append([]string{"run", "--json", "--approve", "all"}, tc.args...)
			var stdin *strings.Reader
			if tc.stdin != "" {
				stdin = strings.NewReader(tc.stdin)
			}
			r := agentdeckIn(t, f.db, f.srv.URL(), nil, nil, readerOrNil(stdin), args...)
			if r.code != ExitOK {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			reqs := f.srv.Requests()[before:]
			if len(reqs) != tc.calls {
				t.Fatalf("%d model calls, want %d (the steps before come from the recordings)", len(reqs), tc.calls)
			}
			if tc.check != nil {
				tc.check(t, reqs)
			}
			id := firstEvent(t, r.stdout).TurnID
			var v struct {
				SessionID, FinalText, FromTurnID, FromEdit string
			}
			show := agentdeck(t, f.db, f.srv.URL(), nil, nil, "turns", "show", id, "--json")
			json.Unmarshal([]byte(strings.NewReplacer("session_id", "SessionID", "final_text", "FinalText", "from_turn_id", "FromTurnID", "from_edit", "FromEdit").Replace(show.stdout)), &v)
			if v.FinalText != tc.final || v.FromTurnID != f.turnID || v.FromEdit != tc.edit {
				t.Errorf("the re-run: %+v, want final %q from %s edit %q", v, tc.final, f.turnID, tc.edit)
			}
			if _, err := os.Stat(filepath.Join(f.ws, "log.txt")); !os.IsNotExist(err) {
				t.Error("the side effect before the step ran again: log.txt was written")
			}
		})
	}
}

func readerOrNil(r *strings.Reader) io.Reader {
	if r == nil {
		return nil
	}
	return r
}

// --no-side-effects answers a side-effecting call the original made the
// same from its result, and refuses one it never made: nothing is written.
func TestRunFromWithoutSideEffects(t *testing.T) {
	f := newRerunFixture(t)
	before := len(f.srv.Requests())
	f.srv.Enqueue(
		cliToolCall("w1", "write_file", map[string]any{"path": "log.txt", "content": "ran\n"}),
		cliToolCall("w2", "write_file", map[string]any{"path": "other.txt", "content": "new\n"}),
		llmtest.Reply{Chunks: llmtest.Text("Logged.", 1)},
	)
	r := agentdeck(t, f.db, f.srv.URL(), nil, nil, "run", "--json", "--approve", "all", "--from", f.turnID+":start", "--edit-message", "Log it twice.", "--no-side-effects")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if n := len(f.srv.Requests()) - before; n != 3 {
		t.Fatalf("%d model calls, want 3", n)
	}
	for _, name := range []string{"log.txt", "other.txt"} {
		if _, err := os.Stat(filepath.Join(f.ws, name)); !os.IsNotExist(err) {
			t.Errorf("%s was written by a re-run without side effects", name)
		}
	}
	var results, refused int
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var e turn.Event
		json.Unmarshal([]byte(line), &e)
		switch e.Type {
		case turn.EventToolResult:
			results++
		case turn.EventToolError:
			refused++
		}
	}
	if results != 1 || refused != 1 {
		t.Fatalf("%d results and %d refusals, want the same call answered and the new one refused", results, refused)
	}
}

// Refs and flags that do not fit say what is wrong, with run's exit codes.
func TestRunFromRefusals(t *testing.T) {
	f := newRerunFixture(t)
	file := filepath.Join(t.TempDir(), "absent.txt")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"not a ref", []string{"--from", f.turnID}, ExitUsage, "is not TURN_ID:STEP"},
		{"no such step", []string{"--from", f.turnID + ":call9"}, ExitUsage, `has no step "call9". Its steps are start, stage1, call1, tool1, call2, tool2, call3.`},
		{"no such turn", []string{"--from", "nosuchturn:start"}, ExitFailed, "There is no turn nosuchturn."},
		{"two edits", []string{"--from", f.turnID + ":start", "--edit-message", "a", "--edit-system-prompt", "b"}, ExitUsage, "a re-run makes one edit, and --edit-message and --edit-system-prompt are 2"},
		{"an edit without --from", []string{"--edit-reply", "x"}, ExitUsage, "pass --from TURN_ID:STEP"},
		{"--no-side-effects without --from", []string{"--no-side-effects", "hello"}, ExitUsage, "pass --from TURN_ID:STEP"},
		{"an edit that does not fit the step", []string{"--from", f.turnID + ":tool1", "--edit-reply", "x"}, ExitUsage, "A reply edit does not fit tool result 1: write_file (chat): a tool result takes an edited result."},
		{"a prompt", []string{"--from", f.turnID + ":start", "new prompt"}, ExitUsage, "run --from takes no PROMPT"},
		{"a session", []string{"--from", f.turnID + ":start", "--session", "x"}, ExitUsage, "--session does not go with --from"},
		{"--system", []string{"--from", f.turnID + ":start", "--system", "x"}, ExitUsage, "pass --edit-system-prompt TEXT"},
		{"sampling and an edit", []string{"--from", f.turnID + ":call2", "--edit-reply", "x", "--temperature", "0.2"}, ExitUsage, "--temperature is a settings edit"},
		{"an unreadable result file", []string{"--from", f.turnID + ":tool1", "--edit-tool-result", file}, ExitUsage, "--edit-tool-result: cannot read " + file},
		{"a stage edit that is not K=V", []string{"--from", f.turnID + ":stage1", "--edit-stage", "terse"}, ExitUsage, `--edit-stage takes KEY=VALUE, not "terse"`},
		{"an unknown stage key", []string{"--from", f.turnID + ":stage1", "--edit-stage", "colour=red"}, ExitUsage, `A stage edit cannot set "colour"`},
		{"an empty message", []string{"--from", f.turnID + ":start", "--edit-message", " "}, ExitUsage, "The edited message is empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(f.srv.Requests())
			r := agentdeck(t, f.db, f.srv.URL(), nil, nil, append([]string{"run"}, tc.args...)...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", r.code, r.stderr, tc.code, tc.want)
			}
			if n := len(f.srv.Requests()) - before; n != 0 {
				t.Fatalf("a refused re-run made %d model calls", n)
			}
		})
	}
}

// turns diff compares a turn with its re-run from the step on: text for
// a terminal and the TurnDiff as JSON.
func TestTurnsDiff(t *testing.T) {
	f := newRerunFixture(t)
	typed := filepath.Join(t.TempDir(), "result.txt")
	os.WriteFile(typed, []byte("(empty file)"), 0o600)
	f.srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("The log is empty.", 1), Usage: &llmtest.Usage{PromptTokens: 40, CompletionTokens: 5, TotalTokens: 45}})
	r := agentdeck(t, f.db, f.srv.URL(), nil, nil, "run", "--json", "--from", f.turnID+":tool2", "--edit-tool-result", typed)
	if r.code != ExitOK {
		t.Fatalf("re-run: exit %d: %s", r.code, r.stderr)
	}
	id := firstEvent(t, r.stdout).TurnID

	js := agentdeck(t, f.db, f.srv.URL(), nil, nil, "turns", "diff", f.turnID, id, "--json")
	var d timeline.TurnDiff
	if err := json.Unmarshal([]byte(js.stdout), &d); err != nil || js.code != ExitOK {
		t.Fatalf("turns diff --json: %d %v %s", js.code, err, js.stderr)
	}
	if d.From != "tool2" || d.A.TurnID != f.turnID || d.B.TurnID != id || len(d.Rows) != 2 {
		t.Fatalf("diff %+v", d)
	}
	tool, call := d.Rows[0], d.Rows[1]
	if tool.Same || tool.A.Text != "\"log.txt\", 1 line:\n1 | ran" || tool.B.Text != "(empty file)" || !tool.B.Edited || tool.Kind != timeline.KindTool {
		t.Errorf("the tool row: %+v A %+v B %+v", tool, tool.A, tool.B)
	}
	if call.Same || call.B.Text != "The log is empty." || call.B.Recorded || call.B.InputTokens != 40 {
		t.Errorf("the call row: %+v B %+v", call, call.B)
	}
	if d.B.Totals.Calls != 1 || d.B.Totals.Tools != 1 || d.B.Totals.InputTokens != 40 {
		t.Errorf("B's totals: %+v", d.B.Totals)
	}

	text := agentdeck(t, f.db, f.srv.URL(), nil, nil, "turns", "diff", f.turnID, id)
	for _, want := range []string{
		"(re-run of A from tool2, edit: tool result)",
		"from step tool2: 2 steps",
		"tool2  tool2  Tool result 2: read_file (chat)  ≠ changed  [B edited]",
		`[-"log.txt", 1 line:⏎1 | ran-]{+(empty file)+}`,
		"call3  call3  Model call 3 (chat)  ≠ changed",
		"The log [-has one line-]{+is empty+}.",
		"  B 40 in / 5 out tokens",
		"totals from tool2",
		"  B  1 model call, 1 tool result · 40 in / 5 out tokens",
	} {
		if !strings.Contains(text.stdout, want) {
			t.Errorf("turns diff lacks %q:\n%s", want, text.stdout)
		}
	}
	if strings.Contains(text.stdout, "\x1b[") {
		t.Error("colour written to a pipe")
	}
	for _, bad := range [][]string{{"turns", "diff", f.turnID}, {"turns", "diff", f.turnID, "nosuchturn"}} {
		if r := agentdeck(t, f.db, f.srv.URL(), nil, nil, bad...); r.code == ExitOK || r.stderr == "" {
			t.Errorf("%v: exit %d, stderr %q", bad, r.code, r.stderr)
		}
	}
}

// replay --help says replay stays offline and where re-running from a
// step is.
func TestReplayHelpPointsToRunFrom(t *testing.T) {
	r := agentdeck(t, filepath.Join(t.TempDir(), "a.db"), "", nil, nil, "replay", "--help")
	for _, want := range []string{"Replay stays offline.", "agentdeck run --from TURN_ID:STEP"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("replay --help lacks %q:\n%s", want, r.stderr)
		}
	}
	r = agentdeck(t, filepath.Join(t.TempDir(), "a.db"), "", nil, nil, "run", "--help")
	for _, want := range []string{"-from TURN_ID:STEP", "-edit-tool-result FILE", "are the edit: the settings of the live calls"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("run --help lacks %q", want)
		}
	}
}

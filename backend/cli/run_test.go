package cli

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/buildinfo"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/paths"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

// syncBuffer is a bytes.Buffer safe to read while a command writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
	// events, if set, is given every line written that is an event (the
	// stdout of run --json), as it is written: a test waits for the
	// event it needs there.
	events *turntest.Recorder
	line   []byte
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	n, err := s.b.Write(p)
	var evs []turn.Event
	if s.events != nil {
		s.line = append(s.line, p...)
		for {
			i := bytes.IndexByte(s.line, '\n')
			if i < 0 {
				break
			}
			var e turn.Event
			if json.Unmarshal(s.line[:i], &e) == nil && e.Type != "" {
				evs = append(evs, e)
			}
			s.line = s.line[i+1:]
		}
	}
	s.mu.Unlock()
	for _, e := range evs {
		s.events.Emit(e)
	}
	return n, err
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type cliRun struct {
	code   int
	stdout string
	stderr string
}

// agentdeck runs the command line in-process against dbPath, with the
// scripted server's URL in the environment.
func agentdeck(t *testing.T, dbPath, baseURL string, signals chan os.Signal, stdout *syncBuffer, args ...string) cliRun {
	t.Helper()
	return agentdeckIn(t, dbPath, baseURL, signals, stdout, nil, args...)
}

// agentdeckIn is agentdeck with stdin.
func agentdeckIn(t *testing.T, dbPath, baseURL string, signals chan os.Signal, stdout *syncBuffer, stdin io.Reader, args ...string) cliRun {
	t.Helper()
	if stdout == nil {
		stdout = &syncBuffer{}
	}
	var stderr syncBuffer
	vars := map[string]string{"OPENAI_BASE_URL": baseURL, "AGENTDECK_MODEL": "test-model", "OPENAI_API_KEY": "sk-test-NEVER-PRINTED", "AGENTDECK_DB": dbPath}
	env := Env{
		Stdin:   stdin,
		Stdout:  stdout,
		Stderr:  &stderr,
		Paths:   paths.Env{GOOS: "linux", Home: t.TempDir(), Getenv: func(k string) string { return vars[k] }},
		Getenv:  func(k string) string { return vars[k] },
		Info:    buildinfo.Info{Version: "test"},
		Signals: signals,
		Exit:    func(int) { t.Fatal("exited at once") },
	}
	code := Main(context.Background(), args, env)
	out := stdout.String()
	if strings.Contains(out+stderr.String(), "NEVER-PRINTED") {
		t.Fatal("the API key was printed")
	}
	return cliRun{code, out, stderr.String()}
}

func TestRunJSONStreamsEventsLineByLine(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("Four. It is two plus two.", 6), Usage: &llmtest.Usage{PromptTokens: 10, CompletionTokens: 7, TotalTokens: 17}})
	db := filepath.Join(t.TempDir(), "a.db")
	r := agentdeck(t, db, srv.URL(), nil, nil, "run", "--json", "What is 2+2?")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var text strings.Builder
	var evs []turn.Event
	for i, line := range lines {
		var e turn.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("line %d is not an event: %q", i, line)
		}
		var m map[string]json.RawMessage
		json.Unmarshal([]byte(line), &m)
		for _, k := range []string{"id", "session_id", "turn_id", "stage_id", "seq", "parent_id", "at", "type", "phase", "checkpoint", "data"} {
			if _, ok := m[k]; !ok {
				t.Fatalf("line %d lacks %q", i, k)
			}
		}
		if e.Type == turn.EventToken {
			text.WriteString(turntest.Data[turn.TokenData](t, e).Text)
		}
		evs = append(evs, e)
	}
	// Seq from 1 with no gap, one terminal event, turn_completed last.
	turntest.Check(t, evs)
	last := evs[len(evs)-1]
	if text.String() != "Four. It is two plus two." {
		t.Fatalf("last %s, text %q", last.Type, text.String())
	}

	show := agentdeck(t, db, srv.URL(), nil, nil, "turns", "show", last.TurnID, "--json", "--events")
	var v map[string]any
	if err := json.Unmarshal([]byte(show.stdout), &v); err != nil || show.code != 0 {
		t.Fatalf("turns show: %d %v %s", show.code, err, show.stdout)
	}
	for _, k := range []string{"state", "final_text", "outcome", "termination", "steps_used", "tool_calls_used", "cancelled", "budget_exhausted", "plan_steps", "stages", "events"} {
		if _, ok := v[k]; !ok {
			t.Errorf("turns show --json lacks %q", k)
		}
	}
	if v["state"] != "completed" || v["final_text"] != "Four. It is two plus two." {
		t.Fatalf("turn %v", v)
	}
}

func TestRunSIGINTStopsAndKeepsThePartialAnswer(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Tokens(5000), Delay: time.Millisecond})
	db := filepath.Join(t.TempDir(), "a.db")
	signals := make(chan os.Signal, 1)
	// Ctrl+C once the 21st token has been printed.
	var once sync.Once
	out := &syncBuffer{events: &turntest.Recorder{OnEmit: func(e turn.Event) {
		if e.Type == turn.EventToken && strings.Contains(string(e.Data), "tok20 ") {
			once.Do(func() { signals <- os.Interrupt })
		}
	}}}
	start := time.Now()
	r := agentdeck(t, db, srv.URL(), signals, out, "run", "--json", "Count forever")
	t.Logf("exited %v after start", time.Since(start))
	if r.code != ExitCancelled {
		t.Fatalf("exit %d, want 130: %s", r.code, r.stderr)
	}
	if _, ok := srv.WaitDisconnect(time.Second); !ok {
		t.Fatal("the model stream was not closed")
	}
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	var turnID string
	var lastType turn.EventType
	for sc.Scan() {
		var e turn.Event
		json.Unmarshal(sc.Bytes(), &e)
		turnID, lastType = e.TurnID, e.Type
	}
	if lastType != turn.EventTurnCompleted {
		t.Fatalf("the NDJSON stream must still end with turn_completed, ended with %s", lastType)
	}
	show := agentdeck(t, db, srv.URL(), nil, nil, "turns", "show", turnID, "--json")
	var v struct {
		State     string `json:"state"`
		FinalText string `json:"final_text"`
		Cancelled bool   `json:"cancelled"`
	}
	json.Unmarshal([]byte(show.stdout), &v)
	if v.State != "cancelled" || !v.Cancelled || !strings.HasPrefix(v.FinalText, "tok0 tok1 ") {
		t.Fatalf("stored turn %+v", v)
	}
}

func TestReplayWorksWithTheServerStopped(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, "c1", "update_plan", `{"steps":[{"title":"Answer","status":"done"}]}`, 3), "tool_calls")},
		llmtest.Reply{Chunks: llmtest.Text("Done with the plan.", 4)},
	)
	db := filepath.Join(t.TempDir(), "a.db")
	r := agentdeck(t, db, srv.URL(), nil, nil, "run", "--json", "Plan and answer")
	if r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	var first turn.Event
	json.Unmarshal([]byte(strings.SplitN(r.stdout, "\n", 2)[0]), &first)
	srv.Close()

	rep := agentdeck(t, db, "http://127.0.0.1:1/v1", nil, nil, "replay", first.TurnID, "--json")
	var report ReplayReport
	if err := json.Unmarshal([]byte(rep.stdout), &report); err != nil {
		t.Fatalf("replay output %q: %v (stderr %s)", rep.stdout, err, rep.stderr)
	}
	if rep.code != 0 || !report.Matched || !report.FinalTextMatch || !report.EventsMatch {
		t.Fatalf("replay: exit %d %+v %s", rep.code, report, rep.stderr)
	}
}

// A turn without recordings says why it cannot be replayed: recording was
// off when it ran, or it was on and the recordings were lost (a salvage
// that could not keep turn_calls): the turn's capture setting tells them
// apart.
func TestReplayOfAnUnrecordedTurnSaysWhy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		capture string
		lose    bool // the turn's recordings are lost after it ran
		want    string
	}{
		{name: "recording off", capture: "off", want: "has no recorded model calls (recording was off when it ran), so it cannot be replayed. Re-run it instead."},
		{name: "recorded, then lost", capture: "record", lose: true, want: "was recorded, but the recordings of its 1 model call are lost: the database was damaged, or salvaged without them. It cannot be replayed; re-run it instead."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("hi", 1)})
			db := filepath.Join(t.TempDir(), "a.db")
			r := agentdeck(t, db, srv.URL(), nil, nil, "run", "--json", "--capture", tt.capture, "Say hi")
			var first turn.Event
			json.Unmarshal([]byte(strings.SplitN(r.stdout, "\n", 2)[0]), &first)
			if tt.lose {
				loseRecordings(t, db)
			}
			rep := agentdeck(t, db, srv.URL(), nil, nil, "replay", first.TurnID)
			if rep.code == ExitOK || !strings.Contains(rep.stderr, tt.want) {
				t.Fatalf("exit %d stderr %q, want %q", rep.code, rep.stderr, tt.want)
			}
			sessions := agentdeck(t, db, srv.URL(), nil, nil, "sessions", "list")
			if strings.Contains(sessions.stdout, "Replay of") {
				t.Fatalf("a replay that could not start left a session behind:\n%s", sessions.stdout)
			}
		})
	}
}

// loseRecordings empties turn_calls, as a salvage that could not read it
// leaves it.
func loseRecordings(t *testing.T, path string) {
	t.Helper()
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if res, err := raw.Exec(`DELETE FROM turn_calls`); err != nil {
		t.Fatal(err)
	} else if n, _ := res.RowsAffected(); n == 0 {
		t.Fatal("the turn recorded nothing to lose")
	}
}

func TestExportsInEachFormat(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("Exported **answer**.", 2)})
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	r := agentdeck(t, db, srv.URL(), nil, nil, "run", "--json", "Export me")
	var first turn.Event
	json.Unmarshal([]byte(strings.SplitN(r.stdout, "\n", 2)[0]), &first)
	for _, f := range []string{"json", "md", "jsonl"} {
		out := filepath.Join(dir, "s."+f)
		e := agentdeck(t, db, srv.URL(), nil, nil, "sessions", "export", first.SessionID, "--format", f, "-o", out)
		b, _ := os.ReadFile(out)
		if e.code != 0 || !strings.Contains(string(b), "Export me") {
			t.Fatalf("%s export: exit %d, %q", f, e.code, b)
		}
	}
	// The JSON export imports back as a copy.
	imp := agentdeck(t, db, srv.URL(), nil, nil, "sessions", "import", filepath.Join(dir, "s.json"), "--json")
	if imp.code != 0 || !strings.Contains(imp.stdout, "(imported)") {
		t.Fatalf("import: %d %s %s", imp.code, imp.stdout, imp.stderr)
	}
	list := agentdeck(t, db, srv.URL(), nil, nil, "sessions", "list", "--json")
	var l struct{ Sessions []map[string]any }
	json.Unmarshal([]byte(list.stdout), &l)
	if len(l.Sessions) != 2 {
		t.Fatalf("sessions list %s", list.stdout)
	}
	search := agentdeck(t, db, srv.URL(), nil, nil, "sessions", "search", "Export", "--json")
	if !strings.Contains(search.stdout, `"hits"`) || !strings.Contains(search.stdout, first.SessionID) {
		t.Fatalf("search %s", search.stdout)
	}
	if del := agentdeck(t, db, srv.URL(), nil, nil, "sessions", "delete", first.SessionID); del.code != 0 {
		t.Fatalf("delete %d %s", del.code, del.stderr)
	}
	check := agentdeck(t, db, srv.URL(), nil, nil, "db", "check")
	if check.code != 0 || !strings.Contains(check.stdout, "integrity: ok") {
		t.Fatalf("db check %d %s", check.code, check.stdout)
	}
	backup := filepath.Join(dir, "backup.db")
	if b := agentdeck(t, db, srv.URL(), nil, nil, "db", "backup", backup); b.code != 0 {
		t.Fatalf("backup %d %s", b.code, b.stderr)
	}
}

func TestRunErrorsAndExitCodes(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.ErrorReply(401, "invalid_api_key", "bad key"))
	db := filepath.Join(t.TempDir(), "a.db")
	tests := []struct {
		name     string
		base     string
		args     []string
		code     int
		mentions string
	}{
		{"no prompt", srv.URL(), []string{"run"}, ExitUsage, "no prompt"},
		{"no server", "", []string{"run", "hi"}, ExitUsage, "--base-url"},
		{"bad approve", srv.URL(), []string{"run", "--approve", "maybe", "hi"}, ExitUsage, "--approve"},
		{"failed turn", srv.URL(), []string{"run", "hi"}, ExitFailed, "API key"},
		{"unknown session", srv.URL(), []string{"run", "--session", "nope", "hi"}, ExitFailed, "no session"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := agentdeck(t, db, tt.base, nil, nil, tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.mentions) {
				t.Fatalf("exit %d (want %d), stderr %q should mention %q", r.code, tt.code, r.stderr, tt.mentions)
			}
			if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic") {
				t.Fatalf("a stack trace reached the user: %s", r.stderr)
			}
		})
	}
}

func TestProvidersAddThenRunWithIt(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("via the provider", 2)})
	db := filepath.Join(t.TempDir(), "a.db")
	if r := agentdeck(t, db, "", nil, nil, "providers", "add", "local", "--base-url", srv.URL(), "--model", "m", "--default"); r.code != 0 {
		t.Fatalf("add: %d %s", r.code, r.stderr)
	}
	list := agentdeck(t, db, "", nil, nil, "providers", "list", "--json")
	if !strings.Contains(list.stdout, `"name": "local"`) {
		t.Fatalf("list %s", list.stdout)
	}
	r := agentdeck(t, db, "", nil, nil, "run", "--provider", "local", "hello")
	if r.code != 0 || !strings.Contains(r.stdout, "via the provider") {
		t.Fatalf("run: %d %q %s", r.code, r.stdout, r.stderr)
	}
	// With no model given (--model= empties AGENTDECK_MODEL's default),
	// the provider's default model is used, as in the window.
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("from the default model", 2)})
	r = agentdeck(t, db, "", nil, nil, "run", "--provider", "local", "--model=", "hello again")
	if r.code != 0 || !strings.Contains(r.stdout, "from the default model") {
		t.Fatalf("run with no model: %d %q %s", r.code, r.stdout, r.stderr)
	}
	if reqs := srv.Requests(); reqs[len(reqs)-1].Model != "m" {
		t.Errorf("the model sent is %q, want the provider's default %q", reqs[len(reqs)-1].Model, "m")
	}
	// No model anywhere: the error says every way to give one.
	if r := agentdeck(t, db, srv.URL(), nil, nil, "run", "--model=", "hello"); r.code != ExitUsage || !strings.Contains(r.stderr, "give the provider a default model") {
		t.Fatalf("run with no model at all: %d %s", r.code, r.stderr)
	}
}

// TestRunShowsReasoningApartFromTheAnswer: a model that thinks before it
// answers. Human output streams the thinking on stderr and only the answer
// on stdout; --json has the reasoning events; the Markdown export folds
// the thinking in a <details> block before the answer.
func TestRunShowsReasoningApartFromTheAnswer(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	think := llmtest.Reply{ReasoningField: "reasoning", Chunks: append([]llmtest.Chunk{{Reasoning: "Two and two "}, {Reasoning: "make four."}}, llmtest.Text("Four.", 2)...)}
	srv.Enqueue(think, think)
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")

	r := agentdeck(t, db, srv.URL(), nil, nil, "run", "What is 2+2?")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if r.stdout != "Four.\n" {
		t.Errorf("stdout = %q, want only the answer", r.stdout)
	}
	if !strings.Contains(r.stderr, "Two and two make four.\n") {
		t.Errorf("stderr = %q, want the reasoning on a line of its own", r.stderr)
	}
	if strings.Contains(r.stderr, "\x1b[") {
		t.Errorf("stderr is not a terminal, yet styled: %q", r.stderr)
	}

	j := agentdeck(t, db, srv.URL(), nil, nil, "run", "--json", "What is 2+2?")
	var reasoning, tokens strings.Builder
	var sessionID string
	for _, line := range strings.Split(strings.TrimSpace(j.stdout), "\n") {
		var e turn.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("not an event: %q", line)
		}
		sessionID = e.SessionID
		switch e.Type {
		case turn.EventReasoning:
			reasoning.WriteString(turntest.Data[turn.ReasoningData](t, e).Text)
		case turn.EventToken:
			tokens.WriteString(turntest.Data[turn.TokenData](t, e).Text)
		}
	}
	if reasoning.String() != "Two and two make four." || tokens.String() != "Four." {
		t.Errorf("--json: reasoning %q, tokens %q", reasoning.String(), tokens.String())
	}

	md := filepath.Join(dir, "s.md")
	if e := agentdeck(t, db, srv.URL(), nil, nil, "sessions", "export", sessionID, "--format", "md", "-o", md); e.code != 0 {
		t.Fatalf("export: %d %s", e.code, e.stderr)
	}
	b, _ := os.ReadFile(md)
	want := "<details>\n<summary>Thinking</summary>\n\n```text\nTwo and two make four.\n```\n\n</details>\n\nFour."
	if !strings.Contains(string(b), want) {
		t.Errorf("the Markdown export lacks the folded thinking before the answer:\n%s", b)
	}
}

// TestRunWithParentBranches: two turns, then a third with --parent set to
// the first. The model is sent the first exchange and not the second, and
// turns show --json names the parent.
func TestRunWithParentBranches(t *testing.T) {
	t.Parallel()
	srv := echoServer(t)
	db := filepath.Join(t.TempDir(), "a.db")
	ids := func(r cliRun) (string, string) {
		var e turn.Event
		json.Unmarshal([]byte(strings.SplitN(r.stdout, "\n", 2)[0]), &e)
		return e.SessionID, e.TurnID
	}
	sess, first := ids(agentdeck(t, db, srv.URL(), nil, nil, "run", "--json", "one"))
	agentdeck(t, db, srv.URL(), nil, nil, "run", "--json", "--session", sess, "two")
	r := agentdeck(t, db, srv.URL(), nil, nil, "run", "--json", "--session", sess, "--parent", first, "three")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	_, third := ids(r)
	var sent []string
	for _, m := range srv.Requests()[2].Messages {
		if m.Role != "system" {
			sent = append(sent, m.Content)
		}
	}
	if got := strings.Join(sent, "|"); got != "one|re: one|three" {
		t.Fatalf("the third turn sent %q: the second exchange leaked in, or the first is missing", got)
	}
	show := agentdeck(t, db, srv.URL(), nil, nil, "turns", "show", third, "--json")
	var v map[string]any
	if err := json.Unmarshal([]byte(show.stdout), &v); err != nil || v["parent_turn_id"] != first {
		t.Fatalf("turns show: parent_turn_id %v, want %s (%v)", v["parent_turn_id"], first, err)
	}
	if bad := agentdeck(t, db, srv.URL(), nil, nil, "run", "--parent", first, "four"); bad.code != ExitUsage {
		t.Fatalf("--parent without --session: exit %d", bad.code)
	}
}

// TestTurnsTreeShowsVersionsAndTheActiveBranch: one, two, then three as
// another version of two (--parent one), then four after three. The tree
// shows two and three side by side under one, and marks one, three and
// four as the active branch; --json says the same.
func TestTurnsTreeShowsVersionsAndTheActiveBranch(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Respond(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Chunks: llmtest.Text("ok", 1)} })
	db := filepath.Join(t.TempDir(), "a.db")
	run := func(args ...string) (string, string) {
		r := agentdeck(t, db, srv.URL(), nil, nil, append([]string{"run", "--json"}, args...)...)
		var e turn.Event
		json.Unmarshal([]byte(strings.SplitN(r.stdout, "\n", 2)[0]), &e)
		return e.SessionID, e.TurnID
	}
	sess, one := run("one")
	_, two := run("--session", sess, "two")
	_, three := run("--session", sess, "--parent", one, "three")
	_, four := run("--session", sess, "four")

	r := agentdeck(t, db, srv.URL(), nil, nil, "turns", "tree", sess)
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	want := []string{
		"* #1 [completed] one  " + one,
		"  ├─ #2 [completed] two  " + two,
		"* └─ #3 [completed] three  " + three,
		"*    #4 [completed] four  " + four,
	}
	if got := strings.TrimRight(r.stdout, "\n"); got != strings.Join(want, "\n") {
		t.Fatalf("turns tree:\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	j := agentdeck(t, db, srv.URL(), nil, nil, "turns", "tree", sess, "--json")
	var v struct {
		ActiveTurnID string   `json:"active_turn_id"`
		ActivePath   []string `json:"active_path"`
		Turns        []struct {
			ID     string `json:"id"`
			Parent string `json:"parent_turn_id"`
			Active bool   `json:"on_active_branch"`
		} `json:"turns"`
	}
	if err := json.Unmarshal([]byte(j.stdout), &v); err != nil {
		t.Fatal(err)
	}
	if v.ActiveTurnID != four || strings.Join(v.ActivePath, ",") != strings.Join([]string{one, three, four}, ",") || len(v.Turns) != 4 || v.Turns[1].Active || v.Turns[2].Parent != one {
		t.Fatalf("turns tree --json: %s", j.stdout)
	}
}

// TestSessionsForkContinuesTheBranch: fork from the first of two turns,
// then run in the fork: the model is sent the first exchange only.
func TestSessionsForkContinuesTheBranch(t *testing.T) {
	t.Parallel()
	srv := echoServer(t)
	db := filepath.Join(t.TempDir(), "a.db")
	r := agentdeck(t, db, srv.URL(), nil, nil, "run", "--json", "one")
	var e turn.Event
	json.Unmarshal([]byte(strings.SplitN(r.stdout, "\n", 2)[0]), &e)
	agentdeck(t, db, srv.URL(), nil, nil, "run", "--session", e.SessionID, "two")

	f := agentdeck(t, db, srv.URL(), nil, nil, "sessions", "fork", e.TurnID)
	fork := strings.TrimSpace(f.stdout)
	if f.code != ExitOK || fork == "" || fork == e.SessionID || !strings.Contains(f.stderr, "from turn "+e.TurnID) {
		t.Fatalf("sessions fork: exit %d, stdout %q, stderr %q", f.code, f.stdout, f.stderr)
	}
	if r := agentdeck(t, db, srv.URL(), nil, nil, "run", "--session", fork, "three"); r.code != ExitOK {
		t.Fatalf("run in the fork: %d %s", r.code, r.stderr)
	}
	var sent []string
	for _, m := range srv.Requests()[2].Messages {
		if m.Role != "system" {
			sent = append(sent, m.Content)
		}
	}
	if got := strings.Join(sent, "|"); got != "one|re: one|three" {
		t.Fatalf("the fork's turn sent %q", got)
	}
	show := agentdeck(t, db, srv.URL(), nil, nil, "sessions", "show", fork, "--json")
	if !strings.Contains(show.stdout, `"forked_from_turn": "`+e.TurnID+`"`) {
		t.Fatalf("sessions show of the fork does not say where it came from: %s", show.stdout)
	}
}

// TestExportsGiveTheActiveBranch: with two versions of the second message,
// the Markdown export has the active branch only, --all-branches has both,
// and the JSON export always has every turn.
func TestExportsGiveTheActiveBranch(t *testing.T) {
	t.Parallel()
	srv := echoServer(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	r := agentdeck(t, db, srv.URL(), nil, nil, "run", "--json", "first question")
	var e turn.Event
	json.Unmarshal([]byte(strings.SplitN(r.stdout, "\n", 2)[0]), &e)
	agentdeck(t, db, srv.URL(), nil, nil, "run", "--session", e.SessionID, "old version")
	agentdeck(t, db, srv.URL(), nil, nil, "run", "--session", e.SessionID, "--parent", e.TurnID, "new version")
	n := 0
	read := func(args ...string) string {
		n++
		out := filepath.Join(dir, "out"+strconv.Itoa(n))
		x := agentdeck(t, db, srv.URL(), nil, nil, append([]string{"sessions", "export", e.SessionID, "-o", out}, args...)...)
		b, _ := os.ReadFile(out)
		if x.code != ExitOK {
			t.Fatalf("export %v: %d %s", args, x.code, x.stderr)
		}
		return string(b)
	}
	if md := read("--format", "md"); !strings.Contains(md, "new version") || strings.Contains(md, "old version") || !strings.Contains(md, "first question") {
		t.Errorf("the Markdown export is not the active branch:\n%s", md)
	}
	if md := read("--format", "md", "--all-branches"); !strings.Contains(md, "new version") || !strings.Contains(md, "old version") {
		t.Errorf("--all-branches lost a branch:\n%s", md)
	}
	if jl := read("--format", "jsonl"); strings.Contains(jl, "old version") || !strings.Contains(jl, "new version") {
		t.Errorf("the JSONL export is not the active branch:\n%s", jl)
	}
	if js := read("--format", "json"); !strings.Contains(js, "old version") || !strings.Contains(js, "new version") {
		t.Errorf("the JSON export lost a branch")
	}
}

// echoServer answers every request "re: " and its last message, so a test
// can tell from the requests which exchanges a turn was sent.
func echoServer(t *testing.T) *llmtest.Server {
	srv := llmtest.NewServer(t)
	srv.Respond(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Chunks: llmtest.Text("re: "+r.Messages[len(r.Messages)-1].Content, 1)}
	})
	return srv
}

// TestProgressLineSaysRetries: a retry reads as what failed, the attempt
// of how many and the wait, in the human output of agentdeck run.
func TestProgressLineSaysRetries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data turn.ModelRetryData
		want string
	}{
		{"rate limited", turn.ModelRetryData{Attempt: 2, MaxAttempts: 4, Status: 429, Kind: "rate_limited", WaitMS: 3000}, "retrying (HTTP 429): attempt 2 of 4 in 3s"},
		{"dropped connection", turn.ModelRetryData{Attempt: 3, MaxAttempts: 4, Kind: "network", WaitMS: 1240}, "retrying (no answer): attempt 3 of 4 in 1.2s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, _ := json.Marshal(tt.data)
			if got := progressLine(turn.Event{Type: turn.EventModelRetry, Data: raw}); got != tt.want {
				t.Errorf("progressLine = %q, want %q", got, tt.want)
			}
		})
	}
}

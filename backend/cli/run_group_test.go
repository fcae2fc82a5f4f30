package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

// answersByModel scripts a server whose reply names the model asked,
// each model at its own speed (the later in models, the slower).
func answersByModel(t *testing.T) *llmtest.Server {
	srv := llmtest.NewServer(t)
	srv.Respond(func(req llmtest.Request) llmtest.Reply {
		n := len(req.Model) // a, bb, ccc: each a little slower
		return llmtest.Reply{Chunks: llmtest.Text("I am "+req.Model+".", 3), Delay: time.Duration(n) * time.Millisecond}
	})
	return srv
}

// Two and three models side by side: each answer printed whole under its
// model's header, the progress on stderr led by the target, and a summary
// naming each column's turn.
func TestRunSideBySidePrintsEachAnswerUnderItsTarget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		models []string
	}{
		{"two", []string{"a", "bb"}},
		{"three", []string{"a", "bb", "ccc"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := answersByModel(t)
			db := filepath.Join(t.TempDir(), "a.db")
			args := []string{"run"}
			for _, m := range tt.models {
				args = append(args, "--model", m)
			}
			r := agentdeck(t, db, srv.URL(), nil, nil, append(args, "Who are you?")...)
			if r.code != ExitOK {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if got := strings.Count(r.stdout, "── "); got != len(tt.models) {
				t.Fatalf("%d headers, want %d:\n%s", got, len(tt.models), r.stdout)
			}
			for _, m := range tt.models {
				if block := "── " + m + " ──\nI am " + m + ".\n"; !strings.Contains(r.stdout, block) {
					t.Errorf("stdout lacks %q:\n%s", block, r.stdout)
				}
				if !strings.Contains(r.stderr, "["+m+"] ── chat") {
					t.Errorf("stderr lacks %s's progress:\n%s", m, r.stderr)
				}
				if !strings.Contains(r.stderr, "  "+m+"  turn ") {
					t.Errorf("the summary lacks %s's turn:\n%s", m, r.stderr)
				}
			}
			if !strings.Contains(r.stderr, "  group ") {
				t.Errorf("the summary lacks the group:\n%s", r.stderr)
			}
		})
	}
}

// column is what --json printed of one column.
type column struct {
	slot   int
	events []turn.Event
	text   string
}

// columnsOf splits run --json's lines by their target.
func columnsOf(t *testing.T, stdout string) map[string]*column {
	t.Helper()
	cols := map[string]*column{}
	for i, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var e turn.Event
		var where struct {
			Target *string `json:"target"`
			Slot   *int    `json:"slot"`
		}
		if json.Unmarshal([]byte(line), &e) != nil || json.Unmarshal([]byte(line), &where) != nil || e.Type == "" {
			t.Fatalf("line %d is not an event: %q", i, line)
		}
		if where.Target == nil || where.Slot == nil {
			t.Fatalf("line %d lacks its target or slot: %s", i, line)
		}
		c := cols[*where.Target]
		if c == nil {
			c = &column{slot: *where.Slot}
			cols[*where.Target] = c
		}
		if c.slot != *where.Slot {
			t.Fatalf("target %s in slots %d and %d", *where.Target, c.slot, *where.Slot)
		}
		c.events = append(c.events, e)
		if e.Type == turn.EventToken {
			c.text += turntest.Data[turn.TokenData](t, e).Text
		}
	}
	return cols
}

// With --json every line names its column; each column's events are a
// whole turn (one terminal event, turn_completed last). --models a,b asks
// what --model a --model b asks.
func TestRunSideBySideJSONNamesTheTarget(t *testing.T) {
	t.Parallel()
	srv := answersByModel(t)
	dir := t.TempDir()
	spellings := [][]string{
		{"--model", "a", "--model", "bb"},
		{"--models", "a,bb"},
		{"--models", "a", "--models", " bb,"},
	}
	var first map[string]*column
	for i, spelling := range spellings {
		r := agentdeck(t, filepath.Join(dir, "a.db"), srv.URL(), nil, nil, append(append([]string{"run", "--json"}, spelling...), "Who are you?")...)
		if r.code != ExitOK {
			t.Fatalf("%v: exit %d: %s", spelling, r.code, r.stderr)
		}
		cols := columnsOf(t, r.stdout)
		if len(cols) != 2 || cols["a"] == nil || cols["bb"] == nil {
			t.Fatalf("%v: columns %v", spelling, slices.Collect(mapKeys(cols)))
		}
		for target, c := range cols {
			turntest.Check(t, c.events)
			if c.text != "I am "+target+"." {
				t.Errorf("%v: %s answered %q", spelling, target, c.text)
			}
		}
		if i == 0 {
			first = cols
			continue
		}
		for target, c := range cols {
			if c.slot != first[target].slot || c.text != first[target].text {
				t.Errorf("%v differs from %v for %s", spelling, spellings[0], target)
			}
		}
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// One --model (or --models with one) is a turn as ever: no header, no
// target on the lines.
func TestRunOneModelIsAPlainTurn(t *testing.T) {
	t.Parallel()
	srv := answersByModel(t)
	db := filepath.Join(t.TempDir(), "a.db")
	for _, args := range [][]string{{"--model", "a"}, {"--models", "a"}} {
		r := agentdeck(t, db, srv.URL(), nil, nil, append(append([]string{"run"}, args...), "Who are you?")...)
		if r.code != ExitOK || r.stdout != "I am a.\n" {
			t.Fatalf("%v: exit %d, stdout %q: %s", args, r.code, r.stdout, r.stderr)
		}
		j := agentdeck(t, db, srv.URL(), nil, nil, append(append([]string{"run", "--json"}, args...), "Who are you?")...)
		if j.code != ExitOK || strings.Contains(j.stdout, `"target"`) {
			t.Fatalf("%v --json: exit %d, %s", args, j.code, j.stdout)
		}
	}
}

func TestRunSideBySideRefusals(t *testing.T) {
	t.Parallel()
	srv := answersByModel(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"five models", []string{"--models", "a,b,c,d,e"}, "2 to 4 models at once, not 5"},
		{"continue", []string{"--model", "a", "--model", "b", "--session", "S", "--continue", "T"}, "give one --model"},
		{"provider without model", []string{"--models", "p/,b"}, `"p/" names the provider p but no model`},
		{"provider and --base-url", []string{"--models", "p/a,b", "--base-url", srv.URL()}, "drop --base-url"},
	}
	db := filepath.Join(t.TempDir(), "a.db")
	if r := agentdeck(t, db, "", nil, nil, "providers", "add", "p", "--base-url", srv.URL(), "--model", "m"); r.code != ExitOK {
		t.Fatalf("providers add: %d %s", r.code, r.stderr)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"run"}, tt.args...)
			if !slices.Contains(tt.args, "--continue") {
				args = append(args, "Who are you?")
			}
			r := agentdeck(t, db, srv.URL(), nil, nil, args...)
			if r.code != ExitUsage || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("exit %d, stderr %q, want 2 and %q", r.code, r.stderr, tt.want)
			}
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("a refused run sent %d requests", n)
	}
	if r := agentdeck(t, db, srv.URL(), nil, nil, "sessions", "list"); strings.TrimSpace(r.stdout) != "" {
		t.Fatalf("a refused run left a session:\n%s", r.stdout)
	}
}

// A target that names a configured provider goes to it (not to
// OPENAI_BASE_URL); the others to --provider.
func TestRunSideBySideProviderSlashModel(t *testing.T) {
	t.Parallel()
	srv := answersByModel(t)
	db := filepath.Join(t.TempDir(), "a.db")
	for _, name := range []string{"p", "q"} {
		if r := agentdeck(t, db, "", nil, nil, "providers", "add", name, "--base-url", srv.URL(), "--model", "m"); r.code != ExitOK {
			t.Fatalf("providers add: %d %s", r.code, r.stderr)
		}
	}
	r := agentdeck(t, db, "http://127.0.0.1:1/v1", nil, nil, "run", "--provider", "q", "--models", "p/a,vendor/bb", "Who are you?")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, block := range []string{"── a · p ──\nI am a.\n", "── vendor/bb · q ──\nI am vendor/bb.\n"} {
		if !strings.Contains(r.stdout, block) {
			t.Errorf("stdout lacks %q:\n%s", block, r.stdout)
		}
	}
}

func TestGroupTargets(t *testing.T) {
	t.Parallel()
	ps := fakeProviders{{Name: "p"}, {Name: "q"}}
	tests := []struct {
		name    string
		f       runFlags
		sess    store.Session
		want    []store.GroupTarget
		baseURL string
		problem string
	}{
		{name: "bare on a base URL", f: runFlags{models: []string{"a", "b"}, baseURL: "http://x"},
			want: []store.GroupTarget{{Model: "a"}, {Model: "b"}}, baseURL: "http://x"},
		{name: "bare on the session's provider", f: runFlags{models: []string{"a", "b"}, workflow: "w"}, sess: store.Session{Provider: "q"},
			want: []store.GroupTarget{{Provider: "q", Model: "a", Workflow: "w"}, {Provider: "q", Model: "b", Workflow: "w"}}},
		{name: "named drops OPENAI_BASE_URL", f: runFlags{models: []string{"p/a", "org/b"}, provider: "q", baseURL: "http://env"},
			want: []store.GroupTarget{{Provider: "p", Model: "a"}, {Provider: "q", Model: "org/b"}}},
		{name: "named leaves the bare without a server", f: runFlags{models: []string{"p/a", "b"}, baseURL: "http://env"},
			problem: "no model server for b"},
		{name: "no server", f: runFlags{models: []string{"a", "b"}}, problem: "no model server for a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, baseURL, problem, err := groupTargets(context.Background(), ps, tt.f, tt.sess)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(problem, tt.problem) || (tt.problem == "") != (problem == "") {
				t.Fatalf("problem %q, want %q", problem, tt.problem)
			}
			if tt.problem == "" && (!slices.Equal(got, tt.want) || baseURL != tt.baseURL) {
				t.Fatalf("got %+v %q, want %+v %q", got, baseURL, tt.want, tt.baseURL)
			}
		})
	}
}

type fakeProviders []llm.Provider

func (f fakeProviders) ListProviders(context.Context) ([]llm.Provider, error) { return f, nil }

func TestSameTargets(t *testing.T) {
	t.Parallel()
	ab := []store.GroupTarget{{Provider: "p", Model: "a"}, {Model: "b"}}
	tests := []struct {
		name string
		b    []store.GroupTarget
		want bool
	}{
		{"same", ab, true},
		{"other order", []store.GroupTarget{{Model: "b"}, {Provider: "p", Model: "a"}}, true},
		{"provider left to the session", []store.GroupTarget{{Model: "a"}, {Provider: "q", Model: "b"}}, true},
		{"other provider", []store.GroupTarget{{Provider: "q", Model: "a"}, {Model: "b"}}, false},
		{"one more", append(slices.Clone(ab), store.GroupTarget{Model: "c"}), false},
		{"a twice", []store.GroupTarget{{Model: "a"}, {Model: "a"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sameTargets(ab, tt.b); got != tt.want {
				t.Fatalf("sameTargets = %v, want %v", got, tt.want)
			}
		})
	}
}

// Ctrl+C stops every column: each model stream is closed, each turn is
// stored stopped with its partial answer, the NDJSON of each column still
// ends with turn_completed, and the run exits 130.
func TestRunSideBySideSIGINTStopsEveryColumn(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Respond(func(llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Chunks: llmtest.Tokens(5000), Delay: time.Millisecond}
	})
	dbPath := filepath.Join(t.TempDir(), "a.db")
	signals := make(chan os.Signal, 1)
	// Ctrl+C once both columns have printed their 21st token.
	var mu sync.Mutex
	far := map[string]bool{}
	var once sync.Once
	out := &syncBuffer{events: &turntest.Recorder{OnEmit: func(e turn.Event) {
		if e.Type != turn.EventToken || !strings.Contains(string(e.Data), "tok20 ") {
			return
		}
		mu.Lock()
		far[e.TurnID] = true
		both := len(far) == 2
		mu.Unlock()
		if both {
			once.Do(func() { signals <- os.Interrupt })
		}
	}}}
	r := agentdeck(t, dbPath, srv.URL(), signals, out, "run", "--json", "--models", "a,b", "Count forever")
	if r.code != ExitCancelled {
		t.Fatalf("exit %d, want 130: %s", r.code, r.stderr)
	}
	if _, ok := srv.WaitDisconnects(2, time.Second); !ok {
		t.Fatal("not every model stream was closed")
	}
	cols := columnsOf(t, r.stdout)
	if len(cols) != 2 {
		t.Fatalf("%d columns", len(cols))
	}
	db, err := store.Open(context.Background(), dbPath, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for target, c := range cols {
		turntest.Check(t, c.events)
		last := c.events[len(c.events)-1]
		d, err := db.GetTurn(context.Background(), last.TurnID, false)
		if err != nil || d.State != store.StateCancelled || !strings.HasPrefix(d.FinalText, "tok0 tok1 ") || d.Target != target {
			t.Fatalf("%s stored %s %q (target %q) %v", target, d.State, clip(d.FinalText, 40), d.Target, err)
		}
	}
}

// A run in a session that shows a group side by side, to the same
// targets, follows it: each column goes on with its own branch. Other
// targets start a new group after the session's active turn.
func TestRunSideBySideInASessionFollowsItsGroup(t *testing.T) {
	t.Parallel()
	srv := answersByModel(t)
	dbPath := filepath.Join(t.TempDir(), "a.db")
	r := agentdeck(t, dbPath, srv.URL(), nil, nil, "run", "--json", "--models", "a,bb", "Who are you?")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	firstCols := columnsOf(t, r.stdout)
	sessID := firstCols["a"].events[0].SessionID
	turnOf := func(cols map[string]*column, target string) string { return cols[target].events[0].TurnID }

	r = agentdeck(t, dbPath, srv.URL(), nil, nil, "run", "--json", "--session", sessID, "--models", "bb,a", "And then?")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	next := columnsOf(t, r.stdout)
	r = agentdeck(t, dbPath, srv.URL(), nil, nil, "run", "--json", "--session", sessID, "--models", "a,ccc", "Others?")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	others := columnsOf(t, r.stdout)

	db, err := store.Open(context.Background(), dbPath, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	parentOf := func(turnID string) string {
		d, err := db.GetTurn(context.Background(), turnID, false)
		if err != nil {
			t.Fatal(err)
		}
		return d.ParentTurnID
	}
	for _, target := range []string{"a", "bb"} {
		if got, want := parentOf(turnOf(next, target)), turnOf(firstCols, target); got != want {
			t.Errorf("%s's second turn follows %s, want its own first %s", target, got, want)
		}
	}
	// The second group's slot 0 is the active turn the third follows.
	active := turnOf(next, "a")
	if next["bb"].slot == 0 {
		active = turnOf(next, "bb")
	}
	for _, target := range []string{"a", "ccc"} {
		if got := parentOf(turnOf(others, target)); got != active {
			t.Errorf("%s of the new group follows %s, want the active turn %s", target, got, active)
		}
	}
}

// A column that fails does not hide the others' answers; the run exits 1.
func TestRunSideBySideOneFailsExitsOne(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Respond(func(req llmtest.Request) llmtest.Reply {
		if req.Model == "bad" {
			return llmtest.ErrorReply(400, "model_not_found", "no such model: bad")
		}
		return llmtest.Reply{Chunks: llmtest.Text("I am "+req.Model+".", 2)}
	})
	db := filepath.Join(t.TempDir(), "a.db")
	r := agentdeck(t, db, srv.URL(), nil, nil, "run", "--models", "good,bad", "Who are you?")
	if r.code != ExitFailed {
		t.Fatalf("exit %d, want 1: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "── good ──\nI am good.\n") || !strings.Contains(r.stdout, "── bad ──\n") {
		t.Fatalf("stdout:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "  bad  turn ") || !strings.Contains(r.stderr, "failed") {
		t.Fatalf("the summary does not say bad failed:\n%s", r.stderr)
	}
}

package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// sessionOf is the session id run prints on stderr.
func sessionOf(t *testing.T, r cliRun) string {
	t.Helper()
	m := regexp.MustCompile(`session (\S+)  turn`).FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("no session id in %q", r.stderr)
	}
	return m[1]
}

// run's flags set a new session's settings and reach the model; with
// --session they set one turn's and leave the session's as they were;
// sessions set changes them later, and unsets with KEY=.
func TestRunAndSessionsSetSettings(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	db := filepath.Join(t.TempDir(), "a.db")
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("Hi.", 1)}, llmtest.Reply{Chunks: llmtest.Text("Again.", 1)})
	r := agentdeck(t, db, srv.URL(), nil, nil, "run", "--system", "Be brief.", "--temperature", "0.3", "--top-p", "0.8",
		"--max-tokens", "50", "--seed", "9", "--stop", "END", "--stop", "###", "--reasoning-effort", "low", "Hi")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	first := srv.Requests()[0]
	want := map[string]any{"temperature": 0.3, "top_p": 0.8, "max_tokens": 50.0, "seed": 9.0, "stop": []any{"END", "###"}, "reasoning_effort": "low"}
	for k, v := range want {
		if !reflect.DeepEqual(first.Body[k], v) {
			t.Errorf("%s = %v, want %v", k, first.Body[k], v)
		}
	}
	if sys := first.Messages[0]; sys.Role != "system" || !strings.HasSuffix(sys.Content, "\n\nBe brief.") {
		t.Errorf("first message %+v, want the chat prompt then the instructions", sys)
	}
	id := sessionOf(t, r)

	r = agentdeck(t, db, srv.URL(), nil, nil, "run", "--session", id, "--temperature", "1.1", "Again")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got := srv.Requests()[1].Body["temperature"]; got != 1.1 {
		t.Errorf("the turn's temperature %v, want 1.1", got)
	}

	r = agentdeck(t, db, srv.URL(), nil, nil, "sessions", "set", id, "top_p=", "stop=STOP", "model=other", "--json")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var got sessionSettings
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	own := got.Own
	if own.Temperature == nil || *own.Temperature != 0.3 {
		t.Errorf("the session's temperature %v, want 0.3 (the --session turn's must not stick)", own.Temperature)
	}
	if own.TopP != nil || !reflect.DeepEqual(own.Stop, []string{"STOP"}) || own.Model != "other" || own.InstructionsText() != "Be brief." {
		t.Errorf("after set: %+v", own)
	}
	if got.Resolved.From["model"] != turn.LayerSession {
		t.Errorf("model from %q, want session", got.Resolved.From["model"])
	}
	r = agentdeck(t, db, srv.URL(), nil, nil, "sessions", "set", id, "system=", "seed=")
	if r.code != ExitOK || strings.Contains(r.stdout, "Be brief") || !strings.Contains(r.stdout, "temperature       0.3  (session)") {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// A bad key or value is refused with the key, the value and the range.
func TestSettingsErrorsNameKeyAndRange(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	db := filepath.Join(t.TempDir(), "a.db")
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("Hi.", 1)})
	r := agentdeck(t, db, srv.URL(), nil, nil, "run", "Hi")
	id := sessionOf(t, r)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"temperature out of range", []string{"sessions", "set", id, "temperature=3"}, "temperature must be between 0 and 2 (got 3)"},
		{"top_p not a number", []string{"sessions", "set", id, "top_p=high"}, `top_p: "high" is not valid; it must be a number above 0 and at most 1`},
		{"unknown key", []string{"sessions", "set", id, "colour=red"}, `unknown key "colour"; the keys are system, temperature`},
		{"not a pair", []string{"sessions", "set", id, "temperature"}, `"temperature" is not KEY=VALUE`},
		{"effort", []string{"sessions", "set", id, "reasoning_effort=max"}, "it must be low, medium or high"},
		{"five stops", []string{"sessions", "set", id, "stop=a", "stop=b", "stop=c", "stop=d", "stop=e"}, "at most 4 stop sequences (got 5)"},
		{"run flag", []string{"run", "--max-tokens", "0", "Hi"}, "max_tokens: \"0\" is not valid; it must be a whole number of at least 1"},
		{"run range", []string{"run", "--top-p", "1.5", "Hi"}, "top-p must be above 0 and at most 1 (got 1.5)"},
		{"project with session", []string{"run", "--session", id, "--project", "p", "Hi"}, "--project starts a new session"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := agentdeck(t, db, srv.URL(), nil, nil, tt.args...)
			if r.code != ExitUsage || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d, stderr %q, want usage and %q", r.code, r.stderr, tt.want)
			}
		})
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests: a refused run reached the model", n)
	}
}

// run --project starts the session in the project, whose instructions
// and model the turn runs with.
func TestRunInAProject(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	path := filepath.Join(t.TempDir(), "a.db")
	ctx := context.Background()
	st, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ins := "Cite sources."
	if _, err := st.CreateProject(ctx, store.Project{Name: "Research", Settings: turn.RunSettings{Model: "proj-model", Instructions: &ins}}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("Ok.", 1)})
	r := agentdeck(t, path, srv.URL(), nil, nil, "run", "--project", "research", "--model", "", "Hi")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	req := srv.Requests()[0]
	if req.Model != "proj-model" || !strings.HasSuffix(req.Messages[0].Content, "\n\n"+ins) {
		t.Errorf("model %q, system %q: want the project's", req.Model, req.Messages[0].Content)
	}
	r = agentdeck(t, path, srv.URL(), nil, nil, "run", "--project", "nope", "Hi")
	if r.code == ExitOK || !strings.Contains(r.stderr, "nope") {
		t.Errorf("an unknown project: exit %d, %q", r.code, r.stderr)
	}
}

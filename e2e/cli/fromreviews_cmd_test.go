package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// From review to tests with the built command: two turns recorded with
// run are rated down (one as a whole, one at a call step), eval
// from-reviews --rated down makes a suite of them, and eval runs it: each
// case starts from its recorded turn (the one faulted at call2 makes only
// that call again), and passes now the model does what the review asked.
func TestSuiteFromRatedDownTurns(t *testing.T) {
	var fixed atomic.Bool
	srv := llmtest.NewServer(t)
	srv.Respond(func(r llmtest.Request) llmtest.Reply {
		last := r.Messages[len(r.Messages)-1]
		for _, m := range r.Messages {
			if strings.Contains(m.Content, "A reviewer rated") {
				return llmtest.Reply{Chunks: llmtest.Text(`{"passed": true, "score": 0.9, "feedback": "fixed"}`, 2)}
			}
		}
		switch {
		case last.Role == "tool" && strings.Contains(last.Content, "buy milk"):
			return llmtest.Reply{Chunks: llmtest.Text("notes.txt says: buy milk.", 2)}
		case last.Role == "tool" && fixed.Load():
			return llmtest.Reply{Chunks: llmtest.Text("Logged the line: ran.", 2)}
		case last.Role == "tool":
			return llmtest.Reply{Chunks: llmtest.Text("Done, done, done.", 2)}
		case strings.Contains(last.Content, "notes.txt") && fixed.Load():
			return llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, "r1", "read_file", `{"path":"notes.txt"}`, 2), "tool_calls")}
		case strings.Contains(last.Content, "notes.txt"):
			return llmtest.Reply{Chunks: llmtest.Text("I cannot read files.", 2)}
		}
		return llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, "w1", "write_file", `{"path":"log.txt","content":"ran\n"}`, 2), "tool_calls")}
	})
	env := newCmdEnv(t, srv.URL())
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("buy milk\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := env.run("providers", "add", "fake", "--base-url", srv.URL()); r.code != 0 {
		t.Fatalf("providers add: %d %s", r.code, r.stderr)
	}
	var ids []string
	for _, m := range []string{"What does notes.txt say?", "Log a line, then tell me."} {
		r := env.run("run", "--provider", "fake", "--model", "m", "--workspace", ws, "--approve", "all", m)
		if r.code != 0 {
			t.Fatalf("run %q: %d %s", m, r.code, r.stderr)
		}
		_, id := turnIDOf(t, r.stderr)
		ids = append(ids, id)
	}
	ctx := context.Background()
	db, err := store.Open(ctx, env.db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, rv := range []turn.Review{
		{TurnID: ids[0], Thumb: -1, Labels: []string{"should use read_file"}, Note: "It has read_file: read the file."},
		{TurnID: ids[1], Step: "call2", Thumb: -1, Note: "Say what was logged."},
	} {
		if _, err := db.SaveReview(ctx, rv); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	fixed.Store(true)

	suite := filepath.Join(t.TempDir(), "rated-down.yaml")
	r := env.run("eval", "from-reviews", "--rated", "down", "-o", suite)
	if r.code != 0 || !strings.Contains(r.stderr, "Wrote 2 cases") {
		t.Fatalf("eval from-reviews: %d %s", r.code, r.stderr)
	}
	text, _ := os.ReadFile(suite)
	for _, want := range []string{"turn: " + ids[0], "step: start", "turn: " + ids[1], "step: call2", "tool_called:", "name: read_file", "judge:"} {
		if !strings.Contains(string(text), want) {
			t.Fatalf("the suite lacks %q:\n%s", want, text)
		}
	}

	before := len(srv.Requests())
	r = env.run("eval", suite, "--json")
	if r.code != 0 {
		t.Fatalf("eval: %d %s\n%s", r.code, r.stderr, r.stdout)
	}
	var rep struct {
		Passed  int `json:"passed"`
		Results []struct {
			CaseID string `json:"case_id"`
			State  string `json:"state"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || rep.Passed != 2 {
		t.Fatalf("report %+v %v\n%s", rep, err, r.stdout)
	}
	// The log case from call2: one call, then its judge; the notes case
	// from the start: read_file, the answer, then its judge.
	if n := len(srv.Requests()) - before; n != 5 {
		t.Fatalf("the suite made %d model calls, want 5: what came before call2 was served from the recording", n)
	}
}

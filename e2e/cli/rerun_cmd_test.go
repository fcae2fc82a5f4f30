package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/timeline"
)

// The built command re-runs a recorded turn from a tool result with a
// typed result (run --from ... --edit-tool-result FILE): the model is
// asked only for what follows, the file the original wrote is not written
// again, and turns diff --json shows what changed from that step on.
func TestRunFromToolResultThenTurnsDiff(t *testing.T) {
	srv := llmtest.NewServer(t)
	env := newCmdEnv(t, srv.URL())
	ws := t.TempDir()
	srv.Enqueue(
		llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, "w1", "write_file", `{"path":"log.txt","content":"ran\n"}`, 3), "tool_calls")},
		llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, "r1", "read_file", `{"path":"log.txt"}`, 2), "tool_calls")},
		llmtest.Reply{Chunks: llmtest.Text("The log has one line.", 3)},
	)
	r := env.run("run", "--workspace", ws, "--approve", "all", "Log a line, then read it.")
	if r.code != 0 {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	_, orig := turnIDOf(t, r.stderr)
	if err := os.Remove(filepath.Join(ws, "log.txt")); err != nil {
		t.Fatal(err)
	}
	typed := filepath.Join(t.TempDir(), "result.txt")
	if err := os.WriteFile(typed, []byte("(empty file)"), 0o600); err != nil {
		t.Fatal(err)
	}
	before := len(srv.Requests())
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("The log is empty.", 3)})
	re := env.run("run", "--approve", "all", "--from", orig+":tool2", "--edit-tool-result", typed)
	if re.code != 0 || !strings.Contains(re.stdout, "The log is empty.") {
		t.Fatalf("run --from: exit %d\n%s\n%s", re.code, re.stdout, re.stderr)
	}
	_, rerun := turnIDOf(t, re.stderr)
	if !strings.Contains(re.stderr, "what changed: agentdeck turns diff "+orig+" "+rerun) {
		t.Errorf("run --from does not say how to compare:\n%s", re.stderr)
	}
	reqs := srv.Requests()[before:]
	if len(reqs) != 1 {
		t.Fatalf("the re-run made %d model calls, want 1", len(reqs))
	}
	if last := reqs[0].Messages[len(reqs[0].Messages)-1]; last.Role != "tool" || last.Content != "(empty file)" {
		t.Fatalf("the model was sent %+v, want the typed result", last)
	}
	if _, err := os.Stat(filepath.Join(ws, "log.txt")); !os.IsNotExist(err) {
		t.Fatal("the re-run wrote log.txt again")
	}

	d := env.run("turns", "diff", orig, rerun, "--json")
	var diff timeline.TurnDiff
	if err := json.Unmarshal([]byte(d.stdout), &diff); err != nil || d.code != 0 {
		t.Fatalf("turns diff --json: exit %d %v\n%s\n%s", d.code, err, d.stdout, d.stderr)
	}
	if diff.From != "tool2" || len(diff.Rows) != 2 || diff.Rows[0].Same || !diff.Rows[0].B.Edited || diff.Rows[1].B.Text != "The log is empty." {
		t.Fatalf("turns diff: %+v", diff)
	}
}

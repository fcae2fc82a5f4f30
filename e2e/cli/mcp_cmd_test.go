package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
)

// agentdeck run, as a user runs it, with mcp.json beside the database: one
// server that works (backend/mcp's test server, which logs the tools it
// runs to a file) and one that exits at start. The turn waits for the
// first, is offered its tools, runs its read-only echo and, as --approve
// says, its side-effecting slow; the broken one is one line on stderr.
func TestRunUsesTheMCPServersOfMCPJSON(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "testserver")
	if err := goBuild(bin, "github.com/agentdeck/agentdeck/backend/mcp/internal/testserver"); err != nil {
		t.Fatalf("building the MCP test server: %v", err)
	}
	tests := []struct {
		approve   string
		wantCalls []string
		wantLine  string // the stderr line about slow
	}{
		{"all", []string{"echo", "slow"}, "  ✓ files__slow"},
		{"none", []string{"echo"}, "  ! side_effects: denied by the user"},
	}
	for _, tt := range tests {
		t.Run("approve "+tt.approve, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			env := newCmdEnv(t, srv.URL())
			calls := filepath.Join(t.TempDir(), "calls")
			cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
				"files":  map[string]any{"command": bin, "args": []string{"-calls", calls}},
				"broken": map[string]any{"command": bin, "args": []string{"-exit", "2"}},
			}})
			if err := os.WriteFile(filepath.Join(filepath.Dir(env.db), "mcp.json"), cfg, 0o644); err != nil {
				t.Fatal(err)
			}
			srv.Enqueue(
				llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, "c1", "files__echo", `{"text":"ping"}`, 2), "tool_calls")},
				llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, "c2", "files__slow", `{"ms":1}`, 2), "tool_calls")},
				llmtest.Reply{Chunks: llmtest.Text("All done.", 3)},
			)
			r := env.run("run", "--approve", tt.approve, "Ping, then act.")
			if r.code != 0 || strings.TrimSpace(r.stdout) != "All done." {
				t.Fatalf("run: exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
			}
			if !slices.Contains(srv.Requests()[0].Tools, "files__slow") {
				t.Fatalf("the first model call was not offered files__slow: %v", srv.Requests()[0].Tools)
			}
			if got, err := os.ReadFile(calls); err != nil || !slices.Equal(strings.Fields(string(got)), tt.wantCalls) {
				t.Fatalf("the server ran %q (%v), want %v", got, err, tt.wantCalls)
			}
			var mcpLines []string
			for _, l := range strings.Split(r.stderr, "\n") {
				if strings.Contains(l, "MCP") {
					mcpLines = append(mcpLines, l)
				}
			}
			if len(mcpLines) != 1 || !strings.HasPrefix(mcpLines[0], `agentdeck: MCP server "broken" failed to start: it exited (exit status 2)`) {
				t.Errorf("stderr's MCP lines %q, want one about the broken server", mcpLines)
			}
			for _, want := range []string{"  ✓ files__echo", tt.wantLine} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
			_, tr := turnIDOf(t, r.stderr)
			if v := env.showTurn(tr); v.State != "completed" || v.FinalText != "All done." {
				t.Errorf("stored turn %+v", v)
			}
		})
	}
}

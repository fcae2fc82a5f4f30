package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// The MCP tests run a real stdio MCP server, backend/mcp's test server:
// echo is read-only, slow has side effects (no readOnlyHint). Started with
// -calls FILE, it writes the name of every tool it runs to FILE, which is
// how these tests see whether a call reached the server.

// buildMCPServer builds the test server into a temp dir.
func buildMCPServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "testserver")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/agentdeck/agentdeck/backend/mcp/internal/testserver").CombinedOutput()
	if err != nil {
		t.Fatalf("building the MCP test server: %v\n%s", err, out)
	}
	return bin
}

// mcpServer is an entry of mcp.json for the test server, logging its calls
// to calls.
func mcpServer(bin, calls string, args ...string) map[string]any {
	return map[string]any{"command": bin, "args": append([]string{"-calls", calls}, args...)}
}

func writeMCPConfig(t *testing.T, path string, servers map[string]any) {
	t.Helper()
	b, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// callsOf reads what the server ran: its tools' names in call order.
func callsOf(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}

// noMCPLeaks checks that a command leaves no goroutine behind: not the MCP
// manager's, not the SDK's.
func noMCPLeaks(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
}

// callThenAnswer scripts a model that calls tool with args, then answers.
func callThenAnswer(srv *llmtest.Server, tool, args, answer string) {
	srv.Enqueue(
		llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, "call1", tool, args, 3), "tool_calls")},
		llmtest.Reply{Chunks: llmtest.Text(answer, 3)},
	)
}

// runEvents decodes run --json's stdout.
func runEvents(t *testing.T, stdout string) []turn.Event {
	t.Helper()
	var evs []turn.Event
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var e turn.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("not an event: %q", line)
		}
		evs = append(evs, e)
	}
	return evs
}

// storedTurn is what turns show --json --events says of a turn.
type storedTurn struct {
	State     string       `json:"state"`
	FinalText string       `json:"final_text"`
	Events    []turn.Event `json:"events"`
}

func showStored(t *testing.T, db, turnID string) storedTurn {
	t.Helper()
	r := agentdeck(t, db, "", nil, nil, "turns", "show", turnID, "--json", "--events")
	var v storedTurn
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || r.code != ExitOK {
		t.Fatalf("turns show: exit %d %v: %s %s", r.code, err, r.stdout, r.stderr)
	}
	return v
}

// toolOutcome is what became of the calls to one tool in a turn's events.
type toolOutcome struct {
	results []string // outputs of the calls that ran
	notRun  []string // errors of the calls that never ran
	denied  bool     // a guard_triggered event blocked a call
}

func outcomeOf(t *testing.T, evs []turn.Event, tool string) toolOutcome {
	t.Helper()
	var o toolOutcome
	for _, e := range evs {
		switch e.Type {
		case turn.EventToolResult:
			var d turn.ToolResultData
			json.Unmarshal(e.Data, &d)
			if d.Name == tool {
				o.results = append(o.results, d.Output)
			}
		case turn.EventToolError:
			var d turn.ToolErrorData
			json.Unmarshal(e.Data, &d)
			if d.Name == tool && d.NotRun {
				o.notRun = append(o.notRun, d.Error)
			}
			if d.Name == tool && !d.NotRun {
				t.Fatalf("%s failed: %s", tool, d.Error)
			}
		case turn.EventGuardTriggered:
			var d turn.GuardData
			json.Unmarshal(e.Data, &d)
			o.denied = o.denied || d.Blocked
		}
	}
	return o
}

func offered(r llmtest.Request, prefix string) []string {
	var out []string
	for _, name := range r.Tools {
		if strings.HasPrefix(name, prefix) {
			out = append(out, name)
		}
	}
	return out
}

// stderrMCPLines are run's lines about MCP servers.
func stderrMCPLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "MCP") {
			out = append(out, l)
		}
	}
	return out
}

// run connects the MCP servers of mcp.json beside the database before the
// turn starts: the model is offered their tools in its first call, a call
// runs on the server, and its result is stored with the turn. --approve
// decides the calls of tools with side effects as in the window; read-only
// ones need no approval.
func TestRunOffersAndRunsMCPTools(t *testing.T) {
	// Not parallel: goleak would count the goroutines of tests running beside it (noMCPLeaks).
	bin := buildMCPServer(t)
	tests := []struct {
		name, approve, tool, args string
		wantRan                   bool
		wantOutput                string
	}{
		{"read-only tool without approval", "none", "files__echo", `{"text":"hello from mcp"}`, true, "hello from mcp"},
		{"side-effecting tool denied", "none", "files__slow", `{"ms":1}`, false, ""},
		{"side-effecting tool allowed", "all", "files__slow", `{"ms":1}`, true, "done"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			noMCPLeaks(t)
			srv := llmtest.NewServer(t)
			dir := t.TempDir()
			db, calls := filepath.Join(dir, "a.db"), filepath.Join(dir, "calls")
			writeMCPConfig(t, filepath.Join(dir, "mcp.json"), map[string]any{"files": mcpServer(bin, calls)})
			callThenAnswer(srv, tt.tool, tt.args, "Finished.")

			r := agentdeck(t, db, srv.URL(), nil, nil, "run", "--json", "--approve", tt.approve, "Use the tool.")
			if r.code != ExitOK {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if lines := stderrMCPLines(r.stderr); len(lines) != 0 {
				t.Errorf("stderr speaks of MCP for a server that connected: %q", lines)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model calls, want 2", len(reqs))
			}
			// The first call already sees every tool of the server.
			if got := offered(reqs[0], "files__"); !slices.Contains(got, "files__echo") || !slices.Contains(got, "files__slow") {
				t.Fatalf("first model call was offered MCP tools %v, want files__echo and files__slow among them", got)
			}

			wantCalls := []string(nil)
			if tt.wantRan {
				wantCalls = []string{strings.TrimPrefix(tt.tool, "files__")}
			}
			if got := callsOf(t, calls); !slices.Equal(got, wantCalls) {
				t.Fatalf("the server ran %v, want %v", got, wantCalls)
			}

			// The result went back to the model, and is stored with the turn.
			toolMsg := ""
			for _, m := range reqs[1].Messages {
				if m.Role == "tool" {
					toolMsg = m.Content
				}
			}
			evs := runEvents(t, r.stdout)
			stored := showStored(t, db, evs[0].TurnID)
			if stored.State != "completed" || stored.FinalText != "Finished." {
				t.Fatalf("stored turn: state %s, final text %q", stored.State, stored.FinalText)
			}
			o := outcomeOf(t, stored.Events, tt.tool)
			if tt.wantRan {
				if !slices.Equal(o.results, []string{tt.wantOutput}) || o.denied || toolMsg != tt.wantOutput {
					t.Fatalf("stored results %q (denied %v), model was given %q; want %q", o.results, o.denied, toolMsg, tt.wantOutput)
				}
			} else {
				if len(o.results) != 0 || len(o.notRun) != 1 || !o.denied || !strings.Contains(toolMsg, "denied") {
					t.Fatalf("stored %+v, model was given %q; want one call denied by the guard", o, toolMsg)
				}
			}
		})
	}
}

// --no-mcp connects nothing, --mcp-config another file; a server that
// cannot start is one line on stderr and the turn runs with the others.
func TestRunMCPFlagsAndFailures(t *testing.T) {
	// Not parallel: goleak would count the goroutines of tests running beside it (noMCPLeaks).
	bin := buildMCPServer(t)
	tests := []struct {
		name string
		// config writes the configuration files into dir; it returns
		// run's extra flags.
		config    func(t *testing.T, dir string) []string
		wantTools []string // MCP tools offered (all but the built-ins)
		wantLines []string // run's MCP lines on stderr
	}{
		{
			name: "no mcp.json",
			config: func(*testing.T, string) []string {
				return nil
			},
		},
		{
			name: "--no-mcp",
			config: func(t *testing.T, dir string) []string {
				writeMCPConfig(t, filepath.Join(dir, "mcp.json"), map[string]any{"files": mcpServer(bin, filepath.Join(dir, "calls"))})
				return []string{"--no-mcp"}
			},
		},
		{
			name: "--mcp-config",
			config: func(t *testing.T, dir string) []string {
				writeMCPConfig(t, filepath.Join(dir, "mcp.json"), map[string]any{"files": mcpServer(bin, filepath.Join(dir, "calls"))})
				other := filepath.Join(dir, "other.json")
				writeMCPConfig(t, other, map[string]any{"other": mcpServer(bin, filepath.Join(dir, "calls"))})
				return []string{"--mcp-config", other}
			},
			wantTools: []string{"other__add", "other__crash", "other__cwd", "other__echo", "other__env", "other__fail", "other__image", "other__slow"},
		},
		{
			name: "a server that exits at start",
			config: func(t *testing.T, dir string) []string {
				writeMCPConfig(t, filepath.Join(dir, "mcp.json"), map[string]any{
					"broken": mcpServer(bin, filepath.Join(dir, "calls"), "-exit", "2"),
					"files":  mcpServer(bin, filepath.Join(dir, "calls")),
				})
				return nil
			},
			wantTools: []string{"files__add", "files__crash", "files__cwd", "files__echo", "files__env", "files__fail", "files__image", "files__slow"},
			wantLines: []string{`agentdeck: MCP server "broken" failed to start: it exited (exit status 2) (its last output: "testserver: refusing to start: bad configuration"); its tools are left out`},
		},
		{
			name: "a command that does not exist",
			config: func(t *testing.T, dir string) []string {
				writeMCPConfig(t, filepath.Join(dir, "mcp.json"), map[string]any{"gone": map[string]any{"command": filepath.Join(dir, "no-such-server")}})
				return nil
			},
			wantLines: []string{`agentdeck: MCP server "gone" failed to start: fork/exec ` + "DIR" + `/no-such-server: no such file or directory; its tools are left out`},
		},
		{
			name: "a broken mcp.json",
			config: func(t *testing.T, dir string) []string {
				if err := os.WriteFile(filepath.Join(dir, "mcp.json"), []byte(`{"mcpServers": {"files": {"command": 3}}}`), 0o644); err != nil {
					t.Fatal(err)
				}
				return nil
			},
			wantLines: []string{`agentdeck: MCP configuration: DIR/mcp.json:1:38: server "files": "command" must be a string, found a number; no MCP server is connected`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			noMCPLeaks(t)
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("Hello.", 2)})
			dir := t.TempDir()
			args := append([]string{"run"}, tt.config(t, dir)...)
			r := agentdeck(t, filepath.Join(dir, "a.db"), srv.URL(), nil, nil, append(args, "Say hello.")...)
			if r.code != ExitOK || strings.TrimSpace(r.stdout) != "Hello." {
				t.Fatalf("the turn did not run: exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d model calls, want 1", len(reqs))
			}
			var mcpTools []string
			for _, name := range reqs[0].Tools {
				if strings.Contains(name, "__") {
					mcpTools = append(mcpTools, name)
				}
			}
			if !slices.Equal(mcpTools, tt.wantTools) {
				t.Errorf("MCP tools offered %v, want %v", mcpTools, tt.wantTools)
			}
			var want []string
			for _, l := range tt.wantLines {
				want = append(want, strings.ReplaceAll(l, "DIR", dir))
			}
			if got := stderrMCPLines(r.stderr); !slices.Equal(got, want) {
				t.Errorf("stderr MCP lines:\n%q\nwant\n%q", got, want)
			}
		})
	}
}

func TestRunMCPFlagUsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing file", []string{"--mcp-config", filepath.Join(dir, "nope.json")}, "agentdeck: --mcp-config " + filepath.Join(dir, "nope.json") + ": no such file"},
		{"both flags", []string{"--mcp-config", filepath.Join(dir, "nope.json"), "--no-mcp"}, "agentdeck: --mcp-config and --no-mcp cannot be used together"},
	}
	for _, tt := range tests {
		for _, cmd := range [][]string{{"run", "Say hello."}, {"replay", "some-turn"}} {
			t.Run(tt.name+" "+cmd[0], func(t *testing.T) {
				r := agentdeck(t, db, "http://127.0.0.1:1/v1", nil, nil, append(cmd, tt.args...)...)
				if r.code != ExitUsage || strings.TrimSpace(r.stderr) != tt.want {
					t.Fatalf("exit %d, stderr %q; want %d and %q", r.code, r.stderr, ExitUsage, tt.want)
				}
			})
		}
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("a usage error created the database (%v)", err)
	}
}

// A replay connects the MCP servers too, and keeps the recording
// contract: the read-only tool runs again, the side-effecting one does
// not and gives back the original's result. With --no-mcp it connects
// nothing, and says the replay diverged.
func TestReplayWithMCP(t *testing.T) {
	// Not parallel: goleak would count the goroutines of tests running beside it (noMCPLeaks).
	noMCPLeaks(t)
	bin := buildMCPServer(t)
	srv := llmtest.NewServer(t)
	dir := t.TempDir()
	db, calls := filepath.Join(dir, "a.db"), filepath.Join(dir, "calls")
	writeMCPConfig(t, filepath.Join(dir, "mcp.json"), map[string]any{"files": mcpServer(bin, calls)})
	srv.Enqueue(
		llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, "c1", "files__echo", `{"text":"read me"}`, 2), "tool_calls")},
		llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, "c2", "files__slow", `{"ms":1}`, 2), "tool_calls")},
		llmtest.Reply{Chunks: llmtest.Text("Read and done.", 3)},
	)
	r := agentdeck(t, db, srv.URL(), nil, nil, "run", "--json", "--approve", "all", "Read, then act.")
	if r.code != ExitOK {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	if got := callsOf(t, calls); !slices.Equal(got, []string{"echo", "slow"}) {
		t.Fatalf("the original ran %v, want [echo slow]", got)
	}
	tr := runEvents(t, r.stdout)[0].TurnID
	srv.Close()
	if err := os.Remove(calls); err != nil {
		t.Fatal(err)
	}

	rep := agentdeck(t, db, "http://127.0.0.1:1/v1", nil, nil, "replay", tr, "--json")
	var report ReplayReport
	if err := json.Unmarshal([]byte(rep.stdout), &report); err != nil {
		t.Fatalf("replay output %q: %v (stderr %s)", rep.stdout, err, rep.stderr)
	}
	if rep.code != ExitOK || !report.Matched {
		t.Fatalf("replay: exit %d %+v %s", rep.code, report, rep.stderr)
	}
	if got := callsOf(t, calls); !slices.Equal(got, []string{"echo"}) {
		t.Fatalf("the replay ran %v on the server, want only the read-only [echo]", got)
	}
	replayed := showStored(t, db, report.ReplayTurnID)
	if o := outcomeOf(t, replayed.Events, "files__slow"); !slices.Equal(o.results, []string{"done"}) {
		t.Fatalf("the replay's files__slow gave %q, want the original's [done]", o.results)
	}
	if o := outcomeOf(t, replayed.Events, "files__echo"); !slices.Equal(o.results, []string{"read me"}) {
		t.Fatalf("the replay's files__echo gave %q, want [read me]", o.results)
	}

	off := agentdeck(t, db, "http://127.0.0.1:1/v1", nil, nil, "replay", tr, "--json", "--no-mcp")
	var offReport ReplayReport
	if err := json.Unmarshal([]byte(off.stdout), &offReport); err != nil {
		t.Fatalf("replay --no-mcp output %q: %v (stderr %s)", off.stdout, err, off.stderr)
	}
	if off.code != ExitFailed || offReport.Matched || len(offReport.Divergences) == 0 {
		t.Fatalf("replay --no-mcp: exit %d %+v; want a divergence (the tools offered differ)", off.code, offReport)
	}
	if got := callsOf(t, calls); !slices.Equal(got, []string{"echo"}) {
		t.Fatalf("replay --no-mcp reached the server: it ran %v in all", got)
	}
}

// Ctrl+C while run waits for a server that does not answer stops the
// command: the turn never starts and no session is left behind.
func TestRunStopsWhileConnectingMCP(t *testing.T) {
	// Not parallel: goleak would count the goroutines of tests running beside it (noMCPLeaks).
	noMCPLeaks(t)
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal("no sleep command")
	}
	srv := llmtest.NewServer(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	writeMCPConfig(t, filepath.Join(dir, "mcp.json"), map[string]any{"mute": map[string]any{"command": sleep, "args": []string{"30"}}})
	signals := make(chan os.Signal, 1)
	signals <- os.Interrupt
	r := agentdeck(t, db, srv.URL(), signals, nil, "run", "Say hello.")
	if r.code != ExitCancelled || strings.TrimSpace(r.stderr) != "agentdeck: stopped while connecting the MCP servers" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("the turn started: %d model calls", n)
	}
	if list := agentdeck(t, db, "", nil, nil, "sessions", "list", "--json"); strings.Contains(list.stdout, "Say hello") {
		t.Fatalf("a session was left behind:\n%s", list.stdout)
	}
}

package runner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/timeline"
	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
	"github.com/agentdeck/agentdeck/backend/workflow"
)

// The re-run tests' rig: a runner over a real database whose every agent
// may use two test tools (the runner's ToolSource): append_line, which
// changes something outside the conversation (it appends a line to a
// file, so the file's line count says how often it ran), and shout, which
// is read-only.

type rerunRig struct {
	db   *store.DB
	r    *runner.Runner
	srv  *llmtest.Server
	sess store.Session
	file string // where append_line appends
	// xs counts append_line's runs (an "x" says which it was).
	xs int
}

type toolList []tool.Tool

func (l toolList) Tools() []tool.Tool { return l }

func newRerunRig(t *testing.T) *rerunRig {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(bg, filepath.Join(dir, "agentdeck.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	g := &rerunRig{db: db, srv: llmtest.NewServer(t), file: filepath.Join(dir, "lines.txt")}
	var mu sync.Mutex
	appendLine := tool.Func{Def: tool.Spec{Name: "append_line", Description: "Appends a line to the log.", SideEffects: true,
		Parameters: json.RawMessage(`{"type":"object","properties":{"line":{"type":"string"}},"required":["line"]}`)},
		Fn: func(_ context.Context, args json.RawMessage) (string, error) {
			var a struct{ Line string }
			if err := json.Unmarshal(args, &a); err != nil {
				return "", err
			}
			mu.Lock()
			defer mu.Unlock()
			f, err := os.OpenFile(g.file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
			if err != nil {
				return "", err
			}
			defer f.Close()
			if _, err := f.WriteString(a.Line + "\n"); err != nil {
				return "", err
			}
			g.xs++
			if a.Line == "x" {
				// Two calls alike get different results: which "x" it was.
				return fmt.Sprintf("appended x as line %d", g.xs), nil
			}
			return "appended " + a.Line, nil
		}}
	shout := tool.Func{Def: tool.Spec{Name: "shout", Description: "Says the text in capitals.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)},
		Fn: func(_ context.Context, args json.RawMessage) (string, error) {
			var a struct{ Text string }
			err := json.Unmarshal(args, &a)
			return strings.ToUpper(a.Text), err
		}}
	g.r = runner.New(runner.Config{DB: db, Workflows: workflow.Builtins, MCP: toolList{appendLine, shout}})
	if g.sess, err = db.CreateSession(bg, store.Session{Title: "time travel", Model: "m"}); err != nil {
		t.Fatal(err)
	}
	return g
}

// lines is how many lines append_line has written.
func (g *rerunRig) lines(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile(g.file)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// req is a request of the rig's session to the scripted server, with
// every approval allowed.
func (g *rerunRig) req(wf, message string, from *runner.From) runner.Request {
	return runner.Request{SessionID: g.sess.ID, Message: message, Workflow: wf, BaseURL: g.srv.URL(),
		Approver: agent.PolicyApprover{AllowAll: true}, From: from}
}

// recorded is a finished turn as the tests compare it.
type recorded struct {
	id       string
	res      turn.Result
	rec      *turntest.Recorder
	reqs     []llmtest.Request // what the server received for it
	steps    []timeline.TimelineStep
	lines    int // lines appended while it ran
	approved int // approvals asked of the person
}

// turnOf runs req to its end and returns what the tests compare.
func (g *rerunRig) turnOf(t *testing.T, req runner.Request) recorded {
	t.Helper()
	before, lines := len(g.srv.Requests()), g.lines(t)
	ap := &countingApprover{}
	req.Approver = ap
	res, rec, id := run(t, g.r, req)
	tr, err := g.db.GetTurn(bg, id, true)
	if err != nil {
		t.Fatal(err)
	}
	return recorded{id: id, res: res, rec: rec, reqs: g.srv.Requests()[before:], steps: timeline.Steps(tr.Events), lines: g.lines(t) - lines, approved: ap.asked()}
}

// countingApprover allows everything and counts what it was asked.
type countingApprover struct {
	mu sync.Mutex
	n  int
}

func (a *countingApprover) Approve(context.Context, agent.ApprovalRequest) (turn.Answer, error) {
	a.mu.Lock()
	a.n++
	a.mu.Unlock()
	return turn.AllowOnce, nil
}

func (a *countingApprover) asked() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.n
}

// toolResults are a turn's tool results as "name: output", sorted (the
// calls of one batch finish in any order).
func toolResults(t *testing.T, rec *turntest.Recorder) []string {
	t.Helper()
	var out []string
	for _, e := range rec.Events() {
		if e.Type != turn.EventToolResult && e.Type != turn.EventToolError {
			continue
		}
		var d struct {
			Name   string `json:"name"`
			Output string `json:"output"`
			Error  string `json:"error"`
		}
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatal(err)
		}
		out = append(out, d.Name+": "+d.Output+d.Error)
	}
	slices.Sort(out)
	return out
}

// stageResults are a turn's stages as "name outcome (how it ended): reply".
func stageResults(res turn.Result) []string {
	var out []string
	for _, s := range res.Stages {
		text := ""
		if s.Response != nil {
			text = s.Response.Content
		}
		out = append(out, fmt.Sprintf("%s %s (%s %s): %s", s.Name, s.Outcome, s.Termination.Kind, s.Termination.Error, text))
	}
	return out
}

// sameRequests fails unless got are the requests want were, message for
// message, with the same model.
func sameRequests(t *testing.T, what string, got, want []llmtest.Request) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d model calls reached the server, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i].Model != want[i].Model {
			t.Fatalf("%s: live call %d asked for model %q, want %q", what, i+1, got[i].Model, want[i].Model)
		}
		if !slices.EqualFunc(got[i].Messages, want[i].Messages, sameMessage) {
			t.Fatalf("%s: live call %d sent\n%s\nwant\n%s", what, i+1, showMessages(got[i].Messages), showMessages(want[i].Messages))
		}
	}
}

func sameMessage(a, b llmtest.Message) bool {
	return a.Role == b.Role && a.Content == b.Content && a.ToolCallID == b.ToolCallID && a.Name == b.Name && slices.Equal(a.ToolCalls, b.ToolCalls)
}

func showMessages(ms []llmtest.Message) string {
	var b strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&b, "  %s %q %v %s\n", m.Role, clipText(m.Content, 120), m.ToolCalls, m.ToolCallID)
	}
	return b.String()
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// liveTools counts the append_line calls of orig that a re-run from step
// runs again: those after it (of a later model call, or later in the
// step's own batch) and the step's own.
func liveTools(steps []timeline.TimelineStep, from timeline.TimelineStep, name string) int {
	n := 0
	for _, s := range steps {
		if s.Kind != timeline.KindTool || s.Tool != name || s.Error {
			continue
		}
		if s.RecordedCalls > from.RecordedCalls || (from.Kind == timeline.KindTool && s.RecordedCalls == from.RecordedCalls && s.N >= from.N) {
			n++
		}
	}
	return n
}

// reply is a scripted text answer; calls one model step calling tools
// together.
func replyText(s string) llmtest.Reply { return llmtest.Reply{Chunks: llmtest.Text(s, 3)} }

func calls(cs ...[3]string) llmtest.Reply {
	var lists [][]llmtest.Chunk
	for i, c := range cs {
		lists = append(lists, llmtest.ToolCallChunks(i, c[0], c[1], c[2], 2))
	}
	return llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.Stream(lists...), "tool_calls")}
}

package resilience_test

import (
	"encoding/json"
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
	"github.com/agentdeck/agentdeck/backend/turn"
)

// hostileCase is a model that answers the first request with one bad tool
// call. The call must fail as a tool_error whose text goes back to the
// model, and the turn must then finish normally.
type hostileCase struct {
	name string
	tool string
	args string
	// wantPhrases must be in the tool_error and in the tool message the
	// model receives next.
	wantPhrases []string
}

const sessionCSV = "region,amount\nNorth,10\nSouth,7\nNorth,5\nEast,3\n"

// countQuery checks the attached table after an attack: still 4 rows
// summing to 25.
const countQuery = `{"sql":"SELECT COUNT(*) AS n, SUM(amount) AS total FROM sales"}`

func hostileCases(dir string) []hostileCase {
	evil := filepath.Join(dir, "evil.db")
	sql := func(q string) string {
		b, _ := json.Marshal(map[string]string{"sql": q})
		return string(b)
	}
	return []hostileCase{
		{"arguments that are not JSON", "query_data", `{"sql": "SELECT * FROM sales"`, []string{"not valid JSON"}},
		{"arguments nested 10^5 deep (valid, only too deep)", "query_data", `{"sql":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}`,
			[]string{"the arguments are nested too deeply (more than 10000 levels"}},
		{"arguments that are not an object", "query_data", `"SELECT 1"`, []string{"do not match the schema"}},
		{"arguments of the wrong type", "query_data", `{"sql": 42}`, []string{"do not match the schema", "/sql"}},
		{"an unknown argument", "query_data", `{"sql": "SELECT 1", "mode": "rw"}`, []string{"do not match the schema"}},
		{"a tool that does not exist", "drop_all_tables", `{}`, []string{`there is no tool named "drop_all_tables"`, "query_data"}},
		{"a chart that loads data from a URL", "render_chart",
			`{"title":"x","spec":{"mark":"bar","data":{"url":"https://evil.example/data.csv"}}}`,
			[]string{"cannot load data from a URL"}},
		{"a chart spec as a string with an image URL", "render_chart",
			`{"spec":"{\"data\":{\"values\":[{\"a\":1}]},\"mark\":{\"type\":\"image\",\"url\":\"https://evil.example/x.png\"}}"}`,
			[]string{"URL"}},
		{"SQL that attaches a database", "query_data", sql("ATTACH DATABASE '" + evil + "' AS evil"), []string{`starts with "ATTACH"`, "read-only"}},
		{"SQL that attaches after a SELECT", "query_data", sql("SELECT 1; ATTACH DATABASE '" + evil + "' AS evil"), []string{"one statement per call"}},
		{"SQL that deletes", "query_data", sql("DELETE FROM sales"), []string{`starts with "DELETE"`}},
		{"SQL that deletes inside WITH", "query_data", sql("WITH x AS (SELECT 1) DELETE FROM sales"), []string{"DELETE is not allowed"}},
		{"SQL with a second statement that drops the table", "query_data", sql("SELECT 1 /* */; DROP TABLE sales"), []string{"one statement per call"}},
		{"SQL that sets a pragma", "query_data", sql("SELECT * FROM sales WHERE 1 = (PRAGMA writable_schema = 1)"), []string{"PRAGMA is not allowed"}},
	}
}

// TestHostileToolCalls: bad tool calls from the model become tool errors the
// model sees, change nothing, and the turn still completes.
func TestHostileToolCalls(t *testing.T) {
	r := newRig(t)
	csv := filepath.Join(r.dir, "sales.csv")
	if err := os.WriteFile(csv, []byte(sessionCSV), 0o600); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, tc := range hostileCases(r.dir) {
		wg.Go(func() {
			t.Run(tc.name, func(t *testing.T) {
				srv := llmtest.NewServer(t)
				srv.Enqueue(toolCall("bad", tc.tool, tc.args), toolCall("check", "query_data", countQuery), text("Handled."))
				sess := r.session(t, tc.name)
				tn := r.run(t, sess.ID, "Do something with my data.", via(srv), func(req *runner.Request) {
					req.Attach = []string{csv}
					req.Approver = agent.PolicyApprover{AllowAll: true}
				})
				tn.checkEnvelope(t)
				if tn.stored.State != store.StateCompleted || tn.stored.FinalText != "Handled." {
					t.Fatalf("turn %s %q (%s), want completed", tn.stored.State, tn.stored.FinalText, tn.errorMessage(t))
				}
				checkToolError(t, tn, srv.Requests(), "bad", tc.wantPhrases...)
				if len(tn.of(turn.EventChart)) != 0 {
					t.Error("a chart was drawn")
				}
				out, ok := toolMessage(srv.Requests()[2], "check")
				if !ok || !strings.Contains(out.Content, "25") || strings.HasPrefix(out.Content, "Error") {
					t.Errorf("the attached data changed: %q", out.Content)
				}
				if _, err := os.Stat(filepath.Join(r.dir, "evil.db")); !os.IsNotExist(err) {
					t.Errorf("a database was attached and created: %v", err)
				}
			})
		})
	}
}

// TestWorkspaceTraversalRefused: with every approval granted (agentdeck run
// --approve all), write_file calls that try to leave the workspace are
// refused and nothing is written outside it, while a plain write in the
// same step goes through.
func TestWorkspaceTraversalRefused(t *testing.T) {
	r := newRig(t)
	ws := filepath.Join(r.dir, "ws")
	outside := filepath.Join(r.dir, "outside")
	for _, d := range []string{filepath.Join(ws, "sub"), outside} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	sentinel := filepath.Join(outside, "keep.txt")
	if err := os.WriteFile(sentinel, []byte("untouched"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A link to a folder outside, and a dangling link to a file outside.
	if err := os.Symlink(outside, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "target.txt"), filepath.Join(ws, "filelink")); err != nil {
		t.Fatal(err)
	}
	write := func(id, path string) [3]string {
		b, _ := json.Marshal(map[string]string{"path": path, "content": "pwned", "mode": "overwrite"})
		return [3]string{id, "write_file", string(b)}
	}
	attacks := map[string]string{
		"up":        "../escape.txt",
		"up2":       "sub/../../escape.txt",
		"deep":      "../../../../../../../../tmp/agentdeck-escape.txt",
		"absolute":  filepath.Join(outside, "abs.txt"),
		"dirlink":   "link/pwned.txt",
		"filelink":  "filelink",
		"overwrite": "link/keep.txt",
		"nul":       "ok.txt\x00../../escape.txt",
	}
	calls := [][3]string{write("fine", "notes/ok.txt")}
	ids := []string{}
	for id, path := range attacks {
		calls = append(calls, write(id, path))
		ids = append(ids, id)
	}
	slices.Sort(ids)
	r.srv.Enqueue(toolCalls(calls...), text("Only the note was written."))
	sess := r.session(t, "traversal")
	tn := r.run(t, sess.ID, "Write some files.", func(req *runner.Request) {
		req.Workspace = ws
		req.Approver = agent.PolicyApprover{AllowAll: true}
	})
	tn.checkEnvelope(t)
	if tn.stored.State != store.StateCompleted || tn.stored.FinalText != "Only the note was written." {
		t.Fatalf("turn %s %q (%s)", tn.stored.State, tn.stored.FinalText, tn.errorMessage(t))
	}
	reqs := r.srv.Requests()
	for _, id := range ids {
		checkToolError(t, tn, reqs, id, "refused path")
	}
	if b, err := os.ReadFile(filepath.Join(ws, "notes", "ok.txt")); err != nil || string(b) != "pwned" {
		t.Errorf("the plain write did not happen: %q %v", b, err)
	}

	// Nothing outside the workspace changed.
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 || entries[0].Name() != "keep.txt" {
		t.Errorf("files appeared outside the workspace: %v", entries)
	}
	if b, _ := os.ReadFile(sentinel); string(b) != "untouched" {
		t.Errorf("a file outside the workspace was overwritten: %q", b)
	}
	for _, p := range []string{filepath.Join(r.dir, "escape.txt"), "/tmp/agentdeck-escape.txt"} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s was written (%v)", p, err)
		}
	}
	approvals, err := r.db.ListApprovals(ctx, tn.id)
	if err != nil || len(approvals) != len(calls) {
		t.Errorf("%d approvals stored, want %d (the policy allowed every call): %v", len(approvals), len(calls), err)
	}
}

// checkToolError checks that call id failed as a tool_error with the
// phrases, did not also succeed, and that the model's next request carries
// the same error in the call's tool message.
func checkToolError(t *testing.T, tn turnRun, reqs []llmtest.Request, id string, phrases ...string) {
	t.Helper()
	var errs []turn.ToolErrorData
	for _, e := range tn.of(turn.EventToolError) {
		var d turn.ToolErrorData
		_ = json.Unmarshal(e.Data, &d)
		if d.CallID == id {
			errs = append(errs, d)
		}
	}
	for _, e := range tn.of(turn.EventToolResult) {
		var d turn.ToolResultData
		_ = json.Unmarshal(e.Data, &d)
		if d.CallID == id {
			t.Errorf("call %s succeeded: %q", id, d.Output)
		}
	}
	if len(errs) != 1 {
		t.Fatalf("call %s: %d tool_error events, want 1", id, len(errs))
	}
	if missing, ok := containsAll(errs[0].Error, phrases...); !ok {
		t.Errorf("call %s: tool_error %q lacks %q", id, errs[0].Error, missing)
	}
	if len(reqs) < 2 {
		t.Fatalf("the model was not called again after the tool error (%d requests)", len(reqs))
	}
	msg, ok := toolMessage(reqs[1], id)
	if !ok || !strings.HasPrefix(msg.Content, "Error: ") || !strings.Contains(msg.Content, errs[0].Error) {
		t.Errorf("call %s: the model got %q (found %v), want the tool error", id, msg.Content, ok)
	}
}

package runner_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

// Every test's goroutines end with it: the turns' and the engines'.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func toolCall(id, name string, args any) llmtest.Reply {
	b, _ := json.Marshal(args)
	return llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, id, name, string(b), 3), "tool_calls")}
}

// The user attaches a CSV; the agent queries it into a named dataset and
// charts that dataset: the chart event carries the query's rows.
func TestAttachQueryAndChartEndToEnd(t *testing.T) {
	dir, db, eng := setuptest.NewEngine(t)
	csv := filepath.Join(dir, "sales.csv")
	os.WriteFile(csv, []byte("region,amount\nNorth,10\nSouth,7\nNorth,5\nEast,3\n"), 0o600)

	srv := llmtest.NewServer(t)
	srv.Enqueue(
		toolCall("c1", "list_data", map[string]any{}),
		toolCall("c2", "query_data", map[string]any{"sql": "SELECT region, SUM(amount) AS total FROM sales GROUP BY region ORDER BY total DESC", "name": "sales_by_region"}),
		toolCall("c3", "render_chart", map[string]any{"title": "Sales by region", "spec": map[string]any{
			"mark": "bar", "data": map[string]any{"name": "sales_by_region"},
			"encoding": map[string]any{"x": map[string]any{"field": "region", "type": "nominal"}, "y": map[string]any{"field": "total", "type": "quantitative"}},
		}}),
		llmtest.Reply{Chunks: llmtest.Text("North sells the most (15).", 3)},
	)
	sess, _ := db.CreateSession(context.Background(), store.Session{Title: "sales", Model: "m"})
	rec := &turntest.Recorder{}
	h, err := eng.Runner.Start(context.Background(), runner.Request{SessionID: sess.ID, Message: "Chart sales by region", BaseURL: srv.URL(), Attach: []string{csv}, Sinks: []turn.Sink{rec}})
	if err != nil {
		t.Fatal(err)
	}
	res := h.Wait()
	if !res.OK || res.FinalText != "North sells the most (15)." {
		t.Fatalf("result %+v", res)
	}
	turntest.Check(t, rec.Events())
	if errs := rec.Of(turn.EventToolError); len(errs) > 0 {
		t.Fatalf("tool errors: %s", errs[0].Data)
	}
	charts := rec.Of(turn.EventChart)
	if len(charts) != 1 {
		t.Fatalf("%d charts", len(charts))
	}
	c := turntest.Data[turn.ChartData](t, charts[0])
	var spec struct {
		Datasets map[string][]map[string]any `json:"datasets"`
	}
	json.Unmarshal(c.Spec, &spec)
	rows := spec.Datasets["sales_by_region"]
	if len(rows) != 3 || rows[0]["region"] != "North" || rows[0]["total"] != float64(15) {
		t.Fatalf("the chart's data did not come from the query: %s", c.Spec)
	}
	// The stored turn has the chart for offline review.
	d, err := db.GetTurn(context.Background(), h.TurnID, false)
	if err != nil || len(d.Charts) != 1 || d.State != store.StateCompleted {
		t.Fatalf("stored turn: %+v %v", d.Turn, err)
	}
	if !strings.Contains(string(d.Charts[0].Spec), "North") {
		t.Fatal("stored chart lost its data")
	}
}

func TestApprovalsAreStoredWithTheTurn(t *testing.T) {
	dir, db, eng := setuptest.NewEngine(t)
	ws := filepath.Join(dir, "ws")
	os.Mkdir(ws, 0o700)
	srv := llmtest.NewServer(t)
	srv.Enqueue(toolCall("w1", "write_file", map[string]any{"path": "note.txt", "content": "hello"}), llmtest.Reply{Chunks: llmtest.Text("Denied, so I did not write it.", 2)})
	sess, _ := db.CreateSession(context.Background(), store.Session{Title: "ws", Model: "m"})
	h, err := eng.Runner.Start(context.Background(), runner.Request{SessionID: sess.ID, Message: "write a note", BaseURL: srv.URL(), Workspace: ws, Approver: agent.PolicyApprover{AllowAll: false}})
	if err != nil {
		t.Fatal(err)
	}
	h.Wait()
	if _, err := os.Stat(filepath.Join(ws, "note.txt")); !os.IsNotExist(err) {
		t.Fatal("a denied write happened")
	}
	got, err := db.ListApprovals(context.Background(), h.TurnID)
	if err != nil || len(got) != 1 || got[0].Answer != turn.Deny || got[0].Tool != "write_file" {
		t.Fatalf("approvals %+v %v", got, err)
	}
}

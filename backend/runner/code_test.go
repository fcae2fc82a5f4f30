package runner_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/sandbox"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
	"github.com/agentdeck/agentdeck/backend/workflow"
)

// The model runs a script over the session's table, gets an error at a
// line and column, corrects the script, and its second run returns a
// chart, which is drawn. A replay of the turn runs both scripts again and
// reports no divergence.
func TestRunCodeCorrectsItselfAndReplays(t *testing.T) {
	dir, db, eng := setuptest.NewEngine(t)
	csv := filepath.Join(dir, "sales.csv")
	os.WriteFile(csv, []byte("region,amount\nNorth,10\nSouth,7\nNorth,5\nEast,3\n"), 0o600)
	bad := "t = tables[\"sales\"]\ntotals = {}\nfor row in t:\n    totals[row[\"region\"]] = totals.get(row[\"region\"], 0) + row[\"amont\"]\n"
	good := strings.ReplaceAll(bad, "amont", "amount") +
		"result = {\"$schema\": \"https://vega.github.io/schema/vega-lite/v6.json\", \"mark\": \"bar\", \"title\": \"Sales by region\",\n" +
		"    \"data\": {\"values\": [{\"region\": k, \"total\": v} for k, v in totals.items()]},\n" +
		"    \"encoding\": {\"x\": {\"field\": \"region\", \"type\": \"nominal\"}, \"y\": {\"field\": \"total\", \"type\": \"quantitative\"}}}\n"

	srv := llmtest.NewServer(t)
	srv.Enqueue(
		toolCall("c1", sandbox.ToolName, map[string]any{"code": bad}),
		toolCall("c2", sandbox.ToolName, map[string]any{"code": good}),
		llmtest.Reply{Chunks: llmtest.Text("North sells the most (15).", 3)},
	)
	sess, _ := db.CreateSession(bg, store.Session{Title: "sales", Model: "m"})
	res, rec, orig := run(t, eng.Runner, runner.Request{SessionID: sess.ID, Message: "Chart sales by region", BaseURL: srv.URL(), Attach: []string{csv}})
	if !res.OK || res.FinalText != "North sells the most (15)." {
		t.Fatalf("result %+v", res)
	}
	runs := codeRuns(t, rec)
	if len(runs) != 2 {
		t.Fatalf("%d code runs, want 2", len(runs))
	}
	if e := runs[0].Error; e == nil || e.Line != 4 || e.Col == 0 || !strings.Contains(e.Message, "amont") || runs[0].CallID != "c1" {
		t.Fatalf("the first run should fail at line 4 naming the key: %+v", runs[0])
	}
	if runs[1].Error != nil || runs[1].Chart == nil || runs[1].CallID != "c2" {
		t.Fatalf("the second run should return a chart: %+v", runs[1])
	}
	results := rec.Of(turn.EventToolResult)
	if len(results) != 2 || !strings.Contains(turntest.Data[turn.ToolResultData](t, results[0]).Output, "Error at line 4:") {
		t.Fatalf("the model should read the error with its line: %v", results)
	}
	charts := rec.Of(turn.EventChart)
	if len(charts) != 1 {
		t.Fatalf("%d charts, want 1", len(charts))
	}
	c := turntest.Data[turn.ChartData](t, charts[0])
	if c.Title != "Sales by region" || !strings.Contains(string(c.Spec), `"total":15`) {
		t.Fatalf("chart %s %s", c.Title, c.Spec)
	}
	srv.Close() // from here on nothing may reach a model

	rsess, _ := db.CreateSession(bg, store.Session{Title: "replay"})
	rep, rrec, _ := run(t, eng.Runner, runner.Request{SessionID: rsess.ID, Replay: &runner.Replay{TurnID: orig}})
	if !rep.OK || rep.FinalText != res.FinalText {
		t.Fatalf("replay: %+v", rep)
	}
	if d := divergences(t, rrec); len(d) != 0 {
		t.Fatalf("the replay diverged: %+v", d)
	}
	again := codeRuns(t, rrec)
	if len(again) != 2 || again[0].Error == nil || again[1].Chart == nil || string(again[1].Chart) != string(runs[1].Chart) {
		t.Fatalf("the replay should run both scripts again: %+v", again)
	}
	if n := len(rrec.Of(turn.EventChart)); n != 1 {
		t.Fatalf("the replay drew %d charts, want 1", n)
	}
}

func codeRuns(t *testing.T, rec *turntest.Recorder) []turn.CodeRunData {
	t.Helper()
	var out []turn.CodeRunData
	for _, e := range rec.Of(turn.EventCodeRun) {
		out = append(out, turntest.Data[turn.CodeRunData](t, e))
	}
	return out
}

// A turn stored by a runner without a sandbox (as every turn before
// run_code was) replays on one with a sandbox without being offered
// run_code: its recorded requests still match, nothing diverges.
func TestReplayOfATurnWithoutRunCode(t *testing.T) {
	_, db, eng := setuptest.NewEngine(t)
	// The engine's runner as it was before run_code: everything but the sandbox.
	old := runner.New(runner.Config{DB: db, Workflows: workflow.Builtins, Charts: eng.Charts, Knowledge: eng.Library, Web: eng.Web, Secrets: eng.Secrets, MCP: eng.MCP})
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("Seven.", 2)})
	sess, _ := db.CreateSession(bg, store.Session{Title: "pick", Model: "m"})
	res, _, orig := run(t, old, runner.Request{SessionID: sess.ID, Message: "Pick a number.", BaseURL: srv.URL()})
	if !res.OK {
		t.Fatalf("original: %+v", res)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || slices.Contains(reqs[0].Tools, sandbox.ToolName) {
		t.Fatalf("the runner without a sandbox offered run_code: %+v", reqs)
	}
	srv.Close()
	rsess, _ := db.CreateSession(bg, store.Session{Title: "replay"})
	rep, rec, _ := run(t, eng.Runner, runner.Request{SessionID: rsess.ID, Replay: &runner.Replay{TurnID: orig, Strict: true}})
	if !rep.OK || rep.FinalText != "Seven." {
		t.Fatalf("replay: %+v", rep)
	}
	if d := divergences(t, rec); len(d) != 0 {
		t.Fatalf("the replay diverged: %+v", d)
	}
}

// A session's settings bound its scripts: limits.code_steps over the
// runner's default stops a loop at the session's step limit, named.
func TestRunCodeTakesTheSessionsLimits(t *testing.T) {
	_, db, eng := setuptest.NewEngine(t)
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		toolCall("c1", sandbox.ToolName, map[string]any{"code": "n = 0\nwhile True:\n    n += 1\n"}),
		llmtest.Reply{Chunks: llmtest.Text("It ran too long.", 2)},
	)
	sess, _ := db.CreateSession(bg, store.Session{Title: "limits", Model: "m", Settings: turn.RunSettings{Limits: turn.Limits{CodeSteps: 5000}}})
	_, rec, _ := run(t, eng.Runner, runner.Request{SessionID: sess.ID, Message: "Loop", BaseURL: srv.URL()})
	runs := codeRuns(t, rec)
	if len(runs) != 1 || runs[0].Error == nil || runs[0].Error.Limit != "steps" {
		t.Fatalf("the loop should stop at the session's step limit: %+v", runs)
	}
	if runs[0].Steps > 6000 {
		t.Fatalf("ran %d steps, over the session's 5000", runs[0].Steps)
	}
}

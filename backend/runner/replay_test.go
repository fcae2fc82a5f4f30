package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

var bg = context.Background()

// run starts a turn and waits for it, with its events, which keep the
// invariants of a turn.
func run(t *testing.T, r *runner.Runner, req runner.Request) (turn.Result, *turntest.Recorder, string) {
	t.Helper()
	rec := &turntest.Recorder{}
	req.Sinks = append(req.Sinks, rec)
	h, err := r.Start(bg, req)
	if err != nil {
		t.Fatal(err)
	}
	res := h.Wait()
	turntest.Check(t, rec.Events())
	return res, rec, h.TurnID
}

func divergences(t *testing.T, rec *turntest.Recorder) []turn.ReplayDivergenceData {
	t.Helper()
	var out []turn.ReplayDivergenceData
	for _, e := range rec.Of(turn.EventReplayDivergence) {
		out = append(out, turntest.Data[turn.ReplayDivergenceData](t, e))
	}
	return out
}

// Two turns sent the same request and got different answers: each replays
// to its own answer, offline, and a replay of the replay works too.
func TestReplayGivesEachTurnItsOwnAnswer(t *testing.T) {
	_, db, eng := setuptest.NewEngine(t)
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("Seven.", 2)}, llmtest.Reply{Chunks: llmtest.Text("Forty-two.", 2)})
	var turns []string
	for range 2 {
		sess, _ := db.CreateSession(bg, store.Session{Title: "pick", Model: "m"})
		res, _, id := run(t, eng.Runner, runner.Request{SessionID: sess.ID, Message: "Pick a number.", BaseURL: srv.URL()})
		if !res.OK {
			t.Fatalf("recording turn: %+v", res)
		}
		turns = append(turns, id)
	}
	srv.Close() // from here on nothing may reach a model
	for i, want := range []string{"Seven.", "Forty-two."} {
		sess, _ := db.CreateSession(bg, store.Session{Title: "replay"})
		res, rec, id := run(t, eng.Runner, runner.Request{SessionID: sess.ID, Replay: &runner.Replay{TurnID: turns[i]}})
		if !res.OK || res.FinalText != want {
			t.Fatalf("replay of turn %d: %q (%s), want %q", i+1, res.FinalText, res.Error, want)
		}
		if d := divergences(t, rec); len(d) != 0 {
			t.Fatalf("an exact replay diverged: %+v", d)
		}
		again, _, _ := run(t, eng.Runner, runner.Request{SessionID: sess.ID, Replay: &runner.Replay{TurnID: id}})
		if again.FinalText != want {
			t.Fatalf("a replay of the replay gave %q (%s), want %q", again.FinalText, again.Error, want)
		}
	}
}

// In a replay a side-effecting tool never runs: the model gets the result
// the original got. Read-only tools run, and a changed result is reported.
func TestReplayNeverRepeatsSideEffects(t *testing.T) {
	dir, db, eng := setuptest.NewEngine(t)
	ws := filepath.Join(dir, "ws")
	os.Mkdir(ws, 0o700)
	os.WriteFile(filepath.Join(ws, "in.txt"), []byte("first version"), 0o600)
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		toolCall("r1", "read_file", map[string]any{"path": "in.txt"}),
		toolCall("w1", "write_file", map[string]any{"path": "out.txt", "content": "copied"}),
		llmtest.Reply{Chunks: llmtest.Text("Copied in.txt to out.txt.", 3)},
	)
	sess, _ := db.CreateSession(bg, store.Session{Title: "copy", Model: "m", Workspace: ws})
	res, _, orig := run(t, eng.Runner, runner.Request{SessionID: sess.ID, Message: "Copy in.txt", BaseURL: srv.URL(), Approver: agent.PolicyApprover{AllowAll: true}})
	if !res.OK {
		t.Fatalf("original: %+v", res)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "out.txt")); string(b) != "copied" {
		t.Fatalf("the original turn should have written out.txt: %q", b)
	}
	os.Remove(filepath.Join(ws, "out.txt"))
	os.WriteFile(filepath.Join(ws, "in.txt"), []byte("second version"), 0o600)
	srv.Close()

	for _, tt := range []struct {
		name    string
		strict  bool
		ok      bool
		results []string // divergence kinds expected
	}{
		{name: "reported", ok: true, results: []string{"tool_result", recording.DivergedRequest}},
		{name: "strict", strict: true, ok: false, results: []string{"tool_result", recording.DivergedRequest}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rsess, _ := db.CreateSession(bg, store.Session{Title: "replay"})
			res, rec, _ := run(t, eng.Runner, runner.Request{SessionID: rsess.ID, Replay: &runner.Replay{TurnID: orig, Strict: tt.strict}})
			if _, err := os.Stat(filepath.Join(ws, "out.txt")); !os.IsNotExist(err) {
				t.Fatal("the replay wrote the file: a side effect ran again")
			}
			var kinds []string
			for _, d := range divergences(t, rec) {
				kinds = append(kinds, d.Kind)
				if d.Kind == "tool_result" && !strings.Contains(strings.Join(d.Diffs, "\n"), "second version") {
					t.Fatalf("the tool divergence should show the new result: %+v", d)
				}
			}
			if strings.Join(kinds, ",") != strings.Join(tt.results, ",") {
				t.Fatalf("divergences %v, want %v", kinds, tt.results)
			}
			if res.OK != tt.ok {
				t.Fatalf("ok %v, want %v: %+v", res.OK, tt.ok, res.Error)
			}
			if tt.ok {
				if res.FinalText != "Copied in.txt to out.txt." {
					t.Fatalf("final text %q", res.FinalText)
				}
				results := rec.Of(turn.EventToolResult)
				if len(results) != 2 || !strings.Contains(string(results[1].Data), "out.txt") {
					t.Fatalf("the write's recorded result should reach the model: %v", results)
				}
			}
		})
	}
}

// A replay runs the original's workflow with the original's limits, even
// when the caller's limits differ.
func TestReplayUsesTheOriginalLimits(t *testing.T) {
	_, db, eng := setuptest.NewEngine(t)
	srv := llmtest.NewServer(t)
	srv.Enqueue(toolCall("1", "update_plan", map[string]any{"steps": []map[string]any{{"title": "a", "status": "running"}}}),
		toolCall("2", "update_plan", map[string]any{"steps": []map[string]any{{"title": "a", "status": "done"}}}),
		llmtest.Reply{Chunks: llmtest.Text("Stopped early.", 2)})
	sess, _ := db.CreateSession(bg, store.Session{Title: "limits", Model: "m"})
	res, _, orig := run(t, eng.Runner, runner.Request{SessionID: sess.ID, Message: "plan", BaseURL: srv.URL(), Limits: turn.Limits{MaxSteps: 2}})
	if res.Termination.Kind != turn.TermMaxIterations {
		t.Fatalf("original %+v", res.Termination)
	}
	srv.Close()
	rsess, _ := db.CreateSession(bg, store.Session{Title: "replay"})
	rep, rec, _ := run(t, eng.Runner, runner.Request{SessionID: rsess.ID, Limits: turn.Limits{MaxSteps: 10}, Replay: &runner.Replay{TurnID: orig}})
	if rep.Termination.Kind != turn.TermMaxIterations || rep.Termination.Limit != 2 || rep.FinalText != "Stopped early." {
		t.Fatalf("replay %+v %q", rep.Termination, rep.FinalText)
	}
	if d := divergences(t, rec); len(d) != 0 {
		t.Fatalf("divergences %+v", d)
	}
}

// A turn whose only model call failed has nothing recorded to replay, and
// says so rather than blaming the recording setting.
func TestReplayOfAFailedTurnSaysWhy(t *testing.T) {
	_, db, eng := setuptest.NewEngine(t)
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.ErrorReply(400, "invalid_request_error", "bad request"))
	sess, _ := db.CreateSession(bg, store.Session{Title: "fails", Model: "m"})
	res, _, orig := run(t, eng.Runner, runner.Request{SessionID: sess.ID, Message: "hi", BaseURL: srv.URL()})
	if res.OK {
		t.Fatalf("the turn should fail: %+v", res)
	}
	rsess, _ := db.CreateSession(bg, store.Session{Title: "replay"})
	_, err := eng.Runner.Start(bg, runner.Request{SessionID: rsess.ID, Replay: &runner.Replay{TurnID: orig}})
	if err == nil || !strings.Contains(err.Error(), "its model calls failed") {
		t.Fatalf("replaying a failed turn: %v", err)
	}
}

// A turn whose model thought before a tool call and before its answer
// (a reasoning field, structured reasoning_details, <think> in the
// content) replays offline to the same reasoning events, the same clean
// answer and the same stored reasoning, without diverging: the follow-up
// request sends the same reasoning back as the original did.
func TestReplayKeepsTheReasoning(t *testing.T) {
	_, db, eng := setuptest.NewEngine(t)
	srv := llmtest.NewServer(t)
	details := `{"choices":[{"index":0,"delta":{"reasoning":"Plan it.","reasoning_details":[{"type":"reasoning.text","text":"Plan it.","index":0}]},"finish_reason":null}]}`
	signature := `{"choices":[{"index":0,"delta":{"reasoning_details":[{"type":"reasoning.text","signature":"c2ln","index":0}]},"finish_reason":null}]}`
	srv.Enqueue(
		llmtest.Reply{Chunks: append([]llmtest.Chunk{{Raw: details}, {Raw: signature}},
			llmtest.WithFinish(llmtest.ToolCallChunks(0, "p1", "update_plan", `{"steps":[{"title":"Answer","status":"done"}]}`, 2), "tool_calls")...)},
		llmtest.Reply{Chunks: append([]llmtest.Chunk{{Content: "<think>Say it."}, {Content: "</think>\n"}}, llmtest.Text("Done.", 2)...)},
	)
	if err := db.SaveProvider(bg, llm.Provider{Name: "router", Kind: catalog.KindCustom, BaseURL: srv.URL()}); err != nil {
		t.Fatal(err)
	}
	sess, _ := db.CreateSession(bg, store.Session{Title: "think", Model: "m", Provider: "router"})
	res, rec, id := run(t, eng.Runner, runner.Request{SessionID: sess.ID, Message: "Plan, then answer."})
	if !res.OK || res.FinalText != "Done." {
		t.Fatalf("recording turn: %q (%s)", res.FinalText, res.Error)
	}
	original := joined(t, rec.Of(turn.EventReasoning))
	if original != "Plan it.Say it." {
		t.Fatalf("recorded reasoning %q", original)
	}
	srv.Close()

	sess2, _ := db.CreateSession(bg, store.Session{Title: "replay"})
	res2, rec2, id2 := run(t, eng.Runner, runner.Request{SessionID: sess2.ID, Replay: &runner.Replay{TurnID: id}})
	if !res2.OK || res2.FinalText != "Done." {
		t.Fatalf("replay: %q (%s)", res2.FinalText, res2.Error)
	}
	if d := divergences(t, rec2); len(d) != 0 {
		t.Fatalf("the replay diverged: %+v", d)
	}
	if got := joined(t, rec2.Of(turn.EventReasoning)); got != original {
		t.Errorf("replayed reasoning %q, want %q", got, original)
	}
	for _, tid := range []string{id, id2} {
		d, err := db.GetTurn(bg, tid, false)
		if err != nil {
			t.Fatal(err)
		}
		var first llm.Message
		for _, m := range d.Messages {
			if len(m.ToolCalls) > 0 {
				first = m
			}
		}
		if first.Reasoning != "Plan it." || !strings.Contains(string(first.ReasoningDetails), `"signature":"c2ln"`) || !strings.Contains(string(first.ReasoningDetails), `"text":"Plan it."`) {
			t.Errorf("turn %s stored reasoning %q, details %s", tid, first.Reasoning, first.ReasoningDetails)
		}
	}
}

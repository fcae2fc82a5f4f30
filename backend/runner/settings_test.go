package runner_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

func ptr[T any](v T) *T { return &v }

// systemOf is the system message a request began with ("" for none).
func systemOf(r llmtest.Request) string {
	if len(r.Messages) > 0 && r.Messages[0].Role == "system" {
		return r.Messages[0].Content
	}
	return ""
}

// The session's instructions follow the chat agent's own system prompt;
// in critique-revise they reach the writer and not the critic, and the
// critic keeps the temperature its workflow file gives it while the
// writer takes the session's.
func TestInstructionsAndSamplingReachTheAgents(t *testing.T) {
	_, db, eng := setuptest.NewEngine(t)
	srv := llmtest.NewServer(t)
	const ins = "Answer in French."
	sess, err := db.CreateSession(bg, store.Session{Title: "s", Model: "m",
		Settings: turn.RunSettings{Instructions: ptr(ins), Sampling: turn.Sampling{Temperature: ptr(0.9)}}})
	if err != nil {
		t.Fatal(err)
	}

	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("Bonjour.", 2)})
	if res, _, _ := run(t, eng.Runner, runner.Request{SessionID: sess.ID, Message: "Hi", BaseURL: srv.URL()}); !res.OK {
		t.Fatalf("chat turn: %+v", res)
	}
	chat := systemOf(srv.Requests()[0])
	if !strings.HasSuffix(chat, "\n\n"+ins) || chat == ins {
		t.Errorf("chat's system message %q does not end with its own prompt, a blank line and the instructions", chat)
	}

	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("Un brouillon.", 2)},
		llmtest.Reply{Chunks: llmtest.Text(`{"passed": true, "score": 0.9, "feedback": "Bien."}`, 2)})
	res, _, id := run(t, eng.Runner, runner.Request{SessionID: sess.ID, Message: "Write a line", Workflow: "critique-revise", BaseURL: srv.URL()})
	if !res.OK {
		t.Fatalf("critique-revise turn: %+v", res)
	}
	// The turn's diagnostics say which agent got what.
	d, err := db.GetTurn(bg, id, false)
	if err != nil {
		t.Fatal(err)
	}
	if c, w := d.Agents["critic"], d.Agents["writer"]; c.Instructions || !w.Instructions || c.Sampling.Temperature == nil || *c.Sampling.Temperature != 0.2 || w.Sampling.Temperature != nil {
		t.Errorf("stored agents: critic %+v, writer %+v", c, w)
	}
	reqs := srv.Requests()
	writer, critic := reqs[1], reqs[2]
	if !strings.HasSuffix(systemOf(writer), "\n\n"+ins) {
		t.Errorf("the writer's system message lacks the instructions: %q", systemOf(writer))
	}
	if strings.Contains(systemOf(critic), ins) {
		t.Errorf("the critic was given the session's instructions: %q", systemOf(critic))
	}
	if got := writer.Body["temperature"]; got != 0.9 {
		t.Errorf("writer temperature %v, want the session's 0.9", got)
	}
	if got := critic.Body["temperature"]; got != 0.2 {
		t.Errorf("critic temperature %v, want its workflow file's 0.2", got)
	}
}

// Each setting reaches the request from the highest layer that sets it:
// app defaults, then the project, the session, the turn; the turn stores
// them with where each came from, and keeps them after the project's
// defaults change; a replay runs with the stored ones.
func TestSettingsPrecedenceIsSentAndKept(t *testing.T) {
	_, db, eng := setuptest.NewEngine(t)
	srv := llmtest.NewServer(t)
	app, err := db.AppSettings(bg)
	if err != nil {
		t.Fatal(err)
	}
	app.Defaults.Temperature, app.Defaults.MaxTokens = ptr(0.1), ptr(100)
	if err := db.SaveAppSettings(bg, app); err != nil {
		t.Fatal(err)
	}
	proj, err := db.CreateProject(bg, store.Project{Name: "p", Settings: turn.RunSettings{Model: "project-model",
		Instructions: ptr("Be brief."), Sampling: turn.Sampling{Temperature: ptr(0.3), Seed: ptr(int64(7))}}})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := db.CreateSession(bg, store.Session{Title: "s", ProjectID: proj.ID, Settings: turn.RunSettings{Sampling: turn.Sampling{TopP: ptr(0.5)}}})
	if err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("Done.", 2)})
	res, _, id := run(t, eng.Runner, runner.Request{SessionID: sess.ID, Message: "Go", BaseURL: srv.URL(),
		Settings: turn.RunSettings{Sampling: turn.Sampling{Temperature: ptr(0.7), Stop: []string{"END"}}}})
	if !res.OK {
		t.Fatalf("turn: %+v", res)
	}
	r := srv.Requests()[0]
	if r.Model != "project-model" {
		t.Errorf("model %q, want the project's (the session names none)", r.Model)
	}
	want := map[string]any{"temperature": 0.7, "top_p": 0.5, "seed": 7.0, "max_tokens": 100.0, "stop": []any{"END"}}
	for k, v := range want {
		if !reflect.DeepEqual(r.Body[k], v) {
			t.Errorf("%s = %v, want %v", k, r.Body[k], v)
		}
	}
	if !strings.HasSuffix(systemOf(r), "\n\nBe brief.") {
		t.Errorf("the project's instructions were not sent: %q", systemOf(r))
	}
	wantFrom := map[string]string{"temperature": turn.LayerTurn, "stop": turn.LayerTurn, "top_p": turn.LayerSession,
		"seed": turn.LayerProject, "instructions": turn.LayerProject, "model": turn.LayerProject, "max_tokens": turn.LayerApp}
	stored := func() *turn.Resolved {
		d, err := db.GetTurn(bg, id, false)
		if err != nil || d.Settings == nil {
			t.Fatalf("the turn's stored settings: %+v, %v", d.Settings, err)
		}
		return d.Settings
	}
	before := stored()
	for k, v := range wantFrom {
		if before.From[k] != v {
			t.Errorf("%s came from %q, want %q", k, before.From[k], v)
		}
	}

	proj.Settings.Temperature, proj.Settings.Instructions = ptr(1.5), ptr("Be long.")
	if err := db.UpdateProject(bg, proj); err != nil {
		t.Fatal(err)
	}
	if after := stored(); !reflect.DeepEqual(after, before) {
		t.Errorf("the stored settings changed with the project's:\nbefore %+v\nafter  %+v", before, after)
	}
	srv.Close() // the replay must be served from the recording
	replay, rec, rid := run(t, eng.Runner, runner.Request{SessionID: sess.ID, Replay: &runner.Replay{TurnID: id, Strict: true}})
	if !replay.OK || len(divergences(t, rec)) != 0 {
		t.Fatalf("the replay did not run as the original: %+v %+v", replay, divergences(t, rec))
	}
	d, _ := db.GetTurn(bg, rid, false)
	if d.Settings == nil || !reflect.DeepEqual(d.Settings.Settings, before.Settings) {
		t.Errorf("the replay ran with %+v, want the original's %+v", d.Settings, before.Settings)
	}
}

// A turn's own settings are checked before it starts.
func TestInvalidTurnSettingsAreRefused(t *testing.T) {
	_, db, eng := setuptest.NewEngine(t)
	sess, _ := db.CreateSession(bg, store.Session{Title: "s", Model: "m"})
	_, err := eng.Runner.Start(bg, runner.Request{SessionID: sess.ID, Message: "x", BaseURL: "http://127.0.0.1:1",
		Settings: turn.RunSettings{Sampling: turn.Sampling{Temperature: ptr(3.0)}}})
	if err == nil || !strings.Contains(err.Error(), "temperature must be between 0 and 2") {
		t.Fatalf("err %v, want the temperature's range", err)
	}
}

// A session's limits hold where the request sets none, and a limit the
// request sets (the CLI's --max-steps) wins over them.
func TestSessionLimitsApplyUnlessTheRequestSetsThem(t *testing.T) {
	_, db, eng := setuptest.NewEngine(t)
	srv := llmtest.NewServer(t)
	sess, err := db.CreateSession(bg, store.Session{Title: "s", Model: "m", Settings: turn.RunSettings{Limits: turn.Limits{MaxSteps: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	call := toolCall("c1", "update_plan", map[string]any{"steps": []map[string]any{{"title": "look", "status": "in_progress"}}})
	srv.Enqueue(call, call, llmtest.Reply{Chunks: llmtest.Text("Done.", 1)})
	res, _, _ := run(t, eng.Runner, runner.Request{SessionID: sess.ID, Message: "Plan it", BaseURL: srv.URL()})
	if res.Termination.Kind != turn.TermMaxIterations {
		t.Fatalf("with the session's one step: %+v, want the step limit", res.Termination)
	}
	res, _, id := run(t, eng.Runner, runner.Request{SessionID: sess.ID, Message: "Plan it", BaseURL: srv.URL(), Limits: turn.Limits{MaxSteps: 5}})
	if !res.OK {
		t.Fatalf("with the request's five steps: %+v", res)
	}
	d, _ := db.GetTurn(bg, id, false)
	if d.Settings == nil || d.Settings.Settings.Limits.MaxSteps != 5 || d.Settings.From["limits.max_steps"] != turn.LayerTurn {
		t.Errorf("stored limits %+v", d.Settings)
	}
}

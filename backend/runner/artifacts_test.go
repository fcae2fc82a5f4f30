package runner_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/artifact"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

// artifactsOf are the artifact events of a turn's events, with where each
// came in the turn relative to final_answer.
func artifactsOf(t *testing.T, events []turn.Event) []turn.ArtifactData {
	t.Helper()
	var out []turn.ArtifactData
	final := false
	for _, e := range events {
		switch e.Type {
		case turn.EventFinalAnswer:
			final = true
		case turn.EventArtifact:
			if final {
				t.Fatalf("an artifact after final_answer")
			}
			out = append(out, turntest.Data[turn.ArtifactData](t, e))
		}
	}
	return out
}

// A turn that calls create_artifact and answers with an html block stores
// both artifacts, the block's before final_answer; the next turn's call
// of the same artifact is its version 2; a replay of each reproduces its
// artifacts and the tool's result with no divergence.
func TestArtifactsStoredAndReplayed(t *testing.T) {
	_, db, eng := setuptest.NewEngine(t)
	srv := llmtest.NewServer(t)
	svg := `<svg xmlns="http://www.w3.org/2000/svg"><circle r="4"/></svg>`
	page := "<!doctype html><title>Counter</title><button>+1</button><script>document.body.append('script ran')</script>"
	srv.Enqueue(
		toolCall("a1", artifact.Name, map[string]any{"title": "Dot", "kind": "svg", "content": svg}),
		llmtest.Reply{Chunks: llmtest.Text("A dot, and a page:\n\n```html\n"+page+"\n```\n", 4)},
		toolCall("a2", artifact.Name, map[string]any{"title": "Dot", "kind": "svg", "content": strings.Replace(svg, `r="4"`, `r="8"`, 1)}),
		llmtest.Reply{Chunks: llmtest.Text("A bigger dot.", 2)},
	)
	sess, _ := db.CreateSession(bg, store.Session{Title: "artifacts", Model: "m"})
	res, rec, first := run(t, eng.Runner, runner.Request{SessionID: sess.ID, Message: "Draw a dot and a page.", BaseURL: srv.URL()})
	if !res.OK {
		t.Fatalf("turn 1: %+v", res)
	}
	want := []turn.ArtifactData{
		{Key: "dot", Title: "Dot", Kind: "svg", Content: svg, Source: turn.ArtifactFromTool, CallID: "a1"},
		{Key: "html", Title: "Counter", Kind: "html", Content: page + "\n", Source: turn.ArtifactFromBlock},
	}
	if got := artifactsOf(t, rec.Events()); !reflect.DeepEqual(got, want) {
		t.Fatalf("live artifacts\n%+v\nwant\n%+v", got, want)
	}
	d, err := db.GetTurn(bg, first, true)
	if err != nil {
		t.Fatal(err)
	}
	if got := artifactsOf(t, d.Events); !reflect.DeepEqual(got, want) {
		t.Fatalf("stored artifacts\n%+v\nwant\n%+v", got, want)
	}
	res2, rec2, second := run(t, eng.Runner, runner.Request{SessionID: sess.ID, Message: "Make the dot bigger.", BaseURL: srv.URL()})
	if !res2.OK {
		t.Fatalf("turn 2: %+v", res2)
	}
	results := rec2.Of(turn.EventToolResult)
	if len(results) != 1 || !strings.Contains(turntest.Data[turn.ToolResultData](t, results[0]).Output, `as version 2 (key "dot")`) {
		t.Fatalf("the second version's result: %v", results)
	}
	want2 := artifactsOf(t, rec2.Events())
	srv.Close() // from here on nothing may reach a model

	for i, c := range []struct {
		id   string
		want []turn.ArtifactData
	}{{first, want}, {second, want2}} {
		rsess, _ := db.CreateSession(bg, store.Session{Title: "replay"})
		rep, rrec, _ := run(t, eng.Runner, runner.Request{SessionID: rsess.ID, Replay: &runner.Replay{TurnID: c.id}})
		if !rep.OK {
			t.Fatalf("replay of turn %d: %+v", i+1, rep)
		}
		if dv := divergences(t, rrec); len(dv) != 0 {
			t.Fatalf("replay of turn %d diverged: %+v", i+1, dv)
		}
		if got := artifactsOf(t, rrec.Events()); !reflect.DeepEqual(got, c.want) {
			t.Fatalf("replay of turn %d: artifacts\n%+v\nwant\n%+v", i+1, got, c.want)
		}
	}
}

// A turn stopped mid-answer, or one that failed, has no artifacts from
// its blocks: there is no final answer.
func TestNoBlockArtifactsWithoutAnAnswer(t *testing.T) {
	_, db, eng := setuptest.NewEngine(t)
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.ErrorReply(400, "", "bad request"))
	sess, _ := db.CreateSession(bg, store.Session{Title: "fails", Model: "m"})
	res, rec, _ := run(t, eng.Runner, runner.Request{SessionID: sess.ID, Message: "```html\n<p>x</p>\n```", BaseURL: srv.URL()})
	if res.OK {
		t.Fatalf("the turn succeeded: %+v", res)
	}
	if got := artifactsOf(t, rec.Events()); len(got) != 0 {
		t.Fatalf("artifacts of a failed turn: %+v", got)
	}
}

// A workflow whose answer is a stage's reply (critique-revise: the
// writer's draft the critic passed) has that answer's blocks read as
// artifacts once, in the stage that gave it.
func TestWorkflowAnswerBlocksAreArtifacts(t *testing.T) {
	_, db, eng := setuptest.NewEngine(t)
	srv := llmtest.NewServer(t)
	draft := "Here:\n\n```svg\n<svg><title>Logo</title><rect width=\"4\" height=\"4\"/></svg>\n```\n"
	srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text(draft, 3)},
		llmtest.Reply{Chunks: llmtest.Text(`{"passed": true, "score": 0.9, "feedback": "Good."}`, 2)})
	sess, _ := db.CreateSession(bg, store.Session{Title: "logo", Model: "m"})
	res, rec, _ := run(t, eng.Runner, runner.Request{SessionID: sess.ID, Message: "Draw a logo", Workflow: "critique-revise", BaseURL: srv.URL()})
	if !res.OK || res.FinalText != draft {
		t.Fatalf("turn: %+v", res)
	}
	got := artifactsOf(t, rec.Events())
	if len(got) != 1 || got[0].Key != "svg" || got[0].Title != "Logo" || got[0].Source != turn.ArtifactFromBlock {
		t.Fatalf("artifacts %+v", got)
	}
	if e := rec.Of(turn.EventArtifact)[0]; e.StageID != res.FinalStageID {
		t.Fatalf("the artifact is of stage %q, the answer of %q", e.StageID, res.FinalStageID)
	}
}

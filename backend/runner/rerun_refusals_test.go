package runner_test

import (
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// A re-run that cannot be made is refused before anything is stored, with
// a message that says why and what to do instead.
func TestRerunRefusals(t *testing.T) {
	g := newRerunRig(t)
	chat := builtinTurns()[0]
	orig := recordOriginal(t, g, chat)
	g.srv.Enqueue(chat.script...)
	off := g.req(chat.workflow, chat.message, nil)
	off.Capture = recording.Off
	unrecorded := g.turnOf(t, off)
	busy, _ := g.db.CreateSession(bg, store.Session{Title: "busy", Model: "m"})
	running, err := g.db.StartTurn(bg, store.Turn{SessionID: busy.ID, UserMessage: "still going", Workflow: "chat", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := g.db.CreateSession(bg, store.Session{Title: "other", Model: "m"})
	tests := []struct {
		name    string
		session string
		from    runner.From
		code    apperr.Code
		want    []string // in the message
	}{
		{"unknown turn", "", runner.From{TurnID: "nope", Step: "start"}, apperr.NotFound, nil},
		{"unknown step", "", runner.From{TurnID: orig.id, Step: "call99"}, apperr.Invalid, []string{`has no step "call99"`, "start, stage1, call1"}},
		{"a reply edit on a tool", "", runner.From{TurnID: orig.id, Step: "tool1", Edit: runner.Edit{Kind: runner.EditReply, Text: "x"}}, apperr.Invalid, []string{"A reply edit does not fit tool result 1", "a tool result takes an edited result"}},
		{"a message edit on a call", "", runner.From{TurnID: orig.id, Step: "call2", Edit: runner.Edit{Kind: runner.EditMessage, Text: "x"}}, apperr.Invalid, []string{"does not fit model call 2", "edited reply or settings"}},
		{"a tool result edit at the start", "", runner.From{TurnID: orig.id, Step: "start", Edit: runner.Edit{Kind: runner.EditToolResult, Text: "x"}}, apperr.Invalid, []string{"does not fit start of the turn"}},
		{"a stage edit on a call", "", runner.From{TurnID: orig.id, Step: "call1", Edit: runner.Edit{Kind: runner.EditStage, Stage: map[string]string{"model": "x"}}}, apperr.Invalid, []string{"does not fit"}},
		{"an unknown edit", "", runner.From{TurnID: orig.id, Step: "start", Edit: runner.Edit{Kind: "colour"}}, apperr.Invalid, []string{`"colour" is not an edit`}},
		{"an empty message", "", runner.From{TurnID: orig.id, Step: "start", Edit: runner.Edit{Kind: runner.EditMessage, Text: "  "}}, apperr.Invalid, []string{"message is empty"}},
		{"an empty stage edit", "", runner.From{TurnID: orig.id, Step: "stage1", Edit: runner.Edit{Kind: runner.EditStage}}, apperr.Invalid, []string{"needs at least one KEY=VALUE"}},
		{"an unknown stage key", "", runner.From{TurnID: orig.id, Step: "stage1", Edit: runner.Edit{Kind: runner.EditStage, Stage: map[string]string{"colour": "red"}}}, apperr.Invalid, []string{`cannot set "colour"`}},
		{"a stage value that is no number", "", runner.From{TurnID: orig.id, Step: "stage1", Edit: runner.Edit{Kind: runner.EditStage, Stage: map[string]string{"temperature": "warm"}}}, apperr.Invalid, []string{"temperature must be a number"}},
		{"settings that are not valid", "", runner.From{TurnID: orig.id, Step: "call1", Edit: runner.Edit{Kind: runner.EditSettings, Settings: turn.RunSettings{Sampling: turn.Sampling{Temperature: ptr(9.0)}}}}, apperr.Invalid, []string{"edited settings are not valid"}},
		{"a running turn", busy.ID, runner.From{TurnID: running.ID, Step: "start"}, apperr.Conflict, []string{"still running", "stop it"}},
		{"another session's turn", other.ID, runner.From{TurnID: orig.id, Step: "start"}, apperr.Invalid, []string{"belongs to another session"}},
		{"a turn recorded with recording off", "", runner.From{TurnID: unrecorded.id, Step: "call2"}, apperr.Invalid, []string{"ran with recording off", "before model call 2", "Re-run it from the start instead"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := g.req("", "", &tt.from)
			if tt.session != "" {
				req.SessionID = tt.session
			}
			before, _, _ := g.db.SessionTurns(bg, req.SessionID)
			_, err := g.r.Start(bg, req)
			if err == nil {
				t.Fatal("the re-run was started")
			}
			if apperr.CodeOf(err) != tt.code {
				t.Fatalf("code %s, want %s: %v", apperr.CodeOf(err), tt.code, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(apperr.MessageOf(err), w) {
					t.Fatalf("the message %q does not say %q", apperr.MessageOf(err), w)
				}
			}
			if after, _, _ := g.db.SessionTurns(bg, req.SessionID); len(after) != len(before) {
				t.Fatalf("a refused re-run stored a turn: %d turns, were %d", len(after), len(before))
			}
		})
	}
	// The start of a turn recorded with recording off needs no recording.
	g.srv.Enqueue(chat.script...)
	if re := g.turnOf(t, g.req("", "", &runner.From{TurnID: unrecorded.id, Step: "start"})); !re.res.OK || len(re.reqs) != len(chat.script) {
		t.Fatalf("a re-run from the start of an unrecorded turn: %s, %d model calls", re.res.Error, len(re.reqs))
	}
}

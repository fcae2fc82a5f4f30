package workflow_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
	"github.com/agentdeck/agentdeck/backend/workflow"
)

// history is an earlier turn whose answer must never pass for this one's.
var history = []llm.Message{
	{Role: llm.RoleUser, Content: "Earlier question"},
	{Role: llm.RoleAssistant, Content: "PREVIOUS ANSWER"},
}

func pipelineOf(stages ...workflow.Stage) *workflow.Definition {
	return &workflow.Definition{Name: "pl", Agents: agents("one", "two", "three"), Stage: workflow.Stage{Kind: workflow.KindPipeline},
		Phases: []workflow.Phase{{Name: "p", Stages: stages}}}
}

func server500() llmtest.Reply { return llmtest.ErrorReply(500, "server_error", "the model is down") }

// A turn whose only stage failed before any reply has no final text, and
// the messages it adds after the history hold no assistant message: the
// previous turn's answer used to be reported as this turn's.
func TestFailedTurnHasNoFinalText(t *testing.T) {
	tests := []struct {
		name   string
		def    *workflow.Definition
		queues map[string][]llmtest.Reply
	}{
		{"chat", &workflow.Definition{Name: "c", Agents: agents("a"), Stage: workflow.Stage{Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "a"}}},
			map[string][]llmtest.Reply{"a": {server500()}}},
		{"critique-revise", critiqueDef(nil), map[string][]llmtest.Reply{"writer": {server500()}}},
		{"plan-execute", &workflow.Definition{Name: "pe", Agents: agents("planner", "executor"), Stage: workflow.Stage{Kind: workflow.KindPlanExecute, Roles: workflow.Roles{"planner": "planner", "executor": "executor"}}},
			map[string][]llmtest.Reply{"planner": {server500()}}},
		{"reflection", &workflow.Definition{Name: "rf", Agents: agents("author"), Stage: workflow.Stage{Kind: workflow.KindReflection, Roles: workflow.Roles{"agent": "author"}}},
			map[string][]llmtest.Reply{"author": {server500()}}},
		{"handoff", &workflow.Definition{Name: "ho", Agents: agents("triage", "poet"), Stage: workflow.Stage{Kind: workflow.KindHandoff, Roles: workflow.Roles{"triage": "triage"}, Teams: workflow.Teams{"specialists": {"poet"}}}},
			map[string][]llmtest.Reply{"triage": {server500()}}},
		{"pipeline", pipelineOf(workflow.Stage{Name: "first", Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "one"}}),
			map[string][]llmtest.Reply{"one": {server500()}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, _, _ := runWFInput(t, context.Background(), tt.def, agent.Input{History: history, User: "Now this"}, tt.queues, nil)
			if res.OK || res.Outcome != turn.OutcomeFailed || !strings.Contains(res.Error, "the model is down") {
				t.Fatalf("outcome %s, error %q", res.Outcome, res.Error)
			}
			if res.FinalText != "" || res.FinalStageID != "" {
				t.Fatalf("final text %q from stage %q, want none", res.FinalText, res.FinalStageID)
			}
			for _, m := range turnMessages(t, res) {
				if m.Role == llm.RoleAssistant {
					t.Fatalf("the turn's messages hold an assistant message %q", m.Content)
				}
			}
		})
	}
}

// turnMessages are the messages a turn adds after the history (as the
// store keeps them: system prompts aside).
func turnMessages(t *testing.T, res turn.Result) []llm.Message {
	t.Helper()
	var convo []llm.Message
	for _, m := range res.Messages {
		if m.Role != llm.RoleSystem {
			convo = append(convo, m)
		}
	}
	if len(convo) < len(history)+1 || convo[len(history)].Role != llm.RoleUser {
		t.Fatalf("messages %+v do not start with the history and the user's message", convo)
	}
	return convo[len(history)+1:]
}

func tc(id, name string) llmtest.Reply {
	return llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, id, name, `{}`, 1), "tool_calls")}
}

// The final text is the reply of the stage that produced the workflow's
// output, and FinalStageID names that stage. For a workflow other than
// chat, the turn's messages end with it.
func TestFinalTextFromTheFinalStage(t *testing.T) {
	tests := []struct {
		name   string
		def    *workflow.Definition
		queues map[string][]llmtest.Reply
		text   string
		stage  string // the name of the stage whose reply it is; "" for none
	}{
		{"chat", &workflow.Definition{Name: "c", Agents: agents("a"), Stage: workflow.Stage{Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "a"}}},
			map[string][]llmtest.Reply{"a": {reply("the answer", 10)}}, "the answer", "chat"},
		{"chat that replies blank", &workflow.Definition{Name: "c", Agents: agents("a"), Stage: workflow.Stage{Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "a"}}},
			map[string][]llmtest.Reply{"a": {reply(" \n\t ", 10)}}, "", ""},
		{"critique-revise: the first draft, not the critic's JSON", critiqueDef(nil),
			map[string][]llmtest.Reply{"writer": {reply("d1", 10)}, "critic": {reply(`{"passed": true, "score": 0.9, "feedback": "fine"}`, 8)}}, "d1", "write"},
		{"critique-revise: the revised draft", critiqueDef(nil),
			map[string][]llmtest.Reply{"writer": {reply("d1", 10), reply("d2", 10)}, "critic": {reply("FAIL: flat", 8), reply("PASS", 8)}}, "d2", "revise 1"},
		{"critique-revise: a blank revision keeps the draft", critiqueDef(nil),
			map[string][]llmtest.Reply{"writer": {reply("d1", 10), reply("  ", 10)}, "critic": {reply("FAIL: flat", 8), reply("PASS", 8)}}, "d1", "write"},
		{"plan-execute", &workflow.Definition{Name: "pe", Agents: agents("planner", "executor", "finisher"), Stage: workflow.Stage{Kind: workflow.KindPlanExecute, Roles: workflow.Roles{"planner": "planner", "executor": "executor", "finisher": "finisher"}}},
			map[string][]llmtest.Reply{"planner": {reply(`{"steps":["A"]}`, 5)}, "executor": {reply("a done", 5)}, "finisher": {reply("the report", 5)}}, "the report", "finish"},
		{"plan-execute whose finisher fails", &workflow.Definition{Name: "pe", Agents: agents("planner", "executor", "finisher"), Stage: workflow.Stage{Kind: workflow.KindPlanExecute, Roles: workflow.Roles{"planner": "planner", "executor": "executor", "finisher": "finisher"}}},
			map[string][]llmtest.Reply{"planner": {reply(`{"steps":["A"]}`, 5)}, "executor": {reply("a done", 5)}, "finisher": {server500()}}, "", ""},
		{"handoff: the specialist", &workflow.Definition{Name: "ho", Agents: agents("triage", "poet"), Stage: workflow.Stage{Kind: workflow.KindHandoff, Roles: workflow.Roles{"triage": "triage"}, Teams: workflow.Teams{"specialists": {"poet"}}}},
			map[string][]llmtest.Reply{"triage": {tc("h1", "transfer_to_poet")}, "poet": {reply("Rows in quiet pages", 10)}}, "Rows in quiet pages", "poet 2"},
		{"handoff: triage answers itself", &workflow.Definition{Name: "ho", Agents: agents("triage", "poet"), Stage: workflow.Stage{Kind: workflow.KindHandoff, Roles: workflow.Roles{"triage": "triage"}, Teams: workflow.Teams{"specialists": {"poet"}}}},
			map[string][]llmtest.Reply{"triage": {reply("Hello!", 10)}}, "Hello!", "triage 1"},
		{"pipeline: the last stage", pipelineOf(workflow.Stage{Name: "first", Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "one"}}, workflow.Stage{Name: "second", Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "two"}}),
			map[string][]llmtest.Reply{"one": {reply("notes", 5)}, "two": {reply("report", 5)}}, "report", "second"},
		{"pipeline: a last stage that failed and was continued past", pipelineOf(workflow.Stage{Name: "first", Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "one"}}, workflow.Stage{Name: "second", Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "two"}, OnFailure: "continue"}),
			map[string][]llmtest.Reply{"one": {reply("notes", 5)}, "two": {server500()}}, "notes", "first"},
		{"pipeline: a skipped last stage", pipelineOf(workflow.Stage{Name: "first", Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "one"}}, workflow.Stage{Name: "second", Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "two"}, SkipIf: &workflow.Condition{Previous: "succeeded"}}),
			map[string][]llmtest.Reply{"one": {reply("notes", 5)}}, "notes", "first"},
		{"pipeline: a blank last stage", pipelineOf(workflow.Stage{Name: "first", Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "one"}}, workflow.Stage{Name: "second", Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "two"}}),
			map[string][]llmtest.Reply{"one": {reply("notes", 5)}, "two": {reply("\n\n", 5)}}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, _, _ := runWFInput(t, context.Background(), tt.def, agent.Input{History: history, User: "Now this"}, tt.queues, nil)
			if res.FinalText != tt.text {
				t.Fatalf("final text %q, want %q (%s)", res.FinalText, tt.text, stageNames(res))
			}
			wantID := ""
			if tt.stage != "" {
				wantID = stageNamed(t, res, tt.stage).ID
			}
			if res.FinalStageID != wantID {
				t.Fatalf("final stage %q, want %q (%s)", res.FinalStageID, wantID, tt.stage)
			}
			msgs := turnMessages(t, res)
			last := llm.Message{}
			if len(msgs) > 0 {
				last = msgs[len(msgs)-1]
			}
			if tt.def.Kind != workflow.KindChat && tt.def.Kind != workflow.KindHandoff {
				if (tt.text == "") != (len(msgs) == 0) || (tt.text != "" && (last.Role != llm.RoleAssistant || last.Content != tt.text)) {
					t.Fatalf("turn messages %+v, want them to end with the final text %q", msgs, tt.text)
				}
			}
			if strings.Contains(res.FinalText, "PREVIOUS ANSWER") {
				t.Fatal("the history's answer is the final text")
			}
		})
	}
}

// stage_start says final when the workflow knows before the stage runs
// that its reply will be the turn's final text, and only then.
func TestStageStartFinal(t *testing.T) {
	chat := &workflow.Definition{Name: "c", Agents: agents("a"), Stage: workflow.Stage{Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "a"}}}
	chatRetried := &workflow.Definition{Name: "c", Agents: agents("a"), Stage: workflow.Stage{Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "a"}, MaxAttempts: 2}}
	plan := &workflow.Definition{Name: "pe", Agents: agents("planner", "executor"), Stage: workflow.Stage{Kind: workflow.KindPlanExecute, Roles: workflow.Roles{"planner": "planner", "executor": "executor"}}}
	two := func(last workflow.Stage) *workflow.Definition {
		return pipelineOf(workflow.Stage{Name: "first", Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "one"}}, last)
	}
	tests := []struct {
		name   string
		def    *workflow.Definition
		queues map[string][]llmtest.Reply
		final  string // the one stage marked final; "" for none
	}{
		{"chat", chat, map[string][]llmtest.Reply{"a": {reply("hi", 5)}}, "chat"},
		{"chat with a second attempt", chatRetried, map[string][]llmtest.Reply{"a": {reply("hi", 5)}}, ""},
		{"plan-execute: the finish stage", plan, map[string][]llmtest.Reply{
			"planner": {reply(`{"steps":["A","B"]}`, 5)}, "executor": {reply("a", 5), reply("b", 5), reply("done", 5)}}, "finish"},
		{"pipeline: the last chat stage", two(workflow.Stage{Name: "second", Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "two"}}),
			map[string][]llmtest.Reply{"one": {reply("notes", 5)}, "two": {reply("report", 5)}}, "second"},
		{"pipeline: a last stage that is validated", two(workflow.Stage{Name: "second", Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "two"}, Validate: &workflow.Validation{MinLength: 1}}),
			map[string][]llmtest.Reply{"one": {reply("notes", 5)}, "two": {reply("report", 5)}}, ""},
		{"pipeline: a last stage that may be continued past", two(workflow.Stage{Name: "second", Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "two"}, OnFailure: "continue"}),
			map[string][]llmtest.Reply{"one": {reply("notes", 5)}, "two": {reply("report", 5)}}, ""},
		{"pipeline: a last critique-revise stage", two(workflow.Stage{Name: "second", Kind: workflow.KindCritiqueRevise, Roles: workflow.Roles{"writer": "two", "critic": "three"}}),
			map[string][]llmtest.Reply{"one": {reply("notes", 5)}, "two": {reply("report", 5)}, "three": {reply("PASS", 5)}}, ""},
		{"critique-revise", critiqueDef(nil), map[string][]llmtest.Reply{"writer": {reply("d1", 5)}, "critic": {reply("PASS", 5)}}, ""},
		{"reflection", reflectionDef(1), map[string][]llmtest.Reply{"author": {reply("v1", 5)}, "judge": {reply(`{"passed": true, "score": 0.9}`, 5)}}, ""},
		{"handoff", handoffDef(), map[string][]llmtest.Reply{"triage": {transfers("transfer_to_poet")}, "poet": {reply("verse", 5)}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, rec, _ := runWF(t, context.Background(), tt.def, tt.queues, nil)
			var finals []string
			for _, e := range rec.Of(turn.EventStageStart) {
				if d := turntest.Data[turn.StageStartData](t, e); d.Final {
					finals = append(finals, d.Stage)
				}
			}
			if strings.Join(finals, ",") != tt.final {
				t.Fatalf("stages marked final: %q, want %q (%s)", finals, tt.final, stageNames(res))
			}
			if tt.final != "" && res.FinalStageID != stageNamed(t, res, tt.final).ID {
				t.Fatalf("the stage marked final is not the final text's stage")
			}
		})
	}
}

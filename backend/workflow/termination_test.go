package workflow_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/workflow"
)

// limited defines agents whose loops have the given limits.
func limited(limits map[string]workflow.Limits, names ...string) map[string]workflow.AgentDef {
	m := agents(names...)
	for n, l := range limits {
		d := m[n]
		d.Limits = l
		m[n] = d
	}
	return m
}

func twoCalls() llmtest.Reply {
	return llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.Stream(
		llmtest.ToolCallChunks(0, "c1", "lookup", `{"q":1}`, 1),
		llmtest.ToolCallChunks(1, "c2", "lookup", `{"q":2}`, 1)), "tool_calls")}
}

// How a turn ended is its own termination: a limit a stage stopped at
// (with its numbers and the stage's name) even when the turn completed, a
// limit that left no answer as the failure, and a critique that never
// passed as max_iterations_reached. These used to end "completed" or a
// bare "failed".
func TestTurnTermination(t *testing.T) {
	chat := func(l workflow.Limits, mod func(*workflow.Definition)) *workflow.Definition {
		d := &workflow.Definition{Name: "c", Agents: limited(map[string]workflow.Limits{"a": l}, "a"), Stage: workflow.Stage{Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "a"}}}
		if mod != nil {
			mod(d)
		}
		return d
	}
	pipe := pipelineOf(workflow.Stage{Name: "first", Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "one"}}, workflow.Stage{Name: "second", Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "two"}})
	pipe.Agents = limited(map[string]workflow.Limits{"one": {MaxSteps: 1}, "two": {MaxToolCalls: 1}}, "one", "two")
	failPipe := pipelineOf(workflow.Stage{Name: "first", Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "one"}}, workflow.Stage{Name: "second", Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "two"}})
	failPipe.Agents = limited(map[string]workflow.Limits{"one": {MaxSteps: 1}}, "one", "two")
	tests := []struct {
		name    string
		def     *workflow.Definition
		queues  map[string][]llmtest.Reply
		ok      bool
		term    turn.Termination
		final   string
		errHas  string
		source  string
		note    string
		exhaust bool
	}{
		{"a completed chat stopped at its step limit", chat(workflow.Limits{MaxSteps: 1}, nil),
			map[string][]llmtest.Reply{"a": {tc("c1", "lookup"), reply("best answer", 5)}},
			true, turn.Termination{Kind: turn.TermMaxIterations, Limit: 1, Used: 1, Concluded: true, Stage: "chat"}, "best answer", "", "", "", true},
		{"the last of two stages' limits", pipe,
			map[string][]llmtest.Reply{"one": {tc("c1", "lookup"), reply("notes", 5)}, "two": {twoCalls(), reply("report", 5)}},
			true, turn.Termination{Kind: turn.TermMaxToolCalls, Limit: 1, Used: 1, Concluded: true, Stage: "second"}, "report", "", "", "", false},
		{"a limit with no answer fails the turn", chat(workflow.Limits{MaxSteps: 1}, nil),
			map[string][]llmtest.Reply{"a": {tc("c1", "lookup"), reply("  ", 5)}},
			false, turn.Termination{Kind: turn.TermMaxIterations, Limit: 1, Used: 1, Stage: "chat"}, "", "before it gave any answer", "limit", "", true},
		{"a pipeline stage's limit with no answer fails the turn", failPipe,
			map[string][]llmtest.Reply{"one": {tc("c1", "lookup"), reply("", 5)}},
			false, turn.Termination{Kind: turn.TermMaxIterations, Limit: 1, Used: 1, Stage: "first"}, "", `stage "first" failed: `, "limit", "", true},
		{"a limit in an attempt that was retried is not how the turn ended", chat(workflow.Limits{MaxSteps: 1}, func(d *workflow.Definition) { d.MaxAttempts = 2 }),
			map[string][]llmtest.Reply{"a": {tc("c1", "lookup"), reply("", 5), reply("fine", 5)}},
			true, turn.Termination{Kind: turn.TermCompleted}, "fine", "", "", "", false},
		{"a critique that never passes", critiqueDef(nil),
			map[string][]llmtest.Reply{"writer": {reply("d1", 10), reply("d2", 10), reply("d3", 10)}, "critic": {reply("FAIL: no", 8), reply("FAIL: no", 8), reply("FAIL: still no", 8)}},
			false, turn.Termination{Kind: turn.TermMaxIterations, Limit: 2, Used: 2, Stage: "critique-revise"}, "d3",
			"The critic did not pass this draft after 2 revisions.", "limit", "The critic did not pass this draft after 2 revisions.", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, _, _ := runWF(t, context.Background(), tt.def, tt.queues, nil)
			got := res.Termination
			got.Properties, got.Error = nil, ""
			if got.Kind != tt.term.Kind || got.Limit != tt.term.Limit || got.Used != tt.term.Used || got.Concluded != tt.term.Concluded || got.Stage != tt.term.Stage || got.Call != nil {
				t.Fatalf("termination %+v, want %+v (%s)", res.Termination, tt.term, stageNames(res))
			}
			if res.OK != tt.ok || res.FinalText != tt.final || res.FinalNote != tt.note || res.BudgetExhausted != tt.exhaust {
				t.Fatalf("ok %v final %q note %q budget_exhausted %v; want %v %q %q %v", res.OK, res.FinalText, res.FinalNote, res.BudgetExhausted, tt.ok, tt.final, tt.note, tt.exhaust)
			}
			if !tt.ok && (res.Outcome != turn.OutcomeFailed || !strings.Contains(res.Error, tt.errHas) || res.ErrorSource != tt.source) {
				t.Fatalf("outcome %s, error %q from %q; want it to say %q from %q", res.Outcome, res.Error, res.ErrorSource, tt.errHas, tt.source)
			}
		})
	}
}

// The critique's last draft comes from the stage that wrote it.
func TestCritiqueNotPassedKeepsItsDraftsStage(t *testing.T) {
	res, _, _ := runWF(t, context.Background(), critiqueDef(nil), map[string][]llmtest.Reply{
		"writer": {reply("d1", 10), reply("d2", 10), reply("d3", 10)},
		"critic": {reply("FAIL: no", 8), reply("FAIL: no", 8), reply(`{"passed": false, "score": 0.3}`, 8)},
	}, nil)
	if want := stageNamed(t, res, "revise 2").ID; res.FinalStageID != want || res.FinalText != "d3" {
		t.Fatalf("final %q from %q, want d3 from revise 2 (%s)", res.FinalText, res.FinalStageID, want)
	}
}

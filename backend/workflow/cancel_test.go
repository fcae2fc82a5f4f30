package workflow_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/workflow"
)

func slow() llmtest.Reply {
	return llmtest.Reply{Chunks: llmtest.Tokens(2000), Delay: 2 * time.Millisecond}
}

// Stop in the middle of each executor: the running stage ends cancelled
// with its partial text, later stages never start, the turn is cancelled.
func TestStopMidWorkflow(t *testing.T) {
	tests := []struct {
		name    string
		def     *workflow.Definition
		queues  map[string][]llmtest.Reply
		stopAt  string // stage name whose first token triggers Stop
		stages  int
		noAgent string // an agent that must never be called
	}{
		{"chat", &workflow.Definition{Name: "c", Agents: agents("a"), Stage: workflow.Stage{Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "a"}}},
			map[string][]llmtest.Reply{"a": {slow()}}, "chat", 1, ""},
		{"critique-revise", &workflow.Definition{Name: "cr", Agents: agents("writer", "critic", "reviser"), Stage: workflow.Stage{Kind: workflow.KindCritiqueRevise, Roles: workflow.Roles{"writer": "writer", "critic": "critic", "reviser": "reviser"}}},
			map[string][]llmtest.Reply{"writer": {reply("d1", 5)}, "critic": {slow()}}, "critique 1", 2, "reviser"},
		{"plan-execute", &workflow.Definition{Name: "pe", Agents: agents("planner", "executor", "finisher"), Stage: workflow.Stage{Kind: workflow.KindPlanExecute, Roles: workflow.Roles{"planner": "planner", "executor": "executor", "finisher": "finisher"}}},
			map[string][]llmtest.Reply{"planner": {reply(`{"steps":["A","B"]}`, 5)}, "executor": {slow()}}, "step 1", 2, "finisher"},
		{"reflection", &workflow.Definition{Name: "rf", Agents: agents("author", "judge"), Stage: workflow.Stage{Kind: workflow.KindReflection, Roles: workflow.Roles{"agent": "author", "critic": "judge"}}},
			map[string][]llmtest.Reply{"author": {slow()}}, "generate", 1, "judge"},
		{"handoff", &workflow.Definition{Name: "ho", Agents: agents("triage", "poet"), Stage: workflow.Stage{Kind: workflow.KindHandoff, Roles: workflow.Roles{"triage": "triage"}, Teams: workflow.Teams{"specialists": {"poet"}}}},
			map[string][]llmtest.Reply{"triage": {{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, "h", "transfer_to_poet", `{}`, 2), "tool_calls")}}, "poet": {slow()}}, "poet 2", 2, ""},
		{"pipeline", &workflow.Definition{Name: "pl", Agents: agents("one", "two"), Stage: workflow.Stage{Kind: workflow.KindPipeline},
			Phases: []workflow.Phase{{Name: "p1", Stages: []workflow.Stage{{Name: "first", Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "one"}}}}, {Name: "p2", Stages: []workflow.Stage{{Name: "second", Kind: workflow.KindChat, Roles: workflow.Roles{"agent": "two"}}}}}},
			map[string][]llmtest.Reply{"one": {slow()}}, "first", 1, "two"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			stage := ""
			tokens := 0
			res, rec, sc := runWF(t, ctx, tt.def, tt.queues, func(e turn.Event) {
				switch e.Type {
				case turn.EventStageStart:
					// Not turntest.Data: this may run off the test goroutine,
					// where a test may not fail.
					var d turn.StageStartData
					json.Unmarshal(e.Data, &d)
					stage = d.Stage
				case turn.EventToken:
					if stage == tt.stopAt {
						if tokens++; tokens == 5 {
							cancel()
						}
					}
				}
			})
			if !res.Cancelled || res.Outcome != turn.OutcomeCancelled {
				t.Fatalf("outcome %s, stages %s", res.Outcome, stageNames(res))
			}
			if len(res.Stages) != tt.stages {
				t.Fatalf("stages %s, want %d", stageNames(res), tt.stages)
			}
			last := res.Stages[len(res.Stages)-1]
			if last.Outcome != turn.OutcomeCancelled || last.Response == nil || last.Response.Content == "" {
				t.Fatalf("the stopped stage must be cancelled with its partial text: %+v", last)
			}
			for _, c := range sc.calls {
				if c == tt.noAgent {
					t.Fatalf("%s ran after Stop", c)
				}
			}
			if len(rec.Of(turn.EventCancelled)) != 1 {
				t.Fatal("no cancelled event")
			}
		})
	}
}

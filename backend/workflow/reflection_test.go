package workflow_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
	"github.com/agentdeck/agentdeck/backend/workflow"
)

func reflectionDef(iters int) *workflow.Definition {
	return &workflow.Definition{Name: "rf", Agents: agents("author", "judge"),
		Stage: workflow.Stage{Kind: workflow.KindReflection, Roles: workflow.Roles{"agent": "author", "critic": "judge"}, Numbers: workflow.Numbers{"threshold": 0.8, "max_iterations": float64(iters)}}}
}

func scores(ss ...float64) []llmtest.Reply {
	var out []llmtest.Reply
	for _, s := range ss {
		out = append(out, reply(fmt.Sprintf(`{"passed": false, "score": %v, "feedback": "more"}`, s), 5))
	}
	return out
}

// A reflection that never reaches its threshold ends OK at
// max_iterations_reached with its best-scored answer (the later on a tie),
// not its last one, and says so in a note.
func TestReflectionGivesUpWithItsBestAnswer(t *testing.T) {
	tests := []struct {
		name   string
		iters  int
		scores []float64
		final  string
		stage  string
		score  string
	}{
		{"the best is in the middle", 3, []float64{0.2, 0.6, 0.4}, "v2", "refine 1", "0.6"},
		{"a tie goes to the later", 2, []float64{0.5, 0.5}, "v2", "refine 1", "0.5"},
		{"the first is best", 3, []float64{0.7, 0.3, 0.1}, "v1", "generate", "0.7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, _, _ := runWF(t, context.Background(), reflectionDef(tt.iters), map[string][]llmtest.Reply{
				"author": {reply("v1", 10), reply("v2", 10), reply("v3", 10)},
				"judge":  scores(tt.scores...),
			}, nil)
			if !res.OK || res.FinalText != tt.final || res.FinalStageID != stageNamed(t, res, tt.stage).ID {
				t.Fatalf("ok %v final %q from %q, want %q from %s", res.OK, res.FinalText, res.FinalStageID, tt.final, tt.stage)
			}
			term := res.Termination
			if term.Kind != turn.TermMaxIterations || term.Limit != int64(tt.iters) || term.Used != int64(tt.iters) || term.Stage != "reflection" || !res.BudgetExhausted {
				t.Fatalf("termination %+v, budget_exhausted %v", term, res.BudgetExhausted)
			}
			if !strings.Contains(res.FinalNote, "("+tt.score+")") || !strings.Contains(res.FinalNote, "threshold score of 0.8") {
				t.Fatalf("note %q does not name the score %s and the threshold", res.FinalNote, tt.score)
			}
		})
	}
}

// refining is announced before each refine stage, as critique-revise does
// before each revise stage, on the reflect stage that asked for it.
func TestReflectionRefiningEvents(t *testing.T) {
	res, rec, _ := runWF(t, context.Background(), reflectionDef(3), map[string][]llmtest.Reply{
		"author": {reply("v1", 10), reply("v2", 10), reply("v3", 10)},
		"judge":  append(scores(0.2, 0.4), reply(`{"passed": true, "score": 0.9}`, 5)),
	}, nil)
	if !res.OK || res.FinalText != "v3" {
		t.Fatalf("ok %v final %q", res.OK, res.FinalText)
	}
	starts := map[string]int64{}
	for _, e := range rec.Of(turn.EventStageStart) {
		starts[turntest.Data[turn.StageStartData](t, e).Stage] = e.Seq
	}
	refs := rec.Of(turn.EventRefining)
	if len(refs) != 2 {
		t.Fatalf("%d refining events, want 2", len(refs))
	}
	for i, e := range refs {
		d := turntest.Data[turn.RefiningData](t, e)
		n := i + 1
		reflect := stageNamed(t, res, fmt.Sprintf("reflect %d", n))
		if d.Iteration != n || e.StageID != reflect.ID || e.Seq > starts[fmt.Sprintf("refine %d", n)] || e.Seq < starts[fmt.Sprintf("reflect %d", n)] {
			t.Fatalf("refining %d: %+v on %s at seq %d; reflect %d started at %d, refine %d at %d",
				n, d, e.StageID, e.Seq, n, starts[fmt.Sprintf("reflect %d", n)], n, starts[fmt.Sprintf("refine %d", n)])
		}
	}
}

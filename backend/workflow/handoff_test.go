package workflow_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
	"github.com/agentdeck/agentdeck/backend/workflow"
)

func handoffDef() *workflow.Definition {
	return &workflow.Definition{Name: "ho", Agents: agents("triage", "poet", "analyst"),
		Stage: workflow.Stage{Kind: workflow.KindHandoff, Roles: workflow.Roles{"triage": "triage"}, Teams: workflow.Teams{"specialists": {"poet", "analyst"}}}}
}

// transfers is one model step calling the given transfer tools, in order.
func transfers(tools ...string) llmtest.Reply {
	var lists [][]llmtest.Chunk
	for i, name := range tools {
		lists = append(lists, llmtest.ToolCallChunks(i, "t"+string(rune('1'+i)), name, `{"reason":"fit"}`, 2))
	}
	return llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.Stream(lists...), "tool_calls")}
}

// handoff_end comes once the agent handed to has run, with its outcome;
// it used to come right after handoff_start, before the agent ran.
func TestHandoffEndAfterTheTarget(t *testing.T) {
	tests := []struct {
		name   string
		queues map[string][]llmtest.Reply
		ends   []turn.HandoffEndData // without stage ids
		stages []string              // the stage each handoff_end is about
	}{
		{"the specialist answers", map[string][]llmtest.Reply{
			"triage": {transfers("transfer_to_poet")}, "poet": {reply("Rows in quiet pages", 10)},
		}, []turn.HandoffEndData{{To: "poet", Outcome: turn.OutcomeSucceeded}}, []string{"poet 2"}},
		{"the specialist fails", map[string][]llmtest.Reply{
			"triage": {transfers("transfer_to_poet")}, "poet": {server500()},
		}, []turn.HandoffEndData{{To: "poet", Outcome: turn.OutcomeFailed}}, []string{"poet 2"}},
		{"a specialist hands on", map[string][]llmtest.Reply{
			"triage": {transfers("transfer_to_poet")}, "poet": {transfers("transfer_to_analyst")}, "analyst": {reply("numbers", 10)},
		}, []turn.HandoffEndData{{To: "poet", Outcome: turn.OutcomeSucceeded}, {To: "analyst", Outcome: turn.OutcomeSucceeded}}, []string{"poet 2", "analyst 3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, rec, _ := runWF(t, context.Background(), handoffDef(), tt.queues, nil)
			ends, startsH := rec.Of(turn.EventHandoffEnd), rec.Of(turn.EventHandoffStart)
			if len(ends) != len(tt.ends) || len(startsH) != len(tt.ends) {
				t.Fatalf("%d handoff_start, %d handoff_end, want %d each", len(startsH), len(ends), len(tt.ends))
			}
			stageEnd := map[string]int64{}
			for _, e := range rec.Of(turn.EventStageEnd) {
				stageEnd[e.StageID] = e.Seq
			}
			for i, e := range ends {
				d := turntest.Data[turn.HandoffEndData](t, e)
				target := stageNamed(t, res, tt.stages[i])
				if d.To != tt.ends[i].To || d.Outcome != tt.ends[i].Outcome || d.TargetStageID != target.ID {
					t.Fatalf("handoff_end %d = %+v, want %+v on stage %s", i, d, tt.ends[i], target.ID)
				}
				if e.Seq < stageEnd[target.ID] || e.StageID != startsH[i].StageID || e.Seq < startsH[i].Seq {
					t.Fatalf("handoff_end %d at seq %d on stage %s: the target ended at %d, handoff_start was %d on %s",
						i, e.Seq, e.StageID, stageEnd[target.ID], startsH[i].Seq, startsH[i].StageID)
				}
				if i+1 < len(startsH) && e.Seq > startsH[i+1].Seq {
					t.Fatalf("handoff_end %d comes after the next handoff_start", i)
				}
			}
		})
	}
}

// Two transfers in one model step run concurrently; the first in call
// order wins every time, whichever tool finished first, without a data
// race (-race used to report one, and the winner was random).
func TestHandoffFirstTransferWins(t *testing.T) {
	tests := []struct {
		name  string
		calls []string
		win   string
		lose  string
	}{
		{"poet first", []string{"transfer_to_poet", "transfer_to_analyst"}, "poet", "analyst"},
		{"analyst first", []string{"transfer_to_analyst", "transfer_to_poet"}, "analyst", "poet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 20 {
				res, _, sc := runWF(t, context.Background(), handoffDef(), map[string][]llmtest.Reply{
					"triage": {transfers(tt.calls...)},
					tt.win:   {reply("answer from "+tt.win, 10)},
					tt.lose:  {reply("answer from "+tt.lose, 10)},
				}, nil)
				if got := strings.Join(sc.calls, ","); got != "triage,"+tt.win {
					t.Fatalf("calls %s, want triage,%s", got, tt.win)
				}
				if !res.OK || res.FinalText != "answer from "+tt.win {
					t.Fatalf("ok %v final %q", res.OK, res.FinalText)
				}
				// The winner is not told the conversation also went elsewhere.
				var toolMsgs []string
				for _, m := range res.Messages {
					if m.Role == "tool" {
						toolMsgs = append(toolMsgs, m.Content)
					}
				}
				if len(toolMsgs) != 2 || toolMsgs[0] != "Transferred to "+tt.win+"." || !strings.HasPrefix(toolMsgs[1], "Not transferred to "+tt.lose) {
					t.Fatalf("tool messages %q", toolMsgs)
				}
			}
		})
	}
}

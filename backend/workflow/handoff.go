package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// KindHandoff has a triage agent hand the conversation to a specialist.
const KindHandoff Kind = "handoff"

func init() {
	register(executorSpec{
		kind:  KindHandoff,
		order: 50,
		doc:   "a triage agent hands the conversation to a specialist",
		roles: []role{
			{name: "triage", required: true, answers: true, doc: "the agent that reads the request first",
				more: "It answers itself or hands the conversation to a specialist."},
			{name: "specialists", required: true, list: true, answers: true, doc: "the agents triage may hand the conversation to",
				more: "Each one gets a transfer_to_<name> tool for the others."},
		},
		numbers: []number{{name: "max_handoffs", integer: true, deflt: 3, doc: "the most handoffs in one run of the stage"}},
		run:     (*wfRun).execHandoff,
	})
}

// execHandoff: a triage agent with a transfer tool per specialist; a
// transfer hands the conversation to the specialist, up to max_handoffs times.
// The output is the reply of the agent that answered last.
func (r *wfRun) execHandoff(ctx context.Context, st *Stage, input string) stageOutcome {
	maxHandoffs := st.count("max_handoffs")
	current, from := st.role("triage"), ""
	in := r.userInput(input)
	var answered output
	for handoffs := 0; ; handoffs++ {
		tr := newTransfers()
		if handoffs < maxHandoffs {
			tr.offer(st.team("specialists"), current)
		}
		sr, res := r.agentStage(ctx, stageCall{name: fmt.Sprintf("%s %d", current, handoffs+1), agent: current, tools: tr.tools}, in)
		if from != "" {
			r.em.Emit(turn.Draft{StageID: from, Data: turn.HandoffEndData{To: current, Outcome: sr.Outcome, TargetStageID: sr.ID}})
		}
		out := outcomeOf(sr, res)
		if out.text != "" {
			answered = out.output
		}
		out.output = answered
		target := tr.winner(res.Messages)
		if target == "" || sr.Outcome != turn.OutcomeSucceeded {
			if r.def.Kind != KindPipeline {
				r.transcript = res.Messages
			}
			return out
		}
		r.em.Emit(turn.Draft{StageID: sr.ID, Data: turn.HandoffStartData{From: current, To: target}})
		current, from, in = target, sr.ID, agent.Input{History: tr.handOver(res.Messages, target)}
	}
}

// transfers are one stage's transfer tools and which of them ran. The
// tools of one model step run concurrently, so what they record is locked,
// and the agent handed to is chosen after the stage by the order the model
// called them in: the first transfer wins, whichever goroutine ran first.
type transfers struct {
	tools   []tool.Tool
	targets map[string]string // tool name → agent
	mu      sync.Mutex
	ran     map[string]bool // tool names
}

func newTransfers() *transfers {
	return &transfers{targets: map[string]string{}, ran: map[string]bool{}}
}

// offer adds a transfer tool for each specialist but the current agent.
func (t *transfers) offer(specialists []string, current string) {
	for _, to := range specialists {
		if to == current {
			continue
		}
		name := "transfer_to_" + strings.NewReplacer("-", "_", " ", "_").Replace(to)
		t.targets[name] = to
		t.tools = append(t.tools, tool.Func{
			Def: tool.Spec{
				Name:        name,
				Description: "Hand the conversation to the " + to + " agent, who is better suited to answer it.",
				Parameters:  json.RawMessage(`{"type":"object","properties":{"reason":{"type":"string"}},"additionalProperties":false}`),
			},
			Fn: func(context.Context, json.RawMessage) (string, error) {
				t.mu.Lock()
				t.ran[name] = true
				t.mu.Unlock()
				return "", &tool.EndRun{Output: "Transferred to " + to + "."}
			},
		})
	}
}

// winner is the agent of the first transfer call, in the model's order,
// whose tool ran; "" when none did. Transfers end the run, so they are in
// its last step: the last assistant message with tool calls.
func (t *transfers) winner(msgs []llm.Message) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range lastToolCalls(msgs) {
		if t.ran[c.Name] {
			return t.targets[c.Name]
		}
	}
	return ""
}

// handOver is the conversation the agent handed to starts from: msgs
// without system prompts, and with every transfer that lost saying so, so
// no agent reads that the conversation went elsewhere too.
func (t *transfers) handOver(msgs []llm.Message, to string) []llm.Message {
	lost := map[string]string{} // call id → agent
	for _, c := range lastToolCalls(msgs) {
		if target, ok := t.targets[c.Name]; ok && target != to && c.ID != "" {
			lost[c.ID] = target
		}
	}
	out := make([]llm.Message, 0, len(msgs))
	for _, m := range msgs {
		if m.Role == llm.RoleSystem {
			continue
		}
		if target, ok := lost[m.ToolCallID]; ok && m.Role == llm.RoleTool {
			m.Content = fmt.Sprintf("Not transferred to %s: the conversation went to %s, the first transfer called.", target, to)
		}
		out = append(out, m)
	}
	return out
}

func lastToolCalls(msgs []llm.Message) []llm.ToolCall {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleAssistant && len(msgs[i].ToolCalls) > 0 {
			return msgs[i].ToolCalls
		}
	}
	return nil
}

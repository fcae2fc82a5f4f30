package workflow

import (
	"context"
)

// KindChat is one agent with tools.
const KindChat Kind = "chat"

func init() {
	register(executorSpec{
		kind:  KindChat,
		order: 10,
		doc:   "one agent with tools",
		roles: []role{{name: "agent", required: true, answers: true, doc: "the agent that answers"}},
		run:   (*wfRun).execChat,
	})
}

// execChat runs one agent with its tools on the conversation.
func (r *wfRun) execChat(ctx context.Context, st *Stage, input string) stageOutcome {
	name := st.role("agent")
	sr, res := r.agentStage(ctx, stageCall{name: st.Name, agent: name, final: r.lastStage}, r.userInput(input))
	if r.def.Kind != KindPipeline {
		// The chat transcript (with its tool calls) is the turn's conversation.
		r.transcript = res.Messages
		r.planSteps = res.PlanSteps
	}
	return outcomeOf(sr, res)
}

package workflow

import (
	"maps"
	"slices"
)

// Which agents receive the session's instructions (its system prompt,
// set in the session, its project or the app's defaults). The rule is in
// one place, here: an agent's own session_instructions decides when it
// is set; otherwise an agent receives them when, in some stage, it plays a
// role that writes what the person reads (a role declared with answers in
// its executor's spec: chat's agent, critique-revise's writer and reviser,
// plan-execute's executor and finisher, reflection's agent, handoff's
// triage and specialists), and not when it only reviews or plans (a
// critic, a planner). The runner appends them after the agent's own
// system prompt, a blank line between.

// ReceivesInstructions reports whether the named agent is given the
// session's instructions.
func (d *Definition) ReceivesInstructions(agent string) bool {
	if a, ok := d.Agents[agent]; ok && a.SessionInstructions != nil {
		return *a.SessionInstructions
	}
	for _, st := range d.stages() {
		if st.answers(agent) {
			return true
		}
	}
	return false
}

// InstructedAgents lists, by name, the agents ReceivesInstructions is
// true for (docs/WORKFLOWS.md's table is made from it).
func (d *Definition) InstructedAgents() []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(d.Agents)) {
		if d.ReceivesInstructions(name) {
			out = append(out, name)
		}
	}
	return out
}

// stages are the workflow's stages: its own, or a pipeline's.
func (d *Definition) stages() []*Stage {
	if d.Kind != KindPipeline {
		return []*Stage{&d.Stage}
	}
	var out []*Stage
	for i := range d.Phases {
		for j := range d.Phases[i].Stages {
			out = append(out, &d.Phases[i].Stages[j])
		}
	}
	return out
}

// answers reports whether the agent plays one of the stage's answering
// roles.
func (st *Stage) answers(agent string) bool {
	s := st.spec()
	if s == nil {
		return false
	}
	for _, rl := range s.roles {
		switch {
		case !rl.answers:
		case rl.list && slices.Contains(st.team(rl.name), agent):
			return true
		case !rl.list && st.role(rl.name) == agent:
			return true
		}
	}
	return false
}

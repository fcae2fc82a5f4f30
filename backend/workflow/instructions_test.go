package workflow

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

const (
	instructedStart = "<!-- instructed agents: made from the built-ins; go generate ./backend/workflow rewrites it -->\n"
	instructedEnd   = "<!-- end of instructed agents -->\n"
)

func TestReceivesInstructions(t *testing.T) {
	yes, no := true, false
	def := func(name string) *Definition {
		d, ok := Lookup(Builtins(), name)
		if !ok {
			t.Fatalf("no built-in %s", name)
		}
		return d
	}
	cr := def("critique-revise")
	overridden := *cr
	overridden.Agents = map[string]AgentDef{"writer": {SessionInstructions: &no}, "critic": {SessionInstructions: &yes}}
	tests := []struct {
		name  string
		def   *Definition
		agent string
		want  bool
	}{
		{"chat's agent", def("chat"), "assistant", true},
		{"critique-revise's writer", cr, "writer", true},
		{"critique-revise's critic", cr, "critic", false},
		{"plan-execute's planner", def("plan-execute"), "planner", false},
		{"plan-execute's executor", def("plan-execute"), "executor", true},
		{"plan-execute's finisher", def("plan-execute"), "finisher", true},
		{"reflection's reviewer", def("reflection"), "reviewer", false},
		{"a handoff specialist", def("handoff"), "data-analyst", true},
		{"a pipeline's critique writer", def("research-report"), "writer", true},
		{"a pipeline's editor", def("research-report"), "editor", false},
		{"an agent no stage names", cr, "nobody", false},
		{"the file says no", &overridden, "writer", false},
		{"the file says yes", &overridden, "critic", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.def.ReceivesInstructions(tt.agent); got != tt.want {
				t.Errorf("ReceivesInstructions(%q) = %v, want %v", tt.agent, got, tt.want)
			}
		})
	}
	// A reflection whose critic is left to default is played by its agent,
	// which answers: it receives them.
	refl := &Definition{Name: "r", Stage: Stage{Kind: KindReflection, Roles: Roles{"agent": "a"}}, Agents: map[string]AgentDef{"a": {}}}
	if got := refl.InstructedAgents(); !reflect.DeepEqual(got, []string{"a"}) {
		t.Errorf("InstructedAgents = %v, want [a]", got)
	}
}

// The table of docs/WORKFLOWS.md that says which built-in agents receive
// the session's instructions is the one the rule makes.
func TestDocsInstructedAgents(t *testing.T) {
	checkDocsSection(t, instructedStart, instructedEnd, instructedTable(Builtins()), "the instructed agents table")
}

func instructedTable(defs []*Definition) string {
	var b strings.Builder
	b.WriteString("| workflow | receive the session's instructions | do not |\n|---|---|---|\n")
	for _, d := range defs {
		var yes, no []string
		for _, name := range sortedAgents(d) {
			if d.ReceivesInstructions(name) {
				yes = append(yes, "`"+name+"`")
			} else {
				no = append(no, "`"+name+"`")
			}
		}
		b.WriteString("| `" + d.Name + "` | " + orDash(strings.Join(yes, ", ")) + " | " + orDash(strings.Join(no, ", ")) + " |\n")
	}
	return b.String()
}

func sortedAgents(d *Definition) []string {
	var out []string
	for name := range d.Agents {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

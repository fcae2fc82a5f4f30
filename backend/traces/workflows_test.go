package traces_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/traces"
)

// notes and report are long enough for the research pipeline's checks.
var notes = "Topic: lines\n## Findings\n" + strings.Repeat("A line is a line of text in a log. ", 10) + "[1]\n## Open questions\nNone.\n## Sources\n[1] The log, lines.txt."

var report = "# Lines\nThis report says what the log holds.\n## Findings\n" + strings.Repeat("The log holds lines of text, one per call. ", 10) + "[1]\n## Conclusion\nThe log holds lines.\n## Sources\n[1] The log."

// Every built-in workflow: a stage span per stored stage, in order, under
// the turn's invoke_agent span, and each model and tool call under the
// stage it ran in.
func TestEveryWorkflowKind(t *testing.T) {
	for _, tc := range []struct {
		workflow, message string
		script            []llmtest.Reply
	}{
		{"critique-revise", "Write one line about logs.", []llmtest.Reply{
			text("Logs are lines."),
			text(`{"passed": false, "score": 0.4, "feedback": "Say what they are for."}`),
			text("Logs are lines that say what happened."),
			text(`{"passed": true, "score": 0.9, "feedback": "Clear."}`),
		}},
		{"plan-execute", "Log a line, then say so.", []llmtest.Reply{
			text(`{"steps": [{"title": "Append the line"}, {"title": "Say it is done"}]}`),
			calls([3]string{"a1", "append_line", `{"line":"planned"}`}),
			text("Appended the line."),
			text("It is done."),
			text("The line is in the log."),
		}},
		{"reflection", "Log a line and tell me.", []llmtest.Reply{
			calls([3]string{"a1", "append_line", `{"line":"reflected"}`}),
			text("I logged a line."),
			text(`{"passed": false, "score": 0.5, "feedback": "Say which line."}`),
			text("I logged the line 'reflected'."),
			text(`{"passed": true, "score": 0.9, "feedback": "Complete."}`),
		}},
		{"handoff", "Count the lines of the log.", []llmtest.Reply{
			calls([3]string{"t1", "transfer_to_data_analyst", `{"reason":"data"}`}),
			calls([3]string{"a1", "append_line", `{"line":"counted"}`}, [3]string{"s1", "shout", `{"text":"one"}`}),
			text("The log has one line."),
		}},
		{"research-report", "Research what the log holds.", []llmtest.Reply{
			text("Topic: what the log holds\nQuestions:\n1. What is in the log?"),
			calls([3]string{"a1", "append_line", `{"line":"researched"}`}),
			text(notes),
			text(notes + "\n## Check\nAll confirmed."),
			text(report),
			text(`{"passed": true, "score": 0.9, "feedback": "Ready."}`),
		}},
	} {
		t.Run(tc.workflow, func(t *testing.T) {
			g := newRig(t, nil)
			id := g.run(t, tc.workflow, tc.message, tc.script...)
			_, rec := g.record(t, id)
			if rec.State != "completed" || len(rec.Stages) < 2 {
				t.Fatalf("the turn: %s with %d stages", rec.State, len(rec.Stages))
			}
			spans := g.spans(t, id, traces.Options{})
			if n := len(spans); n != 1+len(rec.Stages)+len(rec.ModelCalls)+len(rec.ToolCalls) {
				t.Fatalf("%d spans for %d stages, %d model and %d tool calls: %q", n, len(rec.Stages), len(rec.ModelCalls), len(rec.ToolCalls), tree(spans))
			}
			root := byName(t, spans, "invoke_agent "+tc.workflow)
			want(t, root, map[string]string{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": tc.workflow, "agentdeck.turn.state": "completed"})
			// Stages by step, then what is under each.
			stageOf := map[string]string{} // span id -> stage id of the record
			step := map[string]string{}    // stage id -> step
			for i, st := range rec.Stages {
				step[st.ID] = fmt.Sprintf("stage%d", i+1)
			}
			for _, s := range spans {
				v, _ := attr(s, "agentdeck.step.id")
				if !strings.HasPrefix(v.AsString(), "stage") {
					continue
				}
				if s.Parent.SpanID() != root.SpanContext.SpanID() {
					t.Errorf("stage span %q is not under the turn", s.Name)
				}
				for id, st := range step {
					if st == v.AsString() {
						stageOf[s.SpanContext.SpanID().String()] = id
						n, _ := attr(s, "agentdeck.stage.name")
						if s.Name != "stage "+n.AsString() {
							t.Errorf("stage span %q named %q", s.Name, n.AsString())
						}
					}
				}
			}
			if len(stageOf) != len(rec.Stages) {
				t.Fatalf("%d stage spans for %d stages", len(stageOf), len(rec.Stages))
			}
			chats, tools := 0, 0
			for _, s := range spans {
				op, _ := attr(s, "gen_ai.operation.name")
				switch op.AsString() {
				case "chat":
					chats++
				case "execute_tool":
					tools++
				default:
					continue
				}
				if _, ok := stageOf[s.Parent.SpanID().String()]; !ok {
					t.Errorf("%q is not under a stage", s.Name)
				}
			}
			if chats != len(rec.ModelCalls) || tools != len(rec.ToolCalls) {
				t.Errorf("%d chat and %d tool spans, want %d and %d", chats, tools, len(rec.ModelCalls), len(rec.ToolCalls))
			}
		})
	}
}

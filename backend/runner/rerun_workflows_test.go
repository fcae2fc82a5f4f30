package runner_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/timeline"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// workflowTurn is a recorded turn of one built-in workflow: its message
// and the scripted server's replies, in the order the executor asks.
type workflowTurn struct {
	name, workflow, message string
	script                  []llmtest.Reply
	kinds                   []timeline.StepKind // the kinds of step the turn must have
}

// notes are research notes long enough for the pipeline's checks.
var notes = "Topic: lines\n## Findings\n" + strings.Repeat("A line is a line of text in a log. ", 10) + "[1]\n## Open questions\nNone.\n## Sources\n[1] The log, lines.txt."

var report = "# Lines\nThis report says what the log holds.\n## Findings\n" + strings.Repeat("The log holds lines of text, one per call. ", 10) + "[1]\n## Conclusion\nThe log holds lines.\n## Sources\n[1] The log."

func builtinTurns() []workflowTurn {
	all := []timeline.StepKind{timeline.KindStart, timeline.KindStage, timeline.KindCall, timeline.KindTool}
	return []workflowTurn{
		{name: "chat with tools", workflow: "chat", message: "Log two lines and shout hi.", kinds: all, script: []llmtest.Reply{
			calls([3]string{"a1", "append_line", `{"line":"one"}`}, [3]string{"s1", "shout", `{"text":"hi"}`}),
			calls([3]string{"a2", "append_line", `{"line":"two"}`}),
			replyText("Logged two lines; HI."),
		}},
		{name: "critique-revise", workflow: "critique-revise", message: "Write one line about logs.", kinds: all[:3], script: []llmtest.Reply{
			replyText("Logs are lines."),
			replyText(`{"passed": false, "score": 0.4, "feedback": "Say what they are for."}`),
			replyText("Logs are lines that say what happened."),
			replyText(`{"passed": true, "score": 0.9, "feedback": "Clear."}`),
		}},
		{name: "plan-execute", workflow: "plan-execute", message: "Log a line, then say so.", kinds: all, script: []llmtest.Reply{
			replyText(`{"steps": [{"title": "Append the line"}, {"title": "Say it is done"}]}`),
			calls([3]string{"a1", "append_line", `{"line":"planned"}`}),
			replyText("Appended the line."),
			replyText("It is done."),
			replyText("The line is in the log."),
		}},
		{name: "reflection", workflow: "reflection", message: "Log a line and tell me.", kinds: all, script: []llmtest.Reply{
			calls([3]string{"a1", "append_line", `{"line":"reflected"}`}),
			replyText("I logged a line."),
			replyText(`{"passed": false, "score": 0.5, "feedback": "Say which line."}`),
			replyText("I logged the line 'reflected'."),
			replyText(`{"passed": true, "score": 0.9, "feedback": "Complete."}`),
		}},
		{name: "handoff", workflow: "handoff", message: "Count the lines of the log.", kinds: all, script: []llmtest.Reply{
			calls([3]string{"t1", "transfer_to_data_analyst", `{"reason":"data"}`}),
			calls([3]string{"a1", "append_line", `{"line":"counted"}`}, [3]string{"s1", "shout", `{"text":"one"}`}),
			replyText("The log has one line."),
		}},
		{name: "pipeline", workflow: "research-report", message: "Research what the log holds.", kinds: all, script: []llmtest.Reply{
			replyText("Topic: what the log holds\nQuestions:\n1. What is in the log?"),
			calls([3]string{"a1", "append_line", `{"line":"researched"}`}),
			replyText(notes),
			replyText(notes + "\n## Check\nAll confirmed."),
			replyText(report),
			replyText(`{"passed": true, "score": 0.9, "feedback": "Ready."}`),
		}},
	}
}

// recordOriginal runs wt's turn once and checks it went as scripted.
func recordOriginal(t *testing.T, g *rerunRig, wt workflowTurn) recorded {
	t.Helper()
	g.srv.Enqueue(wt.script...)
	orig := g.turnOf(t, g.req(wt.workflow, wt.message, nil))
	if !orig.res.OK || len(orig.reqs) != len(wt.script) || g.srv.Pending() != 0 {
		t.Fatalf("the original: ok %v (%s), %d model calls of %d scripted; stages %v", orig.res.OK, orig.res.Error, len(orig.reqs), len(wt.script), stageResults(orig.res))
	}
	for _, k := range wt.kinds {
		if !slices.ContainsFunc(orig.steps, func(s timeline.TimelineStep) bool { return s.Kind == k }) {
			t.Fatalf("the original has no %s step: %v", k, orig.steps)
		}
	}
	return orig
}

// For every step of a recorded turn of each built-in workflow, a re-run
// from that step with no edit reproduces the original exactly: the same
// final text, tool results and stage results; no model call for the steps
// before it (the server is asked only for the calls from the step on),
// and those live calls send exactly what the original's did; the
// side-effecting tool runs again only for its calls from the step on.
func TestRerunFromEveryStepReproducesEachWorkflow(t *testing.T) {
	for _, wt := range builtinTurns() {
		t.Run(wt.name, func(t *testing.T) {
			g := newRerunRig(t)
			orig := recordOriginal(t, g, wt)
			for _, step := range orig.steps {
				what := fmt.Sprintf("%s from %s", wt.name, step.ID)
				g.srv.Enqueue(wt.script[step.RecordedCalls:]...)
				re := g.turnOf(t, g.req("", "", &runner.From{TurnID: orig.id, Step: step.ID}))
				if !re.res.OK || re.res.FinalText != orig.res.FinalText {
					t.Fatalf("%s: ok %v (%s), final text %q, want %q", what, re.res.OK, re.res.Error, re.res.FinalText, orig.res.FinalText)
				}
				sameRequests(t, what, re.reqs, orig.reqs[step.RecordedCalls:])
				if d := divergences(t, re.rec); len(d) != 0 {
					t.Fatalf("%s: the recorded part diverged from the recordings: %+v", what, d)
				}
				if got, want := re.approved, liveTools(orig.steps, step, "append_line"); got != want {
					t.Fatalf("%s: the person was asked %d times, want %d (approvals before the step are the original's)", what, got, want)
				}
				if g.srv.Pending() != 0 {
					t.Fatalf("%s: %d scripted replies left", what, g.srv.Pending())
				}
				if got, want := toolResults(t, re.rec), toolResults(t, orig.rec); !slices.Equal(got, want) {
					t.Fatalf("%s: tool results\n%v\nwant\n%v", what, got, want)
				}
				if got, want := stageResults(re.res), stageResults(orig.res); !slices.Equal(got, want) {
					t.Fatalf("%s: stages\n%v\nwant\n%v", what, got, want)
				}
				if got, want := re.lines, liveTools(orig.steps, step, "append_line"); got != want {
					t.Fatalf("%s: append_line ran %d times, want %d (only its calls from the step on)", what, got, want)
				}
				if n := len(re.rec.Of(turn.EventLiveFrom)); n != 1 {
					t.Fatalf("%s: %d live_from events, want 1", what, n)
				}
				checkLiveMarks(t, what, re.steps, step)
			}
		})
	}
}

// checkLiveMarks: the re-run's own steps are marked live from the first
// live call on; the ones before it came from the recordings.
func checkLiveMarks(t *testing.T, what string, steps []timeline.TimelineStep, from timeline.TimelineStep) {
	t.Helper()
	for _, s := range steps {
		if s.Kind != timeline.KindCall {
			continue
		}
		if want := s.N > from.RecordedCalls; s.Live != want {
			t.Fatalf("%s: the re-run's %s is live %v, want %v", what, s.ID, s.Live, want)
		}
	}
}

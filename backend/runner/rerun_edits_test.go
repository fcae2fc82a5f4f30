package runner_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/timeline"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// stepWhere is the first step of steps that matches.
func stepWhere(t *testing.T, steps []timeline.TimelineStep, match func(timeline.TimelineStep) bool) timeline.TimelineStep {
	t.Helper()
	for _, s := range steps {
		if match(s) {
			return s
		}
	}
	t.Fatalf("no such step in %v", steps)
	return timeline.TimelineStep{}
}

// edited is want with one message changed by change (a copy).
func edited(want llmtest.Request, change func(i int, m llmtest.Message) llmtest.Message) llmtest.Request {
	out := want
	out.Messages = make([]llmtest.Message, len(want.Messages))
	for i, m := range want.Messages {
		out.Messages[i] = change(i, m)
	}
	return out
}

// editedAll is reqs with change made to each message (copies).
func editedAll(reqs []llmtest.Request, change func(i int, m llmtest.Message) llmtest.Message) []llmtest.Request {
	out := make([]llmtest.Request, len(reqs))
	for i, r := range reqs {
		out[i] = edited(r, change)
	}
	return out
}

// Each kind of edit sends the model exactly the edited history: the
// recorded requests of the re-run are the original's with the one change,
// the side-effecting tool before the step never runs again, and a replay
// of the re-run serves all of it from its own recordings with no
// divergence (runSpec.Rerun shapes its requests as the re-run's were).
func TestRerunEditsSendTheEditedHistory(t *testing.T) {
	turns := builtinTurns()
	chat, critique := turns[0], turns[1]
	type check func(t *testing.T, orig, re recorded, step timeline.TimelineStep)
	tests := []struct {
		name  string
		wt    workflowTurn
		step  func(timeline.TimelineStep) bool
		edit  runner.Edit
		live  []llmtest.Reply // the replies of the live calls
		lines int             // append_line runs in the re-run
		check check
	}{
		{name: "message", wt: chat, step: isStep("start"), edit: runner.Edit{Kind: runner.EditMessage, Text: "Log three lines."},
			live: chat.script, lines: 2,
			check: func(t *testing.T, orig, re recorded, _ timeline.TimelineStep) {
				want := editedAll(orig.reqs, func(_ int, m llmtest.Message) llmtest.Message {
					if m.Role == "user" && m.Content == chat.message {
						m.Content = "Log three lines."
					}
					return m
				})
				sameRequests(t, "message edit", re.reqs, want)
			}},
		{name: "system prompt", wt: chat, step: isStep("start"), edit: runner.Edit{Kind: runner.EditSystemPrompt, Text: "Answer in French."},
			live: chat.script, lines: 2,
			check: func(t *testing.T, orig, re recorded, _ timeline.TimelineStep) {
				want := editedAll(orig.reqs, func(_ int, m llmtest.Message) llmtest.Message {
					if m.Role == "system" {
						m.Content += "\n\nAnswer in French."
					}
					return m
				})
				sameRequests(t, "system prompt edit", re.reqs, want)
			}},
		{name: "tool result in a parallel batch", wt: chat, lines: 1,
			step: func(s timeline.TimelineStep) bool {
				return s.Kind == timeline.KindTool && s.Tool == "append_line" && s.RecordedCalls == 1
			},
			edit: runner.Edit{Kind: runner.EditToolResult, Text: "the log is full"}, live: chat.script[1:],
			check: func(t *testing.T, orig, re recorded, step timeline.TimelineStep) {
				want := editedAll(orig.reqs[1:], func(_ int, m llmtest.Message) llmtest.Message {
					if m.Role == "tool" && m.ToolCallID == step.CallID {
						m.Content = "the log is full"
					}
					return m
				})
				sameRequests(t, "tool result edit", re.reqs, want)
			}},
		{name: "reply", wt: critique, step: isStep("call1"), edit: runner.Edit{Kind: runner.EditReply, Text: "Logs are lists."},
			live: critique.script[1:],
			check: func(t *testing.T, orig, re recorded, _ timeline.TimelineStep) {
				want := editedAll(orig.reqs[1:], func(_ int, m llmtest.Message) llmtest.Message {
					m.Content = strings.ReplaceAll(m.Content, "Logs are lines.", "Logs are lists.")
					return m
				})
				sameRequests(t, "reply edit", re.reqs, want)
				if calls := re.rec.Of(turn.EventThinkEnd); len(calls) != len(orig.reqs) {
					t.Fatalf("%d model calls in the re-run, want %d (the typed one among them)", len(calls), len(orig.reqs))
				}
			}},
		{name: "settings", wt: chat, step: isStep("call2"),
			edit: runner.Edit{Kind: runner.EditSettings, Settings: turn.RunSettings{Model: "m2", Sampling: turn.Sampling{Temperature: ptr(0.25)}}},
			live: chat.script[1:], lines: 1,
			check: func(t *testing.T, orig, re recorded, _ timeline.TimelineStep) {
				want := slices.Clone(orig.reqs[1:])
				for i := range want {
					want[i].Model = "m2"
				}
				sameRequests(t, "settings edit", re.reqs, want)
				for i, r := range re.reqs {
					if r.Body["temperature"] != 0.25 {
						t.Fatalf("live call %d was sent temperature %v, want 0.25", i+1, r.Body["temperature"])
					}
				}
			}},
		{name: "stage from the second round", wt: critique, step: isStep("stage4"),
			edit: runner.Edit{Kind: runner.EditStage, Stage: map[string]string{"system_prompt": "Pass anything short.", "temperature": "0.5"}},
			live: critique.script[3:],
			check: func(t *testing.T, orig, re recorded, _ timeline.TimelineStep) {
				want := []llmtest.Request{edited(orig.reqs[3], func(i int, m llmtest.Message) llmtest.Message {
					if i == 0 {
						m.Content = "Pass anything short."
					}
					return m
				})}
				sameRequests(t, "stage edit", re.reqs, want)
				if re.reqs[0].Body["temperature"] != 0.5 {
					t.Fatalf("the critic was sent temperature %v, want 0.5", re.reqs[0].Body["temperature"])
				}
			}},
		{name: "stage from the first round on", wt: critique, step: isStep("stage2"),
			edit: runner.Edit{Kind: runner.EditStage, Stage: map[string]string{"system_prompt": "Pass anything short."}},
			live: critique.script[1:],
			check: func(t *testing.T, orig, re recorded, _ timeline.TimelineStep) {
				want := slices.Clone(orig.reqs[1:])
				for _, i := range []int{0, 2} { // the critic's calls; the writer's revision keeps its prompt
					want[i] = edited(want[i], func(j int, m llmtest.Message) llmtest.Message {
						if j == 0 {
							m.Content = "Pass anything short."
						}
						return m
					})
				}
				sameRequests(t, "stage edit", re.reqs, want)
			}},
	}
	// A stage edit in the workflows that make an agent per stage: every
	// live call of the edited agent (its prompt was the step's first
	// call's) is sent the new prompt, the others theirs.
	for _, sc := range []struct {
		wt    workflowTurn
		stage string
		lines int
	}{{turns[4], "stage2", 1}, {turns[5], "stage3", 0}} {
		wt, stage := sc.wt, sc.stage
		tests = append(tests, struct {
			name  string
			wt    workflowTurn
			step  func(timeline.TimelineStep) bool
			edit  runner.Edit
			live  []llmtest.Reply
			lines int
			check check
		}{name: "stage in " + wt.name, wt: wt, step: isStep(stage), lines: sc.lines,
			edit: runner.Edit{Kind: runner.EditStage, Stage: map[string]string{"system_prompt": "Work carefully."}},
			live: wt.script[stepIn(t, wt, stage):],
			check: func(t *testing.T, orig, re recorded, step timeline.TimelineStep) {
				k := step.RecordedCalls
				prompt := orig.reqs[k].Messages[0].Content
				want := slices.Clone(orig.reqs[k:])
				changed := 0
				for i := range want {
					want[i] = edited(want[i], func(j int, m llmtest.Message) llmtest.Message {
						if j == 0 && m.Content == prompt {
							m.Content = "Work carefully."
							changed++
						}
						return m
					})
				}
				if changed == 0 || changed == len(want) && step.Agent == "fact-checker" {
					t.Fatalf("%d of %d live calls are the edited agent's", changed, len(want))
				}
				sameRequests(t, "stage edit", re.reqs, want)
			}})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newRerunRig(t)
			orig := recordOriginal(t, g, tt.wt)
			step := stepWhere(t, orig.steps, tt.step)
			g.srv.Enqueue(tt.live...)
			re := g.turnOf(t, g.req("", "", &runner.From{TurnID: orig.id, Step: step.ID, Edit: tt.edit}))
			if !re.res.OK {
				t.Fatalf("the re-run failed: %s", re.res.Error)
			}
			tt.check(t, orig, re, step)
			if d := divergences(t, re.rec); len(d) != 0 {
				t.Fatalf("the recorded part diverged from the recordings: %+v", d)
			}
			if re.lines != tt.lines {
				t.Fatalf("append_line ran %d times in the re-run, want %d", re.lines, tt.lines)
			}
			if re.approved != tt.lines {
				t.Fatalf("the person was asked %d times, want %d (only for the live side effects)", re.approved, tt.lines)
			}
			// Replayed later, all of it comes from its own recordings.
			before := len(g.srv.Requests())
			again := g.turnOf(t, runner.Request{SessionID: g.sess.ID, Replay: &runner.Replay{TurnID: re.id, Strict: true}})
			if !again.res.OK || again.res.FinalText != re.res.FinalText {
				t.Fatalf("replay of the re-run: ok %v (%s), %q, want %q", again.res.OK, again.res.Error, again.res.FinalText, re.res.FinalText)
			}
			if d := divergences(t, again.rec); len(d) != 0 {
				t.Fatalf("the replay of the re-run diverged: %+v", d)
			}
			if n := len(g.srv.Requests()) - before; n != 0 || again.lines != 0 {
				t.Fatalf("the replay called the model %d times and appended %d lines", n, again.lines)
			}
		})
	}
}

func isStep(id string) func(timeline.TimelineStep) bool {
	return func(s timeline.TimelineStep) bool { return s.ID == id }
}

// stepIn is how many calls of wt's script come before its step id (a
// stage step of a turn without failed calls), read from a recording.
func stepIn(t *testing.T, wt workflowTurn, id string) int {
	t.Helper()
	g := newRerunRig(t)
	orig := recordOriginal(t, g, wt)
	return stepWhere(t, orig.steps, isStep(id)).RecordedCalls
}

package eval

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/yamlcheck"
)

// stepSuite is a valid suite whose one case starts from a recorded step.
const stepSuite = `name: log
models: [openai/gpt-4o-mini]
cases:
  - id: typed-result
    from:
      turn: 01a2-turn
      step: tool2
      edit: {kind: tool_result, text: "(empty file)"}
    assert:
      - contains: empty
`

func TestParseFrom(t *testing.T) {
	s, err := Parse("s.yaml", []byte(stepSuite+"  - from: {turn: t, step: stage2, edit: {kind: stage, stage: {temperature: 0.2, system_prompt: Be brief.}}}\n    assert: [{contains: x}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	f := s.Cases[0].From
	if f == nil || f.Turn != "01a2-turn" || f.Step != "tool2" || f.Edit.Kind != "tool_result" || *f.Edit.Text != "(empty file)" {
		t.Fatalf("from: %+v", f)
	}
	e := s.Cases[1].From.Edit.runnerEdit()
	if e.Stage["temperature"] != "0.2" || e.Stage["system_prompt"] != "Be brief." {
		t.Fatalf("the stage edit as the runner takes it: %+v", e)
	}
}

func TestParseFromErrors(t *testing.T) {
	tests := []struct{ name, old, new, want string }{
		{"with a prompt", "    from:\n", "    prompt: hi\n    from:\n",
			`s.yaml:6:5: cases[0]: a case that starts from a recorded turn (from) runs that turn's message`},
		{"no turn", "      turn: 01a2-turn\n", "",
			`s.yaml:6:7: cases[0].from: missing turn: the id of the recorded turn to start from`},
		{"bad step", "step: tool2", "step: tool-2",
			`s.yaml:7:13: cases[0].from.step: "tool-2" is not a step: use start, stageN, callN or toolN`},
		{"unknown edit", "kind: tool_result", "kind: result",
			`s.yaml:8:20: cases[0].from.edit.kind: "result" is not one of message, system_prompt, tool_result, reply, stage`},
		{"edit that does not fit", "kind: tool_result", "kind: reply",
			`s.yaml:8:20: cases[0].from.edit.kind: a reply edit does not fit step tool2: it applies to a call step (callN)`},
		{"edit without text", `, text: "(empty file)"`, "",
			`s.yaml:8:13: cases[0].from.edit: missing text: the tool result the step should have had`},
		{"unknown field", "      step: tool2\n", "      step: tool2\n      steps: 2\n",
			`s.yaml:8:7: cases[0].from: unknown field "steps" (did you mean "step"?)`},
		{"attach", "    assert:\n", "    attach: [a.csv]\n    assert:\n",
			`s.yaml:9:5: cases[0].attach: a case that starts from a recorded turn (from) runs with that turn's attachments`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Replace(stepSuite, tt.old, tt.new, 1)
			if src == stepSuite {
				t.Fatalf("the case changed nothing")
			}
			_, err := Parse("s.yaml", []byte(src))
			var ps yamlcheck.Problems
			if !errors.As(err, &ps) || len(ps) == 0 {
				t.Fatalf("got %v, want Problems", err)
			}
			if got := ps[0].Error(); !strings.HasPrefix(got, tt.want) {
				t.Errorf("got  %s\nwant %s", err, tt.want)
			}
		})
	}
	stage := strings.Replace(stepSuite, "step: tool2\n      edit: {kind: tool_result, text: \"(empty file)\"}", "step: stage1\n      edit: {kind: stage, stage: {temperature: warm}}", 1)
	if _, err := Parse("s.yaml", []byte(stage)); err == nil || !strings.Contains(err.Error(), `cases[0].from.edit.stage.temperature: temperature must be a number, not "warm"`) {
		t.Errorf("a stage edit's bad number: %v", err)
	}
	if _, err := Parse("s.yaml", []byte("name: x\nmodels: [a/b]\ncases:\n  - assert: [{contains: a}]\n")); err == nil || !strings.Contains(err.Error(), "or from: a recorded turn's step") {
		t.Errorf("a case with neither: %v", err)
	}
}

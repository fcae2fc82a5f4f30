package eval

import (
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/yamlcheck"
)

// The schema of a case's from: a recorded turn's step to start from, and
// the one edit to make there (suite.go's CaseFrom and CaseEdit).

const (
	// stepPattern is a timeline step id (timeline.Steps).
	stepPattern = "^(start|(stage|call|tool)[1-9][0-9]*)$"
)

// editKinds are the edits a case may make at its step (runner.EditKind):
// all but settings, since the suite's models are the live part's.
var editKinds = []string{"message", "system_prompt", "tool_result", "reply", "stage"}

func fromSchema() obj {
	return obj{
		{"description", "Start the case from a step of a recorded turn of this database instead of a prompt: everything before the step is served from that turn's recordings (no model call, no side effect), the edit is made there, and only what follows runs on each model of the suite. The case runs the turn's own message, conversation and workflow."},
		{"type", "object"},
		{"properties", obj{
			{"turn", obj{{"description", "The recorded turn's id, as turns show prints it."}, {"type", "string"}, {"minLength", 1}}},
			{"step", obj{
				{"description", "The step to start from, by its id: start, stageN, callN or toolN (turns show --json lists a turn's steps)."},
				{"type", "string"},
				{"pattern", stepPattern},
			}},
			{"edit", ref("edit")},
		}},
		{"required", []any{"turn", "step"}},
		{"additionalProperties", false},
	}
}

func editSchema() obj {
	keys := make(obj, 0, len(runner.StageEditKeys))
	for _, k := range runner.StageEditKeys {
		// A value is text or a number, as a person types it; numbers
		// are checked when the suite is read.
		keys = append(keys, yamlcheck.Member{k, obj{{"description", "The stage agent's " + k + "."}, {"type", []any{"string", "number"}}}})
	}
	kinds := make([]any, len(editKinds))
	for i, k := range editKinds {
		kinds[i] = k
	}
	return obj{
		{"description", "The one change made at the step. Absent: the step runs again live, unchanged."},
		{"type", "object"},
		{"properties", obj{
			{"kind", obj{
				{"description", "What changes: message or system_prompt (at start), tool_result (at a tool step), reply (at a call step), each with text; or stage (at a stage step), with stage."},
				{"enum", kinds},
			}},
			{"text", obj{{"description", "The new message, system prompt, tool result or reply."}, {"type", "string"}}},
			{"stage", obj{
				{"description", "The stage agent's settings from that stage on, by name: system_prompt, model, temperature, top_p, max_tokens, seed, reasoning_effort."},
				{"type", "object"},
				{"properties", keys},
				{"minProperties", 1},
				{"additionalProperties", false},
			}},
		}},
		{"required", []any{"kind"}},
		{"additionalProperties", false},
	}
}

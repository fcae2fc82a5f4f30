package workflow

// The parts of the workflow schema that belong to no executor: agents,
// phases, conditions and checks. generateSchema puts them together with
// the executors' fields.

var agentDef = obj{
	{"description", "An agent: a system prompt, a model and the tools it may use."},
	{"type", "object"},
	{"properties", obj{
		{"system_prompt", obj{
			{"description", "The agent's instructions: its role, how to work and what to reply with."},
			{"type", "string"},
		}},
		{"model", obj{
			{"description", "The model to use; absent: the session's model."},
			{"type", "string"},
		}},
		{"provider", obj{
			{"description", "The provider the model is served by; absent: the session's provider."},
			{"type", "string"},
		}},
		{"tools", obj{
			{"description", `The tools the agent may call, by name, or "*" for every tool the session has. Absent: no tools.`},
			{"type", "array"},
			{"uniqueItems", true},
			{"items", obj{{"type", "string"}, {"minLength", 1}}},
		}},
		{"temperature", obj{
			{"description", "Sampling temperature, 0 to 2; absent: the session's, else the model's default."},
			{"type", "number"},
			{"minimum", 0},
			{"maximum", 2},
		}},
		{"top_p", obj{
			{"description", "Nucleus sampling, above 0 and at most 1; absent: the session's, else the model's default."},
			{"type", "number"},
			{"exclusiveMinimum", 0},
			{"maximum", 1},
		}},
		{"max_tokens", obj{
			{"description", "The most output tokens of each model call; absent: the session's, else the model's default."},
			{"type", "integer"},
			{"minimum", 1},
		}},
		{"seed", obj{
			{"description", "A seed for repeatable sampling, where the server supports one; absent: the session's."},
			{"type", "integer"},
		}},
		{"stop", obj{
			{"description", "Up to 4 sequences that end the model's answer; absent: the session's."},
			{"type", "array"},
			{"maxItems", 4},
			{"items", obj{{"type", "string"}, {"minLength", 1}}},
		}},
		{"reasoning_effort", obj{
			{"description", "How hard a reasoning model thinks; absent: the session's, else the model's default."},
			{"enum", []any{"low", "medium", "high"}},
		}},
		{"session_instructions", obj{
			{"description", "Whether the session's instructions follow this agent's system prompt. Absent: yes for agents that write the answer (a chat agent, a writer, an executor), no for critics and planners."},
			{"type", "boolean"},
		}},
		{"limits", ref("limits")},
	}},
	{"additionalProperties", false},
}

var limitsDef = obj{
	{"description", "Limits on one run of the agent's loop; absent or 0: the app's defaults."},
	{"type", "object"},
	{"properties", obj{
		{"max_steps", obj{{"$ref", "#/$defs/count"}, {"description", "The most model calls in one run."}}},
		{"max_tool_calls", obj{{"$ref", "#/$defs/count"}, {"description", "The most tool calls in one run."}}},
		{"token_budget", obj{{"$ref", "#/$defs/count"}, {"description", "The most tokens one run may use."}}},
		{"timeout", obj{{"$ref", "#/$defs/duration"}, {"description", `The longest one run may take, such as "2m".`}}},
	}},
	{"additionalProperties", false},
}

var phaseDef = obj{
	{"description", "A named list of stages, run in order."},
	{"type", "object"},
	{"properties", obj{
		{"name", obj{
			{"description", "The phase's name, shown in the run's progress (default: phase-1, phase-2, ...)."},
			{"type", "string"},
			{"minLength", 1},
			{"maxLength", 64},
		}},
		{"stages", obj{
			{"description", "The phase's stages, run in order."},
			{"type", "array"},
			{"minItems", 1},
			{"items", ref("stage")},
		}},
	}},
	{"required", []any{"stages"}},
	{"additionalProperties", false},
}

var conditionDef = obj{
	{"description", "Skip the stage when every condition given here holds. A skipped stage passes its input on unchanged."},
	{"type", "object"},
	{"properties", obj{
		{"previous", obj{
			{"description", "The previous stage's outcome."},
			{"enum", []any{"succeeded", "failed", "skipped"}},
		}},
		{"input_matches", obj{
			{"description", "A regular expression (Go RE2 syntax; (?i) makes it case-insensitive) the stage's input matches somewhere."},
			{"type", "string"},
		}},
		{"input_shorter_than", obj{
			{"description", "The stage's input is shorter than this many characters."},
			{"type", "integer"},
			{"minimum", 0},
		}},
	}},
	{"additionalProperties", false},
}

var validationDef = obj{
	{"description", "Checks on the stage's output after it succeeded. Every check given must pass; a failed check fails the attempt (see max_attempts)."},
	{"type", "object"},
	{"properties", obj{
		{"contains", obj{
			{"description", "Text the output must contain (case-sensitive)."},
			{"type", "string"},
		}},
		{"matches", obj{
			{"description", "A regular expression (Go RE2 syntax) the output must match somewhere."},
			{"type", "string"},
		}},
		{"json", obj{
			{"description", "The output must be, or contain, a JSON object or array (a fenced code block will do)."},
			{"type", "boolean"},
		}},
		{"min_length", obj{
			{"description", "The least number of characters the trimmed output must have."},
			{"type", "integer"},
			{"minimum", 0},
		}},
	}},
	{"additionalProperties", false},
}

// The check blocks' descriptions start with the kinds that read them
// (see withKinds).

var passCheckDef = obj{
	{"description", `how the critic's reply is judged a pass. Give exactly one: verdict: true (the default: the JSON verdict's "passed", or PASS or FAIL as the reply's first word), contains (text the reply must contain), score_at_least (the score the verdict must reach) or matches (a regular expression the reply must match).`},
	{"type", "object"},
	{"properties", obj{
		{"verdict", obj{
			{"description", `true: the critic's JSON verdict {"passed": ...} decides, or PASS or FAIL as the first word of its reply. This is what happens without pass_check.`},
			{"type", "boolean"},
		}},
		{"contains", obj{
			{"description", `The critic's reply passes when it contains this text (case-sensitive), such as "LGTM".`},
			{"type", "string"},
			{"minLength", 1},
		}},
		{"score_at_least", obj{
			{"description", "The critic's reply passes when its verdict's score is at least this, on the 0-1 scale; values above 1 are read on a 0-10 scale, so 8 means 0.8."},
			{"type", "number"},
			{"minimum", 0},
			{"maximum", 10},
		}},
		{"matches", obj{
			{"description", "The critic's reply passes when it matches this regular expression (Go RE2 syntax) somewhere, such as '(?im)^approved'."},
			{"type", "string"},
			{"minLength", 1},
		}},
	}},
	{"minProperties", 1},
	{"maxProperties", 1},
	{"additionalProperties", false},
}

var postPassCheckDef = obj{
	{"description", "checks applied after the critic passed a draft; if one fails, the pass is overridden and the draft is revised again, with the check's message as feedback. Every check given must pass."},
	{"type", "object"},
	{"properties", obj{
		{"on", obj{
			{"description", "The text the checks read: draft (the default: the draft the critic passed) or critique (the critic's reply)."},
			{"enum", []any{"draft", "critique"}},
		}},
		{"contains", obj{
			{"description", "Text that must be there (case-sensitive)."},
			{"type", "string"},
		}},
		{"matches", obj{
			{"description", "A regular expression (Go RE2 syntax) that must match somewhere."},
			{"type", "string"},
		}},
		{"json", obj{
			{"description", "The text must be, or contain, a JSON object or array (a fenced code block will do)."},
			{"type", "boolean"},
		}},
		{"min_length", obj{
			{"description", "The least number of characters the trimmed text must have."},
			{"type", "integer"},
			{"minimum", 0},
		}},
	}},
	{"additionalProperties", false},
}

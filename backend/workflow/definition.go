package workflow

import (
	"time"
)

// Kind names an executor (each declares its own constant and spec, in its
// own file) or, for a whole workflow, pipeline.
type Kind string

// KindPipeline runs phases of stages of the other kinds.
const KindPipeline Kind = "pipeline"

// Definition is a workflow as loaded from a file or built in. Every
// workflow runs as phases of stages; a non-pipeline workflow is one phase
// (named "") with one stage whose settings are the workflow's own.
type Definition struct {
	Name        string              `json:"name" yaml:"name"`
	Description string              `json:"description,omitempty" yaml:"description,omitempty"`
	Agents      map[string]AgentDef `json:"agents,omitempty" yaml:"agents,omitempty"`
	// Stage holds the workflow's kind and, for a non-pipeline workflow, the
	// executor's settings.
	Stage `yaml:",inline"`
	// Phases are the pipeline's phases, run in order.
	Phases []Phase `json:"phases,omitempty" yaml:"phases,omitempty"`
	// TokenBudget caps the whole run's tokens (0: none).
	TokenBudget int `json:"token_budget,omitempty" yaml:"token_budget,omitempty"`
	// Source is the file the definition came from ("" when built in).
	Source string `json:"source,omitempty" yaml:"-"`
}

// AgentDef configures one agent of a workflow.
type AgentDef struct {
	SystemPrompt string   `json:"system_prompt,omitempty" yaml:"system_prompt,omitempty"`
	Model        string   `json:"model,omitempty" yaml:"model,omitempty"`       // "" = the session's model
	Provider     string   `json:"provider,omitempty" yaml:"provider,omitempty"` // "" = the session's provider
	Tools        []string `json:"tools,omitempty" yaml:"tools,omitempty"`       // tool names or "*" for all the session has
	// Sampling: a value set here wins, for this agent, over the app's,
	// the project's, the session's and the turn's (absent: theirs).
	Temperature     *float32 `json:"temperature,omitempty" yaml:"temperature,omitempty"`
	TopP            *float32 `json:"top_p,omitempty" yaml:"top_p,omitempty"`
	MaxTokens       int      `json:"max_tokens,omitempty" yaml:"max_tokens,omitempty"`
	Seed            *int64   `json:"seed,omitempty" yaml:"seed,omitempty"`
	Stop            []string `json:"stop,omitempty" yaml:"stop,omitempty"`
	ReasoningEffort string   `json:"reasoning_effort,omitempty" yaml:"reasoning_effort,omitempty"`
	// SessionInstructions says whether the session's instructions follow
	// this agent's system prompt; absent: by the roles it plays
	// (Definition.ReceivesInstructions).
	SessionInstructions *bool  `json:"session_instructions,omitempty" yaml:"session_instructions,omitempty"`
	Limits              Limits `json:"limits,omitempty" yaml:"limits,omitempty"`
}

// Limits are an agent's loop limits as written in a file.
type Limits struct {
	MaxSteps     int      `json:"max_steps,omitempty" yaml:"max_steps,omitempty"`
	MaxToolCalls int      `json:"max_tool_calls,omitempty" yaml:"max_tool_calls,omitempty"`
	TokenBudget  int      `json:"token_budget,omitempty" yaml:"token_budget,omitempty"`
	Timeout      Duration `json:"timeout,omitempty" yaml:"timeout,omitempty"`
}

// Phase is a named list of stages.
type Phase struct {
	Name   string  `json:"name" yaml:"name"`
	Stages []Stage `json:"stages" yaml:"stages"`
}

// Stage is one step of a workflow: an executor with its settings and a policy.
type Stage struct {
	Name string `json:"name,omitempty" yaml:"name,omitempty"`
	// Kind is the executor: one of the registered kinds; on a Definition
	// it may also be pipeline.
	Kind Kind `json:"kind" yaml:"kind"`

	// The executor's settings, by their field names in the file, as its
	// spec declares them (see executor.go). The file writes them flat,
	// beside the other fields: writer: author.
	//
	// Roles names the agent of each role: {"writer": "author"}.
	Roles Roles `json:"-" yaml:"-"`
	// Teams names the agents of each role played by a list: {"specialists": ["poet"]}.
	Teams Teams `json:"-" yaml:"-"`
	// Numbers holds the numeric settings: {"max_retries": 2}. 0 or absent
	// means the default.
	Numbers Numbers `json:"-" yaml:"-"`
	// PassCheck says how the critic's reply is judged a pass (nil: the verdict).
	PassCheck *PassCheck `json:"pass_check,omitempty" yaml:"pass_check,omitempty"`
	// PostPassCheck may veto a pass, checking the draft or the critique.
	PostPassCheck *PostPassCheck `json:"post_pass_check,omitempty" yaml:"post_pass_check,omitempty"`

	// Input is what the stage receives: "" or "previous" (the previous
	// stage's output, or the user's message for the first stage), or
	// "user" (the user's message).
	Input string `json:"input,omitempty" yaml:"input,omitempty"`
	// Policy (pipeline stages).
	SkipIf      *Condition  `json:"skip_if,omitempty" yaml:"skip_if,omitempty"`
	MaxAttempts int         `json:"max_attempts,omitempty" yaml:"max_attempts,omitempty"` // default 1
	TokenBudget int         `json:"token_budget,omitempty" yaml:"token_budget,omitempty"`
	Validate    *Validation `json:"validate,omitempty" yaml:"validate,omitempty"`
	OnFailure   string      `json:"on_failure,omitempty" yaml:"on_failure,omitempty"` // abort (default) or continue
}

// Roles maps a role to the agent that plays it.
type Roles map[string]string

// Teams maps a role to the agents that play it.
type Teams map[string][]string

// Numbers maps a numeric setting to its value.
type Numbers map[string]float64

// Condition decides whether a stage is skipped. All set fields must hold.
type Condition struct {
	Previous         string `json:"previous,omitempty" yaml:"previous,omitempty"`                     // "failed", "succeeded" or "skipped": the previous stage's outcome
	InputMatches     string `json:"input_matches,omitempty" yaml:"input_matches,omitempty"`           // a regular expression
	InputShorterThan int    `json:"input_shorter_than,omitempty" yaml:"input_shorter_than,omitempty"` // characters
}

// Validation checks a stage's output after it succeeded; a failed check
// fails the stage (and counts as a failed attempt).
type Validation struct {
	Contains  string `json:"contains,omitempty" yaml:"contains,omitempty"`
	Matches   string `json:"matches,omitempty" yaml:"matches,omitempty"` // a regular expression
	JSON      bool   `json:"json,omitempty" yaml:"json,omitempty"`       // the output is (or contains a fenced) JSON value
	MinLength int    `json:"min_length,omitempty" yaml:"min_length,omitempty"`
}

// PassCheck says how a critique-revise critic's reply is judged a pass.
// Exactly one field is set; nil means Verdict.
type PassCheck struct {
	// Verdict: the JSON verdict's "passed", or PASS or FAIL on the
	// reply's first line (see ParseVerdict).
	Verdict bool `json:"verdict,omitempty" yaml:"verdict,omitempty"`
	// Contains: the reply contains this text (case-sensitive).
	Contains string `json:"contains,omitempty" yaml:"contains,omitempty"`
	// ScoreAtLeast: the verdict's score is at least this (0..1; above 1
	// read on a 0..10 scale). A pointer, since 0 is a score one may ask for.
	ScoreAtLeast *float64 `json:"score_at_least,omitempty" yaml:"score_at_least,omitempty"`
	// Matches: the reply matches this regular expression somewhere.
	Matches string `json:"matches,omitempty" yaml:"matches,omitempty"`
}

// PostPassCheck applies validation checks after the critic passed a draft;
// a failed check overrides the pass and the draft is revised again.
type PostPassCheck struct {
	// On is the text checked: "draft" (the default) or "critique" (the
	// critic's reply).
	On         string `json:"on,omitempty" yaml:"on,omitempty"`
	Validation `yaml:",inline"`
}

// Duration is a time.Duration written as "30s", "2m".
type Duration time.Duration

package eval

import "encoding/json"

// Suite is one evaluation suite file.
type Suite struct {
	// Name names the suite in runs, lists and reports.
	Name string `json:"name"`
	// Workflow is the workflow every case runs: a workflow's name (built-in
	// or in the workflows folder), or a workflow file's path, relative to
	// the suite file. "" is the default workflow (chat).
	Workflow string `json:"workflow,omitempty"`
	// Models is the matrix: each "provider/model" runs every case. The
	// provider is a configured provider's name; the model is everything
	// after the first "/" (it may hold more slashes).
	Models []string `json:"models"`
	// Repeat runs each case on each model this many times (default 1).
	Repeat int `json:"repeat,omitempty"`
	// Cases are run in file order.
	Cases []Case `json:"cases"`

	// Source is the file the suite was read from ("" when not from a file).
	Source string `json:"-"`
}

// Case is one prompt and what its answer must satisfy.
type Case struct {
	// ID names the case across runs (eval diff matches cases by it): the
	// file's id, else "case-N" by its 1-based place in the file.
	ID string `json:"id,omitempty"`
	// Description is shown beside the id.
	Description string `json:"description,omitempty"`
	// Prompt is the user's message; or Messages, a conversation whose last
	// message is the user's. One of the two, not both. Both may use
	// {{name}} to insert Vars.
	Prompt   string    `json:"prompt,omitempty"`
	Messages []Message `json:"messages,omitempty"`
	// Attach names files to attach to the message (paths relative to the
	// suite file): tables become the session's data, images go with the
	// message, as in the app.
	Attach []string `json:"attach,omitempty"`
	// Vars fill the {{name}} placeholders of the prompt or messages.
	Vars map[string]string `json:"vars,omitempty"`
	// From starts the case from a step of a recorded turn instead of a
	// prompt (time travel): everything before the step is served from
	// that turn's recordings, and only what follows runs on the model
	// under test. Such a case has no prompt, messages or attach: it runs
	// the turn's own.
	From *CaseFrom `json:"from,omitempty"`
	// Assert lists what the answer must satisfy; every assertion must pass.
	Assert []Assert `json:"assert"`
}

// CaseFrom names a recorded turn of this database and a step of it to start
// a case from, and the one edit to make there (none: run the step again
// live). It is the suite field shared by every case made from a stored
// turn.
type CaseFrom struct {
	// Turn is the turn's id (turns show prints it).
	Turn string `json:"turn"`
	// Step is a step of the turn by its timeline id: start, stageN,
	// callN or toolN (turns show --json lists them).
	Step string    `json:"step"`
	Edit *CaseEdit `json:"edit,omitempty"`
}

// CaseEdit is the change a case makes at its step (runner.Edit): Kind
// message or system_prompt at the start, tool_result at a tool step,
// reply at a call step, with Text; or stage at a stage step, with Stage
// (the stage agent's system_prompt, model, temperature, top_p,
// max_tokens, seed or reasoning_effort). The model and provider of the
// live part are the suite's models.
type CaseEdit struct {
	Kind string  `json:"kind"`
	Text *string `json:"text,omitempty"`
	// Stage values are text or numbers, as YAML reads them.
	Stage map[string]any `json:"stage,omitempty"`
}

// Message is one message of a case's conversation.
type Message struct {
	Role    string `json:"role"` // user or assistant
	Content string `json:"content"`
}

// Assert is one assertion: exactly one of its fields is set, which names
// its kind (in YAML, a one-key map: "- contains: Paris").
type Assert struct {
	Contains    *string          `json:"contains,omitempty"`
	NotContains *string          `json:"not_contains,omitempty"`
	Regex       *string          `json:"regex,omitempty"`
	Equals      *string          `json:"equals,omitempty"`
	JSONSchema  json.RawMessage  `json:"json_schema,omitempty"`
	ToolCalled  *ToolCalled      `json:"tool_called,omitempty"`
	Chart       *bool            `json:"chart,omitempty"`
	MaxLatency  *float64         `json:"max_latency_ms,omitempty"`
	MaxTokens   *int64           `json:"max_tokens,omitempty"`
	MaxCost     *float64         `json:"max_cost,omitempty"`
	Termination *TerminationRule `json:"termination,omitempty"`
	Judge       *JudgeRule       `json:"judge,omitempty"`
	SimilarTo   *Similarity      `json:"similar_to,omitempty"`
}

// ToolCalled passes when the turn called the tool Name (successfully),
// with arguments matching Args: for each argument name, a Matcher its
// value (as JSON text for non-strings) must satisfy.
type ToolCalled struct {
	Name string             `json:"name"`
	Args map[string]Matcher `json:"args,omitempty"`
}

// Matcher tests one text: exactly one field is set.
type Matcher struct {
	Equals   *string `json:"equals,omitempty"`
	Contains *string `json:"contains,omitempty"`
	Regex    *string `json:"regex,omitempty"`
}

// TerminationRule passes when the turn ended in one of Is (termination
// kinds, e.g. "natural_completion"), or, with NotLimit, in anything but a
// limit (steps, tool calls, budget, stall, timeout). One of the two.
type TerminationRule struct {
	Is       []string `json:"is,omitempty"`
	NotLimit bool     `json:"not_limit,omitempty"`
}

// JudgeRule asks a critic model to score the answer against Rubric; it
// passes when the critic's verdict passes and its score (0-1) reaches
// Threshold (default 0.5).
type JudgeRule struct {
	Rubric    string   `json:"rubric"`
	Model     string   `json:"model"` // "provider/model"
	Threshold *float64 `json:"threshold,omitempty"`
}

// Similarity compares the answer with Reference by a lexical Measure
// (default "token_f1": F1 of the two texts' sets of lowercase word
// tokens); it passes at Threshold (0-1, default 0.5). No model is needed.
type Similarity struct {
	Reference string   `json:"reference"`
	Measure   string   `json:"measure,omitempty"`
	Threshold *float64 `json:"threshold,omitempty"`
}

package turn

import "encoding/json"

// Payload is the data of one event type: each payload type says which
// type its events are, so an Emitter takes the payload alone and an event
// cannot be given the data of another (see the package doc). Every
// payload type is declared in this file, one per EventType, and listed in
// Payloads.
type Payload interface {
	EventType() EventType
}

// Payloads returns a zero value of every payload type, in the order of the
// EventType constants: what typegen makes the TypeScript event union of,
// and what the tests check covers every event type once.
func Payloads() []Payload {
	return []Payload{
		TokenData{}, ReasoningData{}, ModelWaitingData{}, ModelRetryData{},
		ThinkStartData{}, ThinkEndData{},
		ToolCallData{}, ToolResultData{}, ToolErrorData{}, GuardData{},
		PlanData{}, StepStartData{}, StepEndData{},
		MemoryData{}, CompressedData{},
		HandoffStartData{}, HandoffEndData{},
		ReflectionStartData{}, ReflectionEndData{}, CritiqueData{}, RefiningData{}, RevisionData{},
		ReplayDivergenceData{}, ChartData{},
		StageStartData{}, StageEndData{},
		ErrorData{}, FinalAnswerData{}, CancelledData{}, TurnCompletedData{},
	}
}

// TokenData is a piece of the answer as the model streams it.
type TokenData struct {
	Text string `json:"text"`
}

func (TokenData) EventType() EventType { return EventToken }

// ReasoningData is a piece of the model's reasoning, from a reasoning
// field of the stream or a <think> block of its content.
type ReasoningData struct {
	Text string `json:"text"`
}

func (ReasoningData) EventType() EventType { return EventReasoning }

// ModelWaitingData is sent once per model call that has received no
// byte WaitedMS milliseconds after it started.
type ModelWaitingData struct {
	WaitedMS int64 `json:"waited_ms"`
}

func (ModelWaitingData) EventType() EventType { return EventModelWaiting }

// ModelRetryData is one retry of a model call: the attempt that comes
// next of how many, what the failed one got (HTTP status, 0 for a
// network error; the error's kind and message), and the wait before
// the next (a Retry-After, else backoff).
type ModelRetryData struct {
	Attempt     int    `json:"attempt"`
	MaxAttempts int    `json:"max_attempts"`
	Status      int    `json:"status,omitempty"`
	Kind        string `json:"kind"`
	Message     string `json:"message"`
	WaitMS      int64  `json:"wait_ms"`
}

func (ModelRetryData) EventType() EventType { return EventModelRetry }

// ThinkStartData is the data of think_start, a model call beginning: none,
// {} on the wire.
type ThinkStartData struct{}

func (ThinkStartData) EventType() EventType { return EventThinkStart }

type ThinkEndData struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

func (ThinkEndData) EventType() EventType { return EventThinkEnd }

type ToolCallData struct {
	CallID string          `json:"call_id"`
	Name   string          `json:"name"`
	Args   json.RawMessage `json:"args"`
}

func (ToolCallData) EventType() EventType { return EventToolCall }

type ToolResultData struct {
	CallID     string `json:"call_id"`
	Name       string `json:"name"`
	Output     string `json:"output"`
	DurationMS int64  `json:"duration_ms"`
}

func (ToolResultData) EventType() EventType { return EventToolResult }

type ToolErrorData struct {
	CallID     string `json:"call_id"`
	Name       string `json:"name"`
	Error      string `json:"error"`
	DurationMS int64  `json:"duration_ms"`
	// NotRun is set when the tool never ran: its arguments were
	// invalid, a guard or the user refused it, or a limit was reached.
	NotRun bool `json:"not_run,omitempty"`
}

func (ToolErrorData) EventType() EventType { return EventToolError }

type GuardData struct {
	Guard   string `json:"guard"`
	Blocked bool   `json:"blocked"`
	Reason  string `json:"reason"`
}

func (GuardData) EventType() EventType { return EventGuardTriggered }

type PlanData struct {
	Steps []PlanStep `json:"steps"`
}

func (PlanData) EventType() EventType { return EventPlanGenerated }

type StepStartData struct {
	StepIndex   int    `json:"step_index"`
	Description string `json:"description"`
}

func (StepStartData) EventType() EventType { return EventStepStart }

type StepEndData struct {
	StepIndex int  `json:"step_index"`
	Success   bool `json:"success"`
}

func (StepEndData) EventType() EventType { return EventStepEnd }

type MemoryData struct {
	Count int `json:"count"`
}

func (MemoryData) EventType() EventType { return EventMemoryRecalled }

type CompressedData struct {
	BeforeCount  int `json:"before_count"`
	AfterCount   int `json:"after_count"`
	BeforeTokens int `json:"before_tokens"`
	AfterTokens  int `json:"after_tokens"`
}

func (CompressedData) EventType() EventType { return EventContextCompressed }

type HandoffStartData struct {
	From string `json:"from"`
	To   string `json:"to"`
}

func (HandoffStartData) EventType() EventType { return EventHandoffStart }

// HandoffEndData comes after the agent handed to has run.
type HandoffEndData struct {
	To            string  `json:"to"`
	Outcome       Outcome `json:"outcome,omitempty"`
	TargetStageID string  `json:"target_stage_id,omitempty"`
}

func (HandoffEndData) EventType() EventType { return EventHandoffEnd }

type ReflectionStartData struct {
	Iteration int `json:"iteration"`
}

func (ReflectionStartData) EventType() EventType { return EventReflectionStart }

type ReflectionEndData struct {
	Iteration int     `json:"iteration"`
	Score     float64 `json:"score"`
	Passed    bool    `json:"passed"`
}

func (ReflectionEndData) EventType() EventType { return EventReflectionEnd }

type CritiqueData struct {
	Score    float64 `json:"score"`
	Passed   bool    `json:"passed"`
	Feedback string  `json:"feedback"`
}

func (CritiqueData) EventType() EventType { return EventCritique }

type RefiningData struct {
	Iteration int `json:"iteration"`
}

func (RefiningData) EventType() EventType { return EventRefining }

// RevisionData is a revision that completed: the reviser's new draft.
// The event's stage_id is the revise stage.
type RevisionData struct {
	Iteration int    `json:"iteration"`
	Text      string `json:"text"`
}

func (RevisionData) EventType() EventType { return EventRevision }

// ReplayDivergenceData is where a replay stopped matching the turn it
// replays: a model call whose request differs from the recorded one
// (Diffs say how), a call the original never made, or a read-only tool
// whose result changed.
type ReplayDivergenceData struct {
	Call    int      `json:"call,omitempty"` // model call number, from 1
	Kind    string   `json:"kind"`           // request, extra_call, missing_calls, tool_result, tool_not_recorded
	Message string   `json:"message"`
	Diffs   []string `json:"diffs,omitempty"`
}

func (ReplayDivergenceData) EventType() EventType { return EventReplayDivergence }

type ChartData struct {
	Spec  json.RawMessage `json:"spec"`
	Title string          `json:"title"`
}

func (ChartData) EventType() EventType { return EventChart }

// StageStartData is the data of stage_start.
type StageStartData struct {
	StageID string `json:"stage_id"`
	Stage   string `json:"stage"`
	Phase   string `json:"phase"`
	Agent   string `json:"agent"`
	// Final is set when the workflow knows, before the stage runs, that
	// its reply will be the turn's final text, so a client may show its
	// tokens as the answer while they stream.
	Final bool `json:"final,omitempty"`
}

func (StageStartData) EventType() EventType { return EventStageStart }

// StageEndData is the data of stage_end: the stage's result.
type StageEndData StageResult

func (StageEndData) EventType() EventType { return EventStageEnd }

type ErrorData struct {
	Source  string `json:"source"` // llm, tool, guard, config, limit, workflow, internal
	Message string `json:"message"`
}

func (ErrorData) EventType() EventType { return EventError }

type FinalAnswerData struct {
	Text string `json:"text"`
}

func (FinalAnswerData) EventType() EventType { return EventFinalAnswer }

type CancelledData struct {
	PartialText string `json:"partial_text"`
}

func (CancelledData) EventType() EventType { return EventCancelled }

// TurnCompletedData is the data of turn_completed: the turn result without
// the transcript, which is stored as messages. (Its TypeScript is Result's:
// the UI reads no messages from it.)
type TurnCompletedData struct {
	Result
	Messages any `json:"messages,omitempty" tstype:"-"` // always nil: shadows Result.Messages
}

func (TurnCompletedData) EventType() EventType { return EventTurnCompleted }

package turn

import "encoding/json"

// This file holds everything that is per event type: its name, its phase
// and whether it is a checkpoint (kinds), and its payload type, which says
// its name (EventType) and is listed in Payloads. Adding an event type is
// one constant, one kinds entry and one payload type here; see the
// package doc.

// EventType names an event.
type EventType string

const (
	EventToken EventType = "token"
	// EventReasoning is the model's visible thinking, streamed like token
	// and coalesced like it; it is never part of the answer.
	EventReasoning EventType = "reasoning"
	// EventModelWaiting says a model call has received nothing yet, a few
	// seconds after it started (a local server loading a model).
	EventModelWaiting EventType = "model_waiting"
	// EventModelRetry says a model call failed before its answer began
	// and will be tried again after a wait (a 429, a 5xx, a dropped
	// connection): one per retry.
	EventModelRetry        EventType = "model_retry"
	EventThinkStart        EventType = "think_start"
	EventThinkEnd          EventType = "think_end"
	EventToolCall          EventType = "tool_call"
	EventToolResult        EventType = "tool_result"
	EventToolError         EventType = "tool_error"
	EventGuardTriggered    EventType = "guard_triggered"
	EventPlanGenerated     EventType = "plan_generated"
	EventStepStart         EventType = "step_start"
	EventStepEnd           EventType = "step_end"
	EventMemoryRecalled    EventType = "memory_recalled"
	EventContextCompressed EventType = "context_compressed"
	EventHandoffStart      EventType = "handoff_start"
	EventHandoffEnd        EventType = "handoff_end"
	EventReflectionStart   EventType = "reflection_start"
	EventReflectionEnd     EventType = "reflection_end"
	EventCritique          EventType = "critique_generated"
	EventRefining          EventType = "refining"
	EventRevision          EventType = "revision_completed"
	EventReplayDivergence  EventType = "replay_divergence"
	// EventLiveFrom marks where a turn re-run from a step of another turn
	// stops being served from that turn's recordings and runs live.
	EventLiveFrom EventType = "live_from"
	EventChart    EventType = "chart"
	// EventArtifact is one version of an artifact: an HTML page or SVG
	// image from a create_artifact call or an html/svg block of the
	// answer, shown in a sealed frame beside the chat.
	EventArtifact EventType = "artifact"
	// EventCodeRun is one run of a run_code script: its code, what it
	// printed and returned, and the limit or error that stopped it.
	EventCodeRun EventType = "code_run"
	// EventSources: passages or pages a tool gave the model to cite.
	EventSources       EventType = "sources"
	EventStageStart    EventType = "stage_start"
	EventStageEnd      EventType = "stage_end"
	EventError         EventType = "error"
	EventFinalAnswer   EventType = "final_answer"
	EventCancelled     EventType = "cancelled"
	EventTurnCompleted EventType = "turn_completed"
)

// Phase groups events by what the agent is doing.
type Phase string

const (
	PhaseThinking   Phase = "thinking"
	PhaseActing     Phase = "acting"
	PhasePlanning   Phase = "planning"
	PhaseHandingOff Phase = "handing_off"
	PhaseReflecting Phase = "reflecting"
	PhaseStage      Phase = "stage"
	PhaseTerminal   Phase = "terminal"
)

// kinds maps each type to its phase and whether it is a checkpoint: a
// moment with no model or tool call in flight.
var kinds = map[EventType]struct {
	phase      Phase
	checkpoint bool
}{
	EventToken:             {PhaseThinking, false},
	EventReasoning:         {PhaseThinking, false},
	EventModelWaiting:      {PhaseThinking, false},
	EventModelRetry:        {PhaseThinking, false},
	EventThinkStart:        {PhaseThinking, false},
	EventThinkEnd:          {PhaseThinking, true},
	EventToolCall:          {PhaseActing, false},
	EventToolResult:        {PhaseActing, true},
	EventToolError:         {PhaseActing, true},
	EventGuardTriggered:    {PhaseActing, false},
	EventPlanGenerated:     {PhasePlanning, true},
	EventStepStart:         {PhasePlanning, false},
	EventStepEnd:           {PhasePlanning, true},
	EventMemoryRecalled:    {PhaseThinking, false},
	EventContextCompressed: {PhaseThinking, true},
	EventHandoffStart:      {PhaseHandingOff, false},
	EventHandoffEnd:        {PhaseHandingOff, true},
	EventReflectionStart:   {PhaseReflecting, false},
	EventReflectionEnd:     {PhaseReflecting, true},
	EventCritique:          {PhaseReflecting, true},
	EventRefining:          {PhaseReflecting, false},
	EventRevision:          {PhaseReflecting, true},
	EventReplayDivergence:  {PhaseThinking, false},
	EventLiveFrom:          {PhaseThinking, false},
	EventChart:             {PhaseThinking, false},
	EventArtifact:          {PhaseThinking, false},
	EventCodeRun:           {PhaseActing, false},
	EventSources:           {PhaseActing, false},
	EventStageStart:        {PhaseStage, false},
	EventStageEnd:          {PhaseStage, true},
	EventError:             {PhaseTerminal, true},
	EventFinalAnswer:       {PhaseTerminal, true},
	EventCancelled:         {PhaseTerminal, true},
	EventTurnCompleted:     {PhaseTerminal, true},
}

// PhaseOf returns the phase of an event type.
func PhaseOf(t EventType) Phase { return kinds[t].phase }

// IsCheckpoint reports whether events of type t are checkpoints.
func IsCheckpoint(t EventType) bool { return kinds[t].checkpoint }

// IsTerminal reports whether t ends a turn's answer (final_answer,
// cancelled or error).
func IsTerminal(t EventType) bool {
	return t == EventFinalAnswer || t == EventCancelled || t == EventError
}

// Payload is the data of one event type: each payload type says which
// type its events are, so an Emitter takes the payload alone and an event
// cannot be given the data of another (see the package doc). Every
// payload type is declared in this file, one per EventType, and listed in
// Payloads.
type Payload interface {
	EventType() EventType
}

// Payloads returns a zero value of every payload type, in the order of the
// EventType constants; the tests check it covers every event type once.
// (typegen, which reads the source, finds the same types by their
// EventType methods to make the TypeScript event union.)
func Payloads() []Payload {
	return []Payload{
		TokenData{}, ReasoningData{}, ModelWaitingData{}, ModelRetryData{},
		ThinkStartData{}, ThinkEndData{},
		ToolCallData{}, ToolResultData{}, ToolErrorData{}, GuardData{},
		PlanData{}, StepStartData{}, StepEndData{},
		MemoryData{}, CompressedData{},
		HandoffStartData{}, HandoffEndData{},
		ReflectionStartData{}, ReflectionEndData{}, CritiqueData{}, RefiningData{}, RevisionData{},
		ReplayDivergenceData{}, LiveFromData{}, ChartData{}, ArtifactData{}, CodeRunData{}, SourcesData{},
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
	// Capture is the call's llm.CallDiagnostics.Capture: "recorded" or
	// "replayed" when the call has a recording (a step a re-run may start
	// from), "" when it failed or recording was off. Absent in events
	// stored before issue 45 (so the key is always written).
	Capture string `json:"capture"`
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
	// Summarized is set when a model call wrote the summary and answered,
	// so it has a recording: the turn's call order counts it.
	Summarized bool `json:"summarized,omitempty"`
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

// LiveFromData is live_from: a turn re-run from a step of another turn
// (time travel) ran everything before it from that turn's recordings and
// runs live from here, with Edit applied. It is emitted once, when the
// first step that is not from a recording begins.
type LiveFromData struct {
	FromTurnID string `json:"from_turn_id"`
	FromStep   string `json:"from_step"`
	// Edit is the kind of change made at the step ("" for none): message,
	// system_prompt, tool_result, reply, settings, stage.
	Edit string `json:"edit,omitempty"`
	// RecordedCalls and RecordedTools are how many model calls and tool
	// results came from the recordings before this point.
	RecordedCalls int `json:"recorded_calls"`
	RecordedTools int `json:"recorded_tools"`
}

func (LiveFromData) EventType() EventType { return EventLiveFrom }

type ChartData struct {
	Spec  json.RawMessage `json:"spec"`
	Title string          `json:"title"`
}

func (ChartData) EventType() EventType { return EventChart }

// Artifact kinds.
const (
	ArtifactHTML = "html"
	ArtifactSVG  = "svg"
)

// Where an artifact came from.
const (
	ArtifactFromTool  = "tool"  // a create_artifact call
	ArtifactFromBlock = "block" // an html or svg block of the answer
)

// ArtifactData is one version of an artifact. Versions of one artifact
// share its Key across the session's turns (a create_artifact call names
// it; the blocks of an answer take their kind, "html" or "svg"), and are
// numbered in the order they were made.
type ArtifactData struct {
	Key     string `json:"key"`
	Title   string `json:"title"`
	Kind    string `json:"kind"` // ArtifactHTML or ArtifactSVG
	Content string `json:"content"`
	Source  string `json:"source"`            // ArtifactFromTool or ArtifactFromBlock
	CallID  string `json:"call_id,omitempty"` // the create_artifact call
}

func (ArtifactData) EventType() EventType { return EventArtifact }

// CodeRunData is one run of a run_code script. Output is what it printed
// (cut at the output limit), Value the repr of what it returned, Chart a
// Vega-Lite spec it returned (drawn as a chart event too). Error is set
// when the script failed or hit a limit.
type CodeRunData struct {
	CallID     string          `json:"call_id,omitempty"`
	Code       string          `json:"code"`
	Output     string          `json:"output"`
	Value      string          `json:"value,omitempty"`
	Chart      json.RawMessage `json:"chart,omitempty"`
	Error      *CodeError      `json:"error,omitempty"`
	Steps      int64           `json:"steps"`
	DurationMS int64           `json:"duration_ms"`
}

func (CodeRunData) EventType() EventType { return EventCodeRun }

// CodeError is why a run_code script stopped: Limit names the limit it hit
// ("steps", "memory", "output", "time") and is empty for an error of the
// script itself, which has its line and column (from 1; 0 when unknown).
type CodeError struct {
	Message string `json:"message"`
	Limit   string `json:"limit,omitempty"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
}

// SourcesData is what a tool (search_knowledge, fetch_url) gave the model
// to cite, each under the number the answer cites it by ([n]). The event
// is the turn's record of them: the UI links citations to it, the export
// carries it, and a replay emits it again from the recorded result.
type SourcesData struct {
	CallID  string   `json:"call_id,omitempty"`
	Sources []Source `json:"sources"`
}

func (SourcesData) EventType() EventType { return EventSources }

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

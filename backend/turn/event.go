package turn

import (
	"encoding/json"
	"time"
)

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
	EventChart             EventType = "chart"
	EventStageStart        EventType = "stage_start"
	EventStageEnd          EventType = "stage_end"
	EventError             EventType = "error"
	EventFinalAnswer       EventType = "final_answer"
	EventCancelled         EventType = "cancelled"
	EventTurnCompleted     EventType = "turn_completed"
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
	EventChart:             {PhaseThinking, false},
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

// Event is the one envelope for everything a turn reports.
type Event struct {
	ID         string          `json:"id"`
	SessionID  string          `json:"session_id"`
	TurnID     string          `json:"turn_id"`
	StageID    string          `json:"stage_id"`
	Seq        int64           `json:"seq"`
	ParentID   string          `json:"parent_id"`
	At         Time            `json:"at"`
	Type       EventType       `json:"type"`
	Phase      Phase           `json:"phase"`
	Checkpoint bool            `json:"checkpoint"`
	Data       json.RawMessage `json:"data"`

	// text is a token's or reasoning event's text as the Emitter was given
	// it, kept beside its encoding in Data so that whoever merges streamed
	// text in this process (the app's Coalescer) need not decode Data again.
	// It is no part of the event's JSON: an event read back from the
	// database or a file lacks it. Read it through StreamedText.
	text string
}

// StreamedText returns the text of a token or reasoning event, and "" for
// any other. An event from an Emitter carries it typed; one read back is
// decoded from Data, to the same string.
func (e *Event) StreamedText() string {
	if e.text != "" || !Streamed(e.Type) {
		return e.text
	}
	var d TokenData
	_ = json.Unmarshal(e.Data, &d)
	return d.Text
}

// SetStreamedText sets the text of a token or reasoning event, typed and
// encoded in Data: what a merged run of them ends with.
func (e *Event) SetStreamedText(text string) {
	e.Data = TextData(text)
	e.text = validText(text)
}

// Streamed reports whether events of type t are streamed text, whose data
// is {"text": ...}: token and reasoning. A UI merges consecutive ones.
func Streamed(t EventType) bool {
	return t == EventToken || t == EventReasoning
}

// Time marshals as RFC 3339 in UTC with milliseconds.
type Time struct{ time.Time }

const timeLayout = "2006-01-02T15:04:05.000Z07:00"

func (t Time) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, len(timeLayout)+2)
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, timeLayout)
	return append(b, '"'), nil
}

func (t *Time) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	p, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return err
	}
	t.Time = p
	return nil
}

// PlanStep is one item of the agent's checklist.
type PlanStep struct {
	Title  string `json:"title"`
	Status string `json:"status"` // pending, running, done, error
}

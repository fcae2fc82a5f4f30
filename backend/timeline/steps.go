package timeline

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentdeck/agentdeck/backend/turn"
)

// StepKind is what a step is.
type StepKind string

// The kinds of step.
const (
	KindStart StepKind = "start"
	KindStage StepKind = "stage"
	KindCall  StepKind = "call"
	KindTool  StepKind = "tool"
)

// StartID is the id of a turn's first step.
const StartID = "start"

// Step is one point of a stored turn a re-run may start from.
type TimelineStep struct {
	// ID is stable for as long as the turn is stored: "start", "stage2",
	// "call3", "tool1".
	ID   string   `json:"id"`
	Kind StepKind `json:"kind"`
	// N is the step's number among steps of its kind, from 1 (0 for start).
	N int `json:"n"`
	// Seq is the event the step is (0 for start); EventID its id.
	Seq     int64  `json:"seq"`
	EventID string `json:"event_id,omitempty"`
	At      string `json:"at,omitempty"`
	// StageID, Stage and Agent name the stage the step belongs to ("" in
	// a turn without stages).
	StageID string `json:"stage_id,omitempty"`
	Stage   string `json:"stage,omitempty"`
	Agent   string `json:"agent,omitempty"`
	// RecordedCalls is how many recorded model calls came before the step:
	// a re-run from it serves that many calls from the recordings. For a
	// tool step it includes the call that asked for the tool.
	RecordedCalls int `json:"recorded_calls"`
	// Tools is how many tool results came before the step.
	Tools int `json:"tools"`
	// Recorded says a call step has a recording (a re-run past it is
	// served or replayed); false for a call that failed or ran with
	// recording off.
	Recorded bool `json:"recorded,omitempty"`
	// Tool steps: the tool, the model's call id, and whether it errored.
	Tool   string `json:"tool,omitempty"`
	CallID string `json:"call_id,omitempty"`
	Error  bool   `json:"error,omitempty"`
	// Live marks a step of a re-run that ran live (after its live_from
	// event); steps before it came from the original's recordings.
	Live bool `json:"live,omitempty"`
}

// Label is the step as a person reads it: "Model call 3 (critic)".
func (s TimelineStep) Label() string {
	where := ""
	if s.Stage != "" {
		where = " (" + s.Stage + ")"
	}
	switch s.Kind {
	case KindStage:
		return fmt.Sprintf("Stage %d%s", s.N, where)
	case KindCall:
		return fmt.Sprintf("Model call %d%s", s.N, where)
	case KindTool:
		return fmt.Sprintf("Tool result %d: %s%s", s.N, s.Tool, where)
	default:
		return "Start of the turn"
	}
}

// Steps lists a turn's steps from its event log (in seq order), the
// start first.
func Steps(events []turn.Event) []TimelineStep {
	steps := []TimelineStep{{ID: StartID, Kind: KindStart}}
	var stage turn.StageStartData
	var stageID string
	recorded, tools, stages, calls := 0, 0, 0, 0
	call := -1 // the call under way (its index): think_start seen, think_end not yet
	live := false
	for i := range events {
		ev := &events[i]
		at := ev.At.Format("2006-01-02T15:04:05.000Z07:00")
		base := TimelineStep{Seq: ev.Seq, EventID: ev.ID, At: at, StageID: ev.StageID, Stage: stage.Stage, Agent: stage.Agent, RecordedCalls: recorded, Tools: tools, Live: live}
		if ev.StageID != stageID {
			base.Stage, base.Agent = "", ""
		}
		switch ev.Type {
		case turn.EventStageStart:
			_ = json.Unmarshal(ev.Data, &stage)
			stageID = ev.StageID
			stages++
			s := base
			s.ID, s.Kind, s.N, s.Stage, s.Agent = "stage"+strconv.Itoa(stages), KindStage, stages, stage.Stage, stage.Agent
			steps = append(steps, s)
		case turn.EventThinkStart:
			calls++
			s := base
			s.ID, s.Kind, s.N = "call"+strconv.Itoa(calls), KindCall, calls
			steps = append(steps, s)
			call = len(steps) - 1
		case turn.EventThinkEnd:
			var d turn.ThinkEndData
			_ = json.Unmarshal(ev.Data, &d)
			// Before issue 45 think_end did not say; such a call answered
			// when its stage counted it, which the events cannot tell,
			// so it is taken as recorded.
			if d.Capture != "" || !hasCapture(ev.Data) {
				recorded++
				if call >= 0 {
					steps[call].Recorded = true
				}
			}
			call = -1
		case turn.EventContextCompressed:
			var d turn.CompressedData
			_ = json.Unmarshal(ev.Data, &d)
			if d.Summarized {
				recorded++
			}
		case turn.EventToolResult, turn.EventToolError:
			tools++
			var d struct {
				CallID string `json:"call_id"`
				Name   string `json:"name"`
			}
			_ = json.Unmarshal(ev.Data, &d)
			s := base
			s.ID, s.Kind, s.N, s.Tool, s.CallID, s.Error = "tool"+strconv.Itoa(tools), KindTool, tools, d.Name, d.CallID, ev.Type == turn.EventToolError
			steps = append(steps, s)
		case turn.EventLiveFrom:
			// The first live call's live_from comes after its
			// think_start: that call is live too.
			live = true
			if call >= 0 {
				steps[call].Live = true
			}
		}
	}
	return steps
}

// hasCapture reports whether a think_end's data has the capture key at
// all (an event from before issue 45 lacks it).
func hasCapture(data json.RawMessage) bool {
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(data, &keys)
	_, ok := keys["capture"]
	return ok
}

// Find returns the step with id, or ok false.
func Find(steps []TimelineStep, id string) (TimelineStep, bool) {
	id = strings.ToLower(strings.TrimSpace(id))
	for _, s := range steps {
		if s.ID == id {
			return s, true
		}
	}
	return TimelineStep{}, false
}

// ParseRef splits "TURN_ID:STEP" (the CLI's --from) into its parts.
func ParseRef(ref string) (turnID, step string, err error) {
	turnID, step, ok := strings.Cut(strings.TrimSpace(ref), ":")
	if !ok || turnID == "" || step == "" {
		return "", "", fmt.Errorf("%q is not TURN_ID:STEP (for example 7f3a…:call2; `agentdeck turns show TURN_ID` lists the steps)", ref)
	}
	return turnID, strings.ToLower(step), nil
}

package turn

import (
	"encoding/json"
	"time"
)

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

package turn

import (
	"encoding/json"
	"log/slog"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Sink receives events in seq order.
type Sink interface {
	Emit(Event) error
}

// SinkFunc adapts a function to Sink.
type SinkFunc func(Event) error

func (f SinkFunc) Emit(e Event) error { return f(e) }

// Draft is an event before the Emitter stamps it. Its type is its
// payload's: Draft{Data: TokenData{Text: t}} is a token event.
type Draft struct {
	Data     Payload
	StageID  string
	ParentID string
}

// Emitter stamps events of one turn and fans them out to sinks. It is safe
// for concurrent use; see the package doc for the ordering rules.
type Emitter struct {
	mu        sync.Mutex
	sessionID string
	turnID    string
	seq       int64
	sinks     []Sink
	log       *slog.Logger
	now       func() time.Time
	terminal  bool
	completed bool
}

// EmitterConfig configures NewEmitter.
type EmitterConfig struct {
	SessionID string
	TurnID    string
	// FirstSeq continues numbering after earlier events (seq = FirstSeq+1...).
	FirstSeq int64
	Sinks    []Sink
	Logger   *slog.Logger
	Now      func() time.Time
}

// NewEmitter returns an Emitter for one turn.
func NewEmitter(cfg EmitterConfig) *Emitter {
	e := &Emitter{sessionID: cfg.SessionID, turnID: cfg.TurnID, seq: cfg.FirstSeq, sinks: cfg.Sinks, log: cfg.Logger, now: cfg.Now}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	if e.now == nil {
		e.now = time.Now
	}
	return e
}

// Emit stamps d and delivers it to every sink. Events after turn_completed
// are dropped: nothing may follow the end of a turn. A draft without a
// payload has no type and is dropped too.
func (e *Emitter) Emit(d Draft) Event {
	if d.Data == nil {
		e.log.Error("event without a payload dropped", "turn", e.turnID)
		return Event{}
	}
	typ := d.Data.EventType()
	data, err := marshalData(d.Data)
	if err != nil {
		e.log.Error("event data does not marshal", "type", typ, "err", err)
		data = json.RawMessage(`{}`)
	}
	k := kinds[typ]
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.completed {
		e.log.Warn("event after turn_completed dropped", "type", typ, "turn", e.turnID)
		return Event{}
	}
	e.seq++
	id := ""
	if Streamed(typ) {
		id = StreamID(e.turnID, e.seq)
	} else {
		id = newID()
	}
	ev := Event{
		ID:         id,
		SessionID:  e.sessionID,
		TurnID:     e.turnID,
		StageID:    d.StageID,
		Seq:        e.seq,
		ParentID:   d.ParentID,
		At:         Time{e.now()},
		Type:       typ,
		Phase:      k.phase,
		Checkpoint: k.checkpoint,
		Data:       data,
		text:       typedText(d.Data),
	}
	if IsTerminal(typ) {
		e.terminal = true
	}
	if typ == EventTurnCompleted {
		e.completed = true
	}
	for _, s := range e.sinks {
		if err := s.Emit(ev); err != nil {
			e.log.Error("event sink failed", "type", ev.Type, "seq", ev.Seq, "err", err)
		}
	}
	return ev
}

// SessionID is the session of the turn the emitter stamps.
func (e *Emitter) SessionID() string { return e.sessionID }

// TurnID is the turn the emitter stamps.
func (e *Emitter) TurnID() string { return e.turnID }

// hasTerminal reports whether a terminal event was emitted.
func (e *Emitter) hasTerminal() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.terminal
}

func marshalData(p Payload) (json.RawMessage, error) {
	switch d := p.(type) {
	case TokenData: // the hot path: one per streamed token
		return TextData(d.Text), nil
	case ReasoningData:
		return TextData(d.Text), nil
	}
	return json.Marshal(p)
}

// TextData is the data of a token or reasoning event, {"text": text},
// encoded as encoding/json encodes TokenData.
func TextData(text string) json.RawMessage {
	return AppendTextData(make([]byte, 0, len(text)+12), text)
}

// AppendTextData appends TextData(text) to b.
func AppendTextData(b []byte, text string) []byte {
	b = append(b, `{"text":`...)
	b = appendJSONString(b, text)
	return append(b, '}')
}

// StreamID is the id of the streamed (token or reasoning) event seq of a
// turn: the turn's id and the seq, unique as they are. Streamed events
// are most of a turn's events, and an id the store can derive is one it
// need not keep (store/eventrun.go); every other event has a UUIDv7.
func StreamID(turnID string, seq int64) string {
	return turnID + "." + strconv.FormatInt(seq, 10)
}

// typedText is the text an event keeps beside Data (see Event.text): a
// token's or reasoning's, when it is valid UTF-8. Invalid bytes are left to
// be decoded from Data, where encoding/json has made each one U+FFFD, so
// that StreamedText gives the same string either way.
func typedText(p Payload) string {
	switch d := p.(type) {
	case TokenData:
		return validText(d.Text)
	case ReasoningData:
		return validText(d.Text)
	}
	return ""
}

func validText(s string) string {
	if !utf8.ValidString(s) {
		return ""
	}
	return s
}

// appendJSONString appends s as a JSON string, escaping what JSON requires
// and <, >, & as encoding/json does.
func appendJSONString(b []byte, s string) []byte {
	simple := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c >= 0x80 {
			simple = false
			break
		}
	}
	if simple {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	enc, _ := json.Marshal(s)
	return append(b, enc...)
}

// newID returns a time-ordered unique id (UUIDv7), which keeps SQLite's
// primary-key index appends cheap.
func newID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}

// NewID returns a new time-ordered id for sessions, turns and stages.
func NewID() string { return newID() }

package turn_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

// streamedTexts are texts a model streams, with everything JSON escapes or
// encoding/json treats specially.
var streamedTexts = []struct{ name, text string }{
	{"plain", "Hello, world. "},
	{"quotes and backslashes", `say "hi" \ C:\dir`},
	{"html", "<b>a & b</b>"},
	{"control characters", "line\nnext\ttab\r\x00\x1f"},
	{"unicode", "naïve 漢字 🙂"},
	{"line separators", "a\u2028b\u2029c"},
	{"invalid utf-8", "bad \xff\xfe byte"},
	{"a split rune", "\xe6\xbc"},
}

// A streamed event's text is the same whether it is read typed, from the
// Emitter, or decoded, from the event read back from its JSON (as from the
// database); and the text does not change the event's JSON.
func TestStreamedTextTypedAndReadBackAgree(t *testing.T) {
	for _, typ := range []turn.EventType{turn.EventToken, turn.EventReasoning} {
		for _, tt := range streamedTexts {
			t.Run(string(typ)+"/"+tt.name, func(t *testing.T) {
				var data turn.Payload = turn.TokenData{Text: tt.text}
				if typ == turn.EventReasoning {
					data = turn.ReasoningData{Text: tt.text}
				}
				em := turn.NewEmitter(turn.EmitterConfig{SessionID: "s", TurnID: "t"})
				live := em.Emit(turn.Draft{Data: data})
				if live.Type != typ {
					t.Fatalf("type %s, want %s", live.Type, typ)
				}
				if want, _ := json.Marshal(data); !bytes.Equal(live.Data, want) {
					t.Errorf("data %s, encoding/json gives %s", live.Data, want)
				}
				read := turntest.ReadBack(t, live)
				a, errA := json.Marshal(live)
				b, errB := json.Marshal(read)
				if errA != nil || errB != nil || !bytes.Equal(a, b) {
					t.Errorf("the typed text shows in the JSON:\n%s\n%s (%v, %v)", a, b, errA, errB)
				}
				var decoded turn.TokenData
				if err := json.Unmarshal(live.Data, &decoded); err != nil {
					t.Fatal(err)
				}
				if got := live.StreamedText(); got != decoded.Text {
					t.Errorf("typed %q, data holds %q", got, decoded.Text)
				}
				if got := read.StreamedText(); got != decoded.Text {
					t.Errorf("read back %q, data holds %q", got, decoded.Text)
				}
			})
		}
	}
}

// Only token and reasoning events have a streamed text, though others hold
// a text in the same shape.
func TestStreamedTextOfOtherEventsIsEmpty(t *testing.T) {
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: "s", TurnID: "t"})
	for _, d := range []turn.Draft{
		{Data: turn.FinalAnswerData{Text: "answer"}},
		{Data: turn.RevisionData{Text: "draft"}},
	} {
		e := em.Emit(d)
		if got := e.StreamedText(); got != "" {
			t.Errorf("%s %s: streamed text %q", e.Type, e.Data, got)
		}
		if got := turntest.ReadBack(t, e); got.StreamedText() != "" {
			t.Errorf("%s %s read back: streamed text %q", e.Type, e.Data, got.StreamedText())
		}
	}
}

// SetStreamedText sets the typed text and the data together, encoded as
// encoding/json encodes it.
func TestSetStreamedText(t *testing.T) {
	for _, tt := range streamedTexts {
		t.Run(tt.name, func(t *testing.T) {
			e := turn.Event{Type: turn.EventToken, Data: json.RawMessage(`{"text":"old"}`)}
			e.SetStreamedText(tt.text)
			want, _ := json.Marshal(turn.TokenData{Text: tt.text})
			if !bytes.Equal(e.Data, want) {
				t.Errorf("data %s, want %s", e.Data, want)
			}
			var decoded turn.TokenData
			_ = json.Unmarshal(want, &decoded)
			if got := e.StreamedText(); got != decoded.Text {
				t.Errorf("streamed text %q, want %q", got, decoded.Text)
			}
		})
	}
}

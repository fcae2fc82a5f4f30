package app

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/turn"
)

type batches struct {
	mu  sync.Mutex
	all [][]Delivered
}

func (b *batches) out(d []Delivered) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.all = append(b.all, append([]Delivered(nil), d...))
}

func (b *batches) flat() []Delivered {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []Delivered
	for _, x := range b.all {
		out = append(out, x...)
	}
	return out
}

func TestCoalescerMergesABurstInOrderLosingNothing(t *testing.T) {
	var got batches
	c := NewCoalescer(got.out, 16*time.Millisecond)
	rec := []turn.Event{}
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: "s", TurnID: "t", Sinks: []turn.Sink{c, turn.SinkFunc(func(e turn.Event) error {
		rec = append(rec, e)
		return nil
	})}})
	var want strings.Builder
	em.Emit(turn.Draft{Type: turn.EventThinkStart})
	for i := 0; i < 5000; i++ {
		w := "tok" + string(rune('a'+i%26)) + " "
		want.WriteString(w)
		em.Emit(turn.Draft{Type: turn.EventToken, Data: turn.TokenData{Text: w}})
		if i == 2500 {
			em.Emit(turn.Draft{Type: turn.EventToolCall, Data: turn.ToolCallData{CallID: "c", Name: "x"}})
		}
	}
	em.Emit(turn.Draft{Type: turn.EventThinkEnd})
	c.Flush()

	d := got.flat()
	// Every seq is covered exactly once, in order.
	next := int64(1)
	var text strings.Builder
	for _, e := range d {
		if e.FirstSeq != next {
			t.Fatalf("gap or reorder: expected seq %d, got %d..%d (%s)", next, e.FirstSeq, e.Seq, e.Type)
		}
		next = e.Seq + 1
		if e.Type == turn.EventToken {
			var td turn.TokenData
			json.Unmarshal(e.Data, &td)
			text.WriteString(td.Text)
		}
	}
	if next != int64(len(rec))+1 {
		t.Fatalf("delivered up to seq %d of %d", next-1, len(rec))
	}
	if text.String() != want.String() {
		t.Fatal("token text lost or reordered")
	}
	emits := len(got.all)
	t.Logf("5,000 tokens + 3 other events delivered in %d emits (%d items)", emits, len(d))
	if emits > 20 {
		t.Fatalf("%d emits for a burst: tokens were not coalesced", emits)
	}
}

func TestCoalescerFlushesNonTokensAtOnce(t *testing.T) {
	var got batches
	c := NewCoalescer(got.out, time.Hour) // tokens would wait forever
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: "s", TurnID: "t", Sinks: []turn.Sink{c}})
	em.Emit(turn.Draft{Type: turn.EventToken, Data: turn.TokenData{Text: "a"}})
	em.Emit(turn.Draft{Type: turn.EventToolCall, Data: turn.ToolCallData{CallID: "c"}})
	d := got.flat()
	if len(d) != 2 || d[0].Type != turn.EventToken || d[1].Type != turn.EventToolCall {
		t.Fatalf("a non-token event must flush the held tokens and itself, in order: %+v", d)
	}
}

func TestCoalescerDoesNotMergeAcrossStages(t *testing.T) {
	var got batches
	c := NewCoalescer(got.out, time.Hour)
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: "s", TurnID: "t", Sinks: []turn.Sink{c}})
	em.Emit(turn.Draft{Type: turn.EventToken, StageID: "a", Data: turn.TokenData{Text: "1"}})
	em.Emit(turn.Draft{Type: turn.EventToken, StageID: "b", Data: turn.TokenData{Text: "2"}})
	c.Flush()
	if d := got.flat(); len(d) != 2 || d[1].StageID != "b" {
		t.Fatalf("%+v", d)
	}
}

// Reasoning merges like tokens, but never with them: a run of reasoning
// then a run of tokens arrive as two events, each with its own text, and
// every seq is covered once.
func TestCoalescerMergesReasoningApartFromTokens(t *testing.T) {
	var got batches
	c := NewCoalescer(got.out, time.Hour) // only the explicit Flush delivers
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: "s", TurnID: "t", Sinks: []turn.Sink{c}})
	for _, w := range []string{"Let ", "me ", "think."} {
		em.Emit(turn.Draft{Type: turn.EventReasoning, Data: turn.ReasoningData{Text: w}})
	}
	for _, w := range []string{"The ", "answer."} {
		em.Emit(turn.Draft{Type: turn.EventToken, Data: turn.TokenData{Text: w}})
	}
	c.Flush()
	d := got.flat()
	if len(d) != 2 {
		t.Fatalf("%d events delivered, want 2: %+v", len(d), d)
	}
	want := []struct {
		typ         turn.EventType
		first, last int64
		text        string
	}{{turn.EventReasoning, 1, 3, "Let me think."}, {turn.EventToken, 4, 5, "The answer."}}
	for i, w := range want {
		var data turn.TokenData
		json.Unmarshal(d[i].Data, &data)
		if d[i].Type != w.typ || d[i].FirstSeq != w.first || d[i].Seq != w.last || data.Text != w.text {
			t.Errorf("event %d: %s seq %d..%d %q, want %s %d..%d %q", i, d[i].Type, d[i].FirstSeq, d[i].Seq, data.Text, w.typ, w.first, w.last, w.text)
		}
	}
}

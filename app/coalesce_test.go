package app

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
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
	t.Parallel()
	var got batches
	c := NewCoalescer(got.out, 16*time.Millisecond)
	rec := []turn.Event{}
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: "s", TurnID: "t", Sinks: []turn.Sink{c, turn.SinkFunc(func(e turn.Event) error {
		rec = append(rec, e)
		return nil
	})}})
	var want strings.Builder
	em.Emit(turn.Draft{Data: turn.ThinkStartData{}})
	for i := 0; i < 5000; i++ {
		w := "tok" + string(rune('a'+i%26)) + " "
		want.WriteString(w)
		em.Emit(turn.Draft{Data: turn.TokenData{Text: w}})
		if i == 2500 {
			em.Emit(turn.Draft{Data: turn.ToolCallData{CallID: "c", Name: "x"}})
		}
	}
	em.Emit(turn.Draft{Data: turn.ThinkEndData{}})
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
	t.Parallel()
	var got batches
	c := NewCoalescer(got.out, time.Hour) // tokens would wait forever
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: "s", TurnID: "t", Sinks: []turn.Sink{c}})
	em.Emit(turn.Draft{Data: turn.TokenData{Text: "a"}})
	em.Emit(turn.Draft{Data: turn.ToolCallData{CallID: "c"}})
	d := got.flat()
	if len(d) != 2 || d[0].Type != turn.EventToken || d[1].Type != turn.EventToolCall {
		t.Fatalf("a non-token event must flush the held tokens and itself, in order: %+v", d)
	}
}

func TestCoalescerDoesNotMergeAcrossStages(t *testing.T) {
	t.Parallel()
	var got batches
	c := NewCoalescer(got.out, time.Hour)
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: "s", TurnID: "t", Sinks: []turn.Sink{c}})
	em.Emit(turn.Draft{StageID: "a", Data: turn.TokenData{Text: "1"}})
	em.Emit(turn.Draft{StageID: "b", Data: turn.TokenData{Text: "2"}})
	c.Flush()
	if d := got.flat(); len(d) != 2 || d[1].StageID != "b" {
		t.Fatalf("%+v", d)
	}
}

// Reasoning merges like tokens, but never with them: a run of reasoning
// then a run of tokens arrive as two events, each with its own text, and
// every seq is covered once.
func TestCoalescerMergesReasoningApartFromTokens(t *testing.T) {
	t.Parallel()
	var got batches
	c := NewCoalescer(got.out, time.Hour) // only the explicit Flush delivers
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: "s", TurnID: "t", Sinks: []turn.Sink{c}})
	for _, w := range []string{"Let ", "me ", "think."} {
		em.Emit(turn.Draft{Data: turn.ReasoningData{Text: w}})
	}
	for _, w := range []string{"The ", "answer."} {
		em.Emit(turn.Draft{Data: turn.TokenData{Text: w}})
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

// The window gets the same batches whether the Coalescer reads each token's
// text typed, as the Emitter made it, or decodes it from the data of an
// event read back (as from the database), or a mix: exactly the merge of
// decoding every token and encoding each run with encoding/json.
func TestCoalescerTypedAndReadBackDeliverTheSame(t *testing.T) {
	t.Parallel()
	type step struct {
		turn string // "t" or "u": two turns streaming at once
		d    turn.Draft
	}
	tok := func(text string) step {
		return step{"t", turn.Draft{Data: turn.TokenData{Text: text}}}
	}
	reason := func(text string) step {
		return step{"t", turn.Draft{Data: turn.ReasoningData{Text: text}}}
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"plain tokens", []step{tok("The "), tok("answer "), tok("is "), tok("42.")}},
		{"escaped text", []step{tok(`say "hi" \ `), tok("<b>a & b</b>"), tok("line\nnext\t\x00"), tok("naïve 漢字 🙂"), tok("a\u2028b\u2029c")}},
		{"invalid utf-8 and a split rune", []step{tok("ok "), tok("bad \xff "), tok("\xe6\xbc"), tok("\xa2"), tok(" end")}},
		{"reasoning then answer", []step{reason("Let "), reason("me "), reason("think."), tok("The "), tok("answer.")}},
		{"across stages", []step{
			{"t", turn.Draft{StageID: "a", Data: turn.TokenData{Text: "1"}}},
			{"t", turn.Draft{StageID: "a", Data: turn.TokenData{Text: "2"}}},
			{"t", turn.Draft{StageID: "b", Data: turn.TokenData{Text: "3"}}},
		}},
		{"around other events", []step{
			{"t", turn.Draft{Data: turn.ThinkStartData{}}}, tok("a"), tok("b"),
			{"t", turn.Draft{Data: turn.ToolCallData{CallID: "c", Name: "x", Args: json.RawMessage(`{}`)}}},
			tok("c"), {"t", turn.Draft{Data: turn.ThinkEndData{}}},
		}},
		{"two turns", []step{tok("t1 "), {"u", turn.Draft{Data: turn.TokenData{Text: "u1 "}}}, tok("t2 "), tok("t3")}},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			var live []turn.Event
			rec := turn.SinkFunc(func(e turn.Event) error { live = append(live, e); return nil })
			ems := map[string]*turn.Emitter{}
			for _, id := range []string{"t", "u"} {
				ems[id] = turn.NewEmitter(turn.EmitterConfig{SessionID: "s", TurnID: id, Sinks: []turn.Sink{rec}})
			}
			for _, s := range tt.steps {
				ems[s.turn].Emit(s.d)
			}
			read := make([]turn.Event, len(live))
			mixed := make([]turn.Event, len(live))
			for i, e := range live {
				read[i] = turntest.ReadBack(t, e)
				mixed[i] = e
				if i%2 == 1 {
					mixed[i] = read[i]
				}
			}
			want := mustJSON(t, mergeByDecoding(read))
			for name, evs := range map[string][]turn.Event{"typed": live, "read back": read, "mixed": mixed} {
				var got batches
				c := NewCoalescer(got.out, time.Hour) // only the events and Flush deliver
				for _, e := range evs {
					_ = c.Emit(e)
				}
				c.Flush()
				if g := mustJSON(t, got.flat()); !bytes.Equal(g, want) {
					t.Errorf("%s:\n got %s\nwant %s", name, g, want)
				}
			}
		})
	}
}

// Merging a live token into a run allocates nothing: its text is not
// decoded. A read-back token is, which shows the count can see a decode.
func TestCoalescerDoesNotDecodeLiveTokens(t *testing.T) {
	// Not parallel: testing.AllocsPerRun refuses parallel tests, and tests beside it would allocate.
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: "s", TurnID: "t"})
	live := em.Emit(turn.Draft{Data: turn.TokenData{Text: "tok "}})
	for _, tt := range []struct {
		name    string
		e       turn.Event
		decodes bool
	}{{"live", live, false}, {"read back", turntest.ReadBack(t, live), true}} {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCoalescer(func([]Delivered) {}, time.Hour)
			_ = c.Emit(tt.e) // opens the run
			allocs := testing.AllocsPerRun(1000, func() { _ = c.Emit(tt.e) })
			c.Flush()
			if decodes := allocs >= 1; decodes != tt.decodes {
				t.Fatalf("%v allocations per merged token", allocs)
			}
		})
	}
}

// mergeByDecoding is what the Coalescer delivers for evs, built the plain
// way: each streamed text decoded from its data, each run's text encoded by
// encoding/json.
func mergeByDecoding(evs []turn.Event) []Delivered {
	var out []Delivered
	var text strings.Builder
	seal := func() {
		if n := len(out); n > 0 && turn.Streamed(out[n-1].Type) {
			out[n-1].Data, _ = json.Marshal(turn.TokenData{Text: text.String()})
		}
		text.Reset()
	}
	for _, e := range evs {
		var d turn.TokenData
		_ = json.Unmarshal(e.Data, &d)
		if n := len(out); turn.Streamed(e.Type) && n > 0 && out[n-1].Type == e.Type && out[n-1].TurnID == e.TurnID && out[n-1].StageID == e.StageID {
			text.WriteString(d.Text)
			out[n-1].Seq, out[n-1].At = e.Seq, e.At
			continue
		}
		seal()
		out = append(out, Delivered{Event: e, FirstSeq: e.Seq})
		if turn.Streamed(e.Type) {
			text.WriteString(d.Text)
		}
	}
	seal()
	return out
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

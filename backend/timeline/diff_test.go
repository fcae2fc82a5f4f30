package timeline

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// script builds a turn's events as the agent emits them: a model call
// streams its text in two tokens; a tool result or error; a summary for
// compression; live_from.
type script struct {
	events []turn.Event
	tools  int
}

func (s *script) add(stage string, typ turn.EventType, data any) {
	raw, _ := json.Marshal(data)
	s.events = append(s.events, turn.Event{ID: string(typ), Seq: int64(len(s.events) + 1), StageID: stage, Type: typ, Data: raw,
		At: turn.Time{Time: time.Date(2026, 12, 7, 12, 0, len(s.events), 0, time.UTC)}})
}

func (s *script) call(stage, text string) *script { return s.callAs(stage, text, false) }

// liveCall is the first live call of a re-run: live_from comes inside it,
// when the client is asked for the first answer not from a recording.
func (s *script) liveCall(stage, text string) *script { return s.callAs(stage, text, true) }

func (s *script) callAs(stage, text string, live bool) *script {
	s.add(stage, turn.EventThinkStart, turn.ThinkStartData{})
	if live {
		s.live()
	}
	half := len(text) / 2
	for half > 0 && half < len(text) && text[half]&0xC0 == 0x80 {
		half--
	}
	s.add(stage, turn.EventToken, turn.TokenData{Text: text[:half]})
	s.add(stage, turn.EventToken, turn.TokenData{Text: text[half:]})
	s.add(stage, turn.EventThinkEnd, turn.ThinkEndData{PromptTokens: 1, CompletionTokens: 1, Capture: "recorded"})
	return s
}

func (s *script) tool(stage, name, out string) *script {
	s.tools++
	s.add(stage, turn.EventToolResult, turn.ToolResultData{CallID: "c" + string(rune('0'+s.tools)), Name: name, Output: out, DurationMS: 7})
	return s
}

func (s *script) toolErr(stage, name, msg string) *script {
	s.tools++
	s.add(stage, turn.EventToolError, turn.ToolErrorData{CallID: "c" + string(rune('0'+s.tools)), Name: name, Error: msg, DurationMS: 3})
	return s
}

func (s *script) live() *script {
	s.add("", turn.EventLiveFrom, turn.LiveFromData{})
	return s
}

func (s *script) compress(stage string) *script {
	s.add(stage, turn.EventContextCompressed, turn.CompressedData{Summarized: true})
	return s
}

func usd(v float64) *float64 { return &v }

// diag is a model call's diagnostics: tokens in and out, ms, and a price.
func diag(in, out int, ms int64, cost *float64) llm.CallDiagnostics {
	d := llm.CallDiagnostics{Usage: llm.Usage{InputTokens: in, OutputTokens: out}, Duration: time.Duration(ms) * time.Millisecond, OK: true}
	if cost != nil {
		d.Cost = &llm.Cost{USD: *cost}
	}
	return d
}

func stage(id string, calls ...llm.CallDiagnostics) turn.StageResult {
	return turn.StageResult{ID: id, Diagnostics: turn.StageDiagnostics{ModelCalls: calls}}
}

// rowsOf is a row per line: "kind A-step B-step same".
func rowsOf(d TurnDiff) string {
	var b strings.Builder
	for _, r := range d.Rows {
		a, bb := "-", "-"
		if r.A != nil {
			a = r.A.StepID
		}
		if r.B != nil {
			bb = r.B.StepID
		}
		same := "differs"
		if r.Same {
			same = "same"
		}
		b.WriteString(string(r.Kind) + " " + a + " " + bb + " " + same + "\n")
	}
	return b.String()
}

func TestCompare(t *testing.T) {
	chat := func() *script {
		return new(script).call("", "I will read it.").tool("", "read", "hello").call("", "The file says hello.")
	}
	tests := []struct {
		name string
		a, b Turn
		from string
		rows string
		// check looks at what rows cannot show.
		check func(t *testing.T, d TurnDiff)
	}{{
		name: "identical turns: every row the same",
		a:    Turn{ID: "a", Events: chat().events},
		b:    Turn{ID: "b", Events: chat().events},
		from: "start",
		rows: "call call1 call1 same\ntool tool1 tool1 same\ncall call2 call2 same\n",
		check: func(t *testing.T, d TurnDiff) {
			for _, r := range d.Rows {
				if len(r.Ops) != 0 {
					t.Errorf("a same row has ops: %+v", r)
				}
			}
			if r := d.Rows[0]; r.A.Text != "I will read it." || r.A.Label != "Model call 1" {
				t.Errorf("call cell = %+v", r.A)
			}
		},
	}, {
		name: "an edited tool result: that row differs and so do the later ones",
		a:    Turn{ID: "a", Events: chat().events},
		b: Turn{ID: "b", FromTurnID: "a", FromStep: "tool1", FromEdit: "tool_result",
			Events: new(script).call("", "I will read it.").live().tool("", "read", "goodbye").call("", "The file says goodbye.").events},
		from: "tool1",
		rows: "tool tool1 tool1 differs\ncall call2 call2 differs\n",
		check: func(t *testing.T, d TurnDiff) {
			r := d.Rows[0]
			if !r.B.Edited || r.A.Edited {
				t.Errorf("edited: a %v b %v, want b only", r.A.Edited, r.B.Edited)
			}
			if r.B.Recorded {
				t.Error("the edited result is marked recorded")
			}
			want := []TextOp{{"delete", "hello"}, {"insert", "goodbye"}}
			if !slices.Equal(r.Ops, want) {
				t.Errorf("ops = %+v, want %+v", r.Ops, want)
			}
			if got := d.Rows[1].Ops; !slices.Equal(got, []TextOp{{"equal", "The file says "}, {"delete", "hello"}, {"insert", "goodbye"}, {"equal", "."}}) {
				t.Errorf("reply ops = %+v", got)
			}
			if d.A.Totals.Calls != 1 || d.A.Totals.Tools != 1 || d.B.Totals.Calls != 1 || d.B.Totals.Tools != 1 {
				t.Errorf("totals count steps before the from step: %+v %+v", d.A.Totals, d.B.Totals)
			}
		},
	}, {
		name: "an extra tool call leaves a gap row",
		a:    Turn{ID: "a", Events: chat().events},
		b: Turn{ID: "b", Events: new(script).call("", "I will read it.").tool("", "read", "hello").tool("", "write", "ok").
			call("", "The file says hello.").events},
		from: "start",
		rows: "call call1 call1 same\ntool tool1 tool1 same\ntool - tool2 differs\ncall call2 call2 same\n",
	}, {
		name: "a tool error's message is its text",
		a:    Turn{ID: "a", Events: new(script).call("", "x").tool("", "read", "hello").events},
		b:    Turn{ID: "b", Events: new(script).call("", "x").toolErr("", "read", "no such file").events},
		from: "start",
		rows: "call call1 call1 same\ntool tool1 tool1 differs\n",
		check: func(t *testing.T, d TurnDiff) {
			if d.Rows[1].B.Text != "no such file" || d.Rows[1].B.DurationMS != 3 {
				t.Errorf("error cell = %+v", d.Rows[1].B)
			}
		},
	}, {
		name: "a different tool is two gap rows, not a pair",
		a:    Turn{ID: "a", Events: new(script).call("", "x").tool("", "read", "hello").events},
		b:    Turn{ID: "b", Events: new(script).call("", "x").tool("", "search", "hello").events},
		from: "start",
		rows: "call call1 call1 same\ntool tool1 - differs\ntool - tool1 differs\n",
	}, {
		name: "costs, tokens and time come from the diagnostics and add up",
		a: Turn{ID: "a", Events: new(script).call("s1", "one").compress("s1").call("s1", "two").call("s2", "three").events,
			Stages: []turn.StageResult{stage("s1", diag(10, 2, 100, usd(0.01)), diag(50, 5, 40, usd(0.5)), diag(20, 3, 200, usd(0.02))), stage("s2", diag(30, 4, 300, nil))}},
		b:    Turn{ID: "b", Events: new(script).call("s1", "one").compress("s1").call("s1", "two").call("s2", "three").events},
		from: "start",
		rows: "call call1 call1 same\ncall call2 call2 same\ncall call3 call3 same\n",
		check: func(t *testing.T, d TurnDiff) {
			c := d.Rows[1].A // the summary for compression is skipped
			if c.InputTokens != 20 || c.OutputTokens != 3 || c.DurationMS != 200 || c.CostUSD == nil || *c.CostUSD != 0.02 {
				t.Errorf("call2 = %+v", c)
			}
			if c := d.Rows[2].A; c.CostUSD != nil || c.InputTokens != 30 {
				t.Errorf("call3 = %+v", c)
			}
			tot := d.A.Totals
			if tot.Calls != 3 || tot.InputTokens != 60 || tot.OutputTokens != 9 || tot.DurationMS != 600 || tot.CostUSD == nil || *tot.CostUSD != 0.03 {
				t.Errorf("totals = %+v (cost %v)", tot, tot.CostUSD)
			}
			// B has no diagnostics: tokens from think_end, no cost.
			if tb := d.B.Totals; tb.CostUSD != nil || tb.InputTokens != 3 {
				t.Errorf("b totals = %+v", tb)
			}
		},
	}, {
		name: "a chat turn's one stage answers for events with no stage",
		a:    Turn{ID: "a", Events: new(script).call("", "hi").events, Stages: []turn.StageResult{stage("a", diag(5, 6, 70, usd(0.001)))}},
		b:    Turn{ID: "b", Events: new(script).call("", "hi").events},
		from: "start",
		rows: "call call1 call1 same\n",
		check: func(t *testing.T, d TurnDiff) {
			if c := d.Rows[0].A; c.InputTokens != 5 || c.DurationMS != 70 {
				t.Errorf("call1 = %+v", c)
			}
		},
	}, {
		name: "parallel stages keep their own replies",
		a: func() Turn {
			s := new(script)
			s.add("p", turn.EventThinkStart, nil)
			s.add("q", turn.EventThinkStart, nil)
			s.add("p", turn.EventToken, turn.TokenData{Text: "from p"})
			s.add("q", turn.EventToken, turn.TokenData{Text: "from q"})
			s.add("q", turn.EventThinkEnd, turn.ThinkEndData{})
			s.add("p", turn.EventThinkEnd, turn.ThinkEndData{})
			return Turn{ID: "a", Events: s.events}
		}(),
		b:    Turn{ID: "b", Events: new(script).call("p", "from p").call("q", "from q").events},
		from: "start",
		rows: "call call1 call1 same\ncall call2 call2 same\n",
	}, {
		name: "a re-run's steps before live_from are recorded",
		a:    Turn{ID: "a", Events: chat().events},
		b: Turn{ID: "b", FromTurnID: "a", FromStep: "call2", FromEdit: "reply",
			Events: new(script).call("", "I will read it.").tool("", "read", "hello").liveCall("", "Typed.").events},
		from: "call2",
		rows: "call call2 call2 differs\n",
		check: func(t *testing.T, d TurnDiff) {
			// live_from comes inside the first live call: it is not recorded.
			if c := d.Rows[0].B; c.Recorded || !c.Edited {
				t.Errorf("call2 = %+v", c)
			}
		},
	}, {
		name: "recorded steps of a re-run compared from the start",
		a:    Turn{ID: "a", Events: chat().events},
		b: Turn{ID: "b", FromTurnID: "x", FromStep: "tool1",
			Events: new(script).call("", "I will read it.").tool("", "read", "hello").liveCall("", "Other.").events},
		from: "start",
		rows: "call call1 call1 same\ntool tool1 tool1 same\ncall call2 call2 differs\n",
		check: func(t *testing.T, d TurnDiff) {
			if !d.Rows[0].B.Recorded || !d.Rows[1].B.Recorded || d.Rows[2].B.Recorded || d.Rows[0].A.Recorded {
				t.Errorf("recorded marks wrong: %+v %+v %+v", d.Rows[0], d.Rows[1], d.Rows[2])
			}
			if d.Rows[1].B.Edited {
				t.Error("no edit was made, yet a step is marked edited")
			}
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Compare(tc.a, tc.b)
			if d.From != tc.from {
				t.Errorf("from = %q, want %q", d.From, tc.from)
			}
			if got := rowsOf(d); got != tc.rows {
				t.Fatalf("rows:\n%s\nwant:\n%s", got, tc.rows)
			}
			for _, r := range d.Rows {
				if r.A != nil && r.B != nil && !r.Same {
					if a, b := opsSide(r.Ops, "insert"), opsSide(r.Ops, "delete"); a != r.A.Text || b != r.B.Text {
						t.Errorf("ops do not rebuild the texts: %q %q from %+v", a, b, r.Ops)
					}
				}
			}
			if tc.check != nil {
				tc.check(t, d)
			}
		})
	}
}

func TestCompareNoEvents(t *testing.T) {
	d := Compare(Turn{ID: "a", Seq: 1, Model: "m"}, Turn{ID: "b", Seq: 2})
	if d.Rows == nil || len(d.Rows) != 0 || d.A.Seq != 1 || d.A.Model != "m" || d.A.Totals.CostUSD != nil {
		t.Errorf("diff = %+v", d)
	}
}

func TestWordDiff(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want []TextOp
	}{
		{"equal", "same text", "same text", []TextOp{{"equal", "same text"}}},
		{"empty to text", "", "new", []TextOp{{"insert", "new"}}},
		{"text to empty", "old", "", []TextOp{{"delete", "old"}}},
		{"one word", "the cat sat", "the dog sat", []TextOp{{"equal", "the "}, {"delete", "cat"}, {"insert", "dog"}, {"equal", " sat"}}},
		{"changes parted by a space are one", "the cat sat", "a dog sat", []TextOp{{"delete", "the cat"}, {"insert", "a dog"}, {"equal", " sat"}}},
		{"whole words, not letters", "cart", "card", []TextOp{{"delete", "cart"}, {"insert", "card"}}},
		{"accents", "héllo wörld", "héllo wørld", []TextOp{{"equal", "héllo "}, {"delete", "wörld"}, {"insert", "wørld"}}},
		{"ideographs one by one", "你好世界", "你们好世界", []TextOp{{"equal", "你"}, {"insert", "们"}, {"equal", "好世界"}}},
		{"emoji", "ok 👍 done", "ok 👎 done", []TextOp{{"equal", "ok "}, {"delete", "👍"}, {"insert", "👎"}, {"equal", " done"}}},
		{"punctuation", "yes.", "yes!", []TextOp{{"equal", "yes"}, {"delete", "."}, {"insert", "!"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := WordDiff(tc.a, tc.b)
			if !slices.Equal(got, tc.want) {
				t.Errorf("WordDiff(%q, %q) = %+v, want %+v", tc.a, tc.b, got, tc.want)
			}
		})
	}
}

// TestWordDiffManyWords has more distinct words than there are runes
// below the surrogates, which the word codes skip.
func TestWordDiffManyWords(t *testing.T) {
	var a, b strings.Builder
	for i := range 0xD800 + 100 {
		a.WriteString(strconv.Itoa(i) + " ")
		if i%1000 != 0 {
			b.WriteString(strconv.Itoa(i) + " ")
		}
	}
	ops := WordDiff(a.String(), b.String())
	if opsSide(ops, "insert") != a.String() || opsSide(ops, "delete") != b.String() {
		t.Fatal("ops do not rebuild the texts")
	}
}

// opsSide rebuilds one side of a diff: A leaves out the inserts, B the deletes.
func opsSide(ops []TextOp, leaveOut string) string {
	var b strings.Builder
	for _, o := range ops {
		if o.Op != leaveOut {
			b.WriteString(o.Text)
		}
	}
	return b.String()
}

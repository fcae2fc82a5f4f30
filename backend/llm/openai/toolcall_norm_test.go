package openai

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// TestAddNormalizesToolCalls pins each rule of add's tool-call
// normalization (see assemble.go) on hand-made deltas. In the expected
// deltas and calls, an id "$n" stands for an id the client generated: the
// same n must be the same id, and different n different ids.
func TestAddNormalizesToolCalls(t *testing.T) {
	type d = llm.ToolCallDelta
	tests := []struct {
		name  string
		in    [][]d
		out   [][]d // nil: in, unchanged
		calls []llm.ToolCall
	}{
		{
			name: "openai shape, indexes out of order",
			in: [][]d{
				{{Index: 1, ID: "b", Name: "g", Arguments: ""}},
				{{Index: 0, ID: "a", Name: "f", Arguments: `{"x":`}},
				{{Index: 1, Arguments: "{}"}},
				{{Index: 0, Arguments: "1}"}},
			},
			calls: []llm.ToolCall{{ID: "a", Name: "f", Arguments: `{"x":1}`}, {ID: "b", Name: "g", Arguments: "{}"}},
		},
		{
			name: "openai shape, both calls in every delta",
			in: [][]d{
				{{Index: 0, ID: "a", Name: "f"}, {Index: 1, ID: "b", Name: "f"}},
				{{Index: 0, Arguments: "{}"}, {Index: 1, Arguments: "{}"}},
			},
			calls: []llm.ToolCall{{ID: "a", Name: "f", Arguments: "{}"}, {ID: "b", Name: "f", Arguments: "{}"}},
		},
		{
			name: "server repeats the id in every fragment",
			in: [][]d{
				{{Index: 0, ID: "a", Name: "f", Arguments: "{"}},
				{{Index: 0, ID: "a", Arguments: "}"}},
			},
			calls: []llm.ToolCall{{ID: "a", Name: "f", Arguments: "{}"}},
		},
		{
			name: "server repeats the name in every fragment",
			in: [][]d{
				{{Index: 0, ID: "a", Name: "f", Arguments: `{"x":`}},
				{{Index: 0, Name: "f", Arguments: "1}"}},
			},
			out: [][]d{
				{{Index: 0, ID: "a", Name: "f", Arguments: `{"x":`}},
				{{Index: 0, Arguments: "1}"}},
			},
			calls: []llm.ToolCall{{ID: "a", Name: "f", Arguments: `{"x":1}`}},
		},
		{
			name: "a new id at a used index is a new call",
			in: [][]d{
				{{Index: 0, ID: "a", Name: "f", Arguments: "{"}},
				{{Index: 0, ID: "b", Name: "g"}},
				{{Index: 0, Arguments: "}"}},
			},
			out: [][]d{
				{{Index: 0, ID: "a", Name: "f", Arguments: "{"}},
				{{Index: 1, ID: "b", Name: "g"}},
				{{Index: 1, Arguments: "}"}},
			},
			calls: []llm.ToolCall{{ID: "a", Name: "f", Arguments: "{"}, {ID: "b", Name: "g", Arguments: "}"}},
		},
		{
			name: "a name after complete arguments is a new call",
			in: [][]d{
				{{Index: 0, Name: "f", Arguments: "{"}},
				{{Index: 0, Arguments: "}"}},
				{{Index: 0, Name: "f", Arguments: `{"a"`}},
				{{Index: 0, Arguments: ":1}"}},
			},
			out: [][]d{
				{{Index: 0, ID: "$1", Name: "f", Arguments: "{"}},
				{{Index: 0, Arguments: "}"}},
				{{Index: 1, ID: "$2", Name: "f", Arguments: `{"a"`}},
				{{Index: 1, Arguments: ":1}"}},
			},
			calls: []llm.ToolCall{{ID: "$1", Name: "f", Arguments: "{}"}, {ID: "$2", Name: "f", Arguments: `{"a":1}`}},
		},
		{
			name: "a name before the arguments are complete continues the call",
			in: [][]d{
				{{Index: 0, Name: "get_", Arguments: "{"}},
				{{Index: 0, Name: "weather"}},
				{{Index: 0, Arguments: "}"}},
			},
			out: [][]d{
				{{Index: 0, ID: "$1", Name: "get_", Arguments: "{"}},
				{{Index: 0, Name: "weather"}},
				{{Index: 0, Arguments: "}"}},
			},
			calls: []llm.ToolCall{{ID: "$1", Name: "get_weather", Arguments: "{}"}},
		},
		{
			name: "the same server id on two whole calls",
			in: [][]d{
				{{Index: 0, ID: "call_0", Name: "f", Arguments: "{}"}},
				{{Index: 0, ID: "call_0", Name: "f", Arguments: "[]"}},
			},
			out: [][]d{
				{{Index: 0, ID: "call_0", Name: "f", Arguments: "{}"}},
				{{Index: 1, ID: "$1", Name: "f", Arguments: "[]"}},
			},
			calls: []llm.ToolCall{{ID: "call_0", Name: "f", Arguments: "{}"}, {ID: "$1", Name: "f", Arguments: "[]"}},
		},
		{
			name: "the same server id at two indexes",
			in: [][]d{
				{{Index: 0, ID: "x", Name: "f", Arguments: "{}"}},
				{{Index: 1, ID: "x", Name: "g", Arguments: "{}"}},
			},
			out: [][]d{
				{{Index: 0, ID: "x", Name: "f", Arguments: "{}"}},
				{{Index: 1, ID: "$1", Name: "g", Arguments: "{}"}},
			},
			calls: []llm.ToolCall{{ID: "x", Name: "f", Arguments: "{}"}, {ID: "$1", Name: "g", Arguments: "{}"}},
		},
		{
			name: "a server index taken by a moved call",
			in: [][]d{
				{{Index: 0, Name: "f", Arguments: "{}"}},
				{{Index: 0, Name: "g", Arguments: "{}"}},
				{{Index: 1, ID: "c", Name: "h", Arguments: "{"}},
				{{Index: 1, Arguments: "}"}},
				{{Index: 0, Arguments: ""}},
			},
			out: [][]d{
				{{Index: 0, ID: "$1", Name: "f", Arguments: "{}"}},
				{{Index: 1, ID: "$2", Name: "g", Arguments: "{}"}},
				{{Index: 2, ID: "c", Name: "h", Arguments: "{"}},
				{{Index: 2, Arguments: "}"}},
				{{Index: 1, Arguments: ""}},
			},
			calls: []llm.ToolCall{{ID: "$1", Name: "f", Arguments: "{}"}, {ID: "$2", Name: "g", Arguments: "{}"}, {ID: "c", Name: "h", Arguments: "{}"}},
		},
		{
			name: "an id after the name is dropped",
			in: [][]d{
				{{Index: 0, Name: "f"}},
				{{Index: 0, ID: "late"}},
				{{Index: 0, ID: "late", Arguments: "{}"}},
			},
			out: [][]d{
				{{Index: 0, ID: "$1", Name: "f"}},
				{{Index: 0}},
				{{Index: 0, Arguments: "{}"}},
			},
			calls: []llm.ToolCall{{ID: "$1", Name: "f", Arguments: "{}"}},
		},
		{
			name: "an id after a complete call starts the next",
			in: [][]d{
				{{Index: 0, Name: "f", Arguments: "{}"}},
				{{Index: 0, ID: "b"}},
				{{Index: 0, Name: "g"}},
				{{Index: 0, Arguments: "{}"}},
			},
			out: [][]d{
				{{Index: 0, ID: "$1", Name: "f", Arguments: "{}"}},
				{{Index: 1, ID: "b"}},
				{{Index: 1, Name: "g"}},
				{{Index: 1, Arguments: "{}"}},
			},
			calls: []llm.ToolCall{{ID: "$1", Name: "f", Arguments: "{}"}, {ID: "b", Name: "g", Arguments: "{}"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newCallState(llm.Request{}, true)
			var got [][]d
			for _, in := range tt.in {
				c := s.add(llm.Chunk{ToolCalls: append([]d(nil), in...)})
				got = append(got, c.ToolCalls)
			}
			want := tt.out
			if want == nil {
				want = tt.in
			}
			ids := map[string]string{}
			for i := range want {
				for j := range want[i] {
					if i < len(got) && j < len(got[i]) {
						bindID(t, ids, &want[i][j].ID, got[i][j].ID)
					}
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("deltas\n got %+v\nwant %+v", got, want)
			}
			calls := s.finish(nil).Message.ToolCalls
			wantCalls := append([]llm.ToolCall(nil), tt.calls...)
			for i := range wantCalls {
				if i < len(calls) {
					bindID(t, ids, &wantCalls[i].ID, calls[i].ID)
				}
			}
			if !reflect.DeepEqual(calls, wantCalls) {
				t.Fatalf("calls\n got %+v\nwant %+v", calls, wantCalls)
			}
		})
	}
}

var generatedIDForm = regexp.MustCompile(`^call_[0-9a-f]{24}$`)

// bindID replaces a "$n" placeholder in *want with the id it stands for,
// binding it to got the first time it is seen.
func bindID(t *testing.T, ids map[string]string, want *string, got string) {
	t.Helper()
	if !strings.HasPrefix(*want, "$") {
		return
	}
	id, ok := ids[*want]
	if !ok {
		if !generatedIDForm.MatchString(got) {
			t.Fatalf("%s: got id %q, want a generated one", *want, got)
		}
		for ph, other := range ids {
			if other == got {
				t.Fatalf("%s and %s are the same id %q", ph, *want, got)
			}
		}
		id = got
		ids[*want] = id
	}
	*want = id
}

func TestNewCallIDIsUnique(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := newCallID()
		if !generatedIDForm.MatchString(id) || seen[id] {
			t.Fatalf("id %q is malformed or repeated", id)
		}
		seen[id] = true
	}
}

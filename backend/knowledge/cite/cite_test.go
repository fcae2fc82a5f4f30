package cite_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/knowledge"
	"github.com/agentdeck/agentdeck/backend/knowledge/cite"
	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
)

func TestCitations(t *testing.T) {
	given := []turn.Source{{N: 1, Kind: turn.SourcePassage, Text: "a"}, {N: 2, Kind: turn.SourcePassage, Text: "b"}}
	tests := []struct {
		answer     string
		want       []int
		unverified []int
	}{
		{"Quinces need frost [1].", []int{1}, nil},
		{"Both [1, 2] and again [2][1].", []int{1, 2}, nil},
		{"Made up [7], true [2].", []int{7, 2}, []int{7}},
		{"A [link](https://x) and [3](y) are not citations.", nil, nil},
		{"Code `a[1]` and\n```\nb[2]\n```\nare not either; [0] is no number.", nil, nil},
		{"No citations at all.", nil, nil},
		{"[12] twelve [2]", []int{12, 2}, []int{12}},
		{"rows[1] and data_[2] and x2[1] are indexes", nil, nil},
		{"[1]: https://example.com is a link definition", nil, nil},
		{"[0] is no source, nor [x], [], [1 2] or [-1]", nil, nil},
		{"(see [1])", []int{1}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.answer, func(t *testing.T) {
			var got, unverified []int
			for _, c := range cite.Citations(tt.answer, given) {
				got = append(got, c.N)
				if !c.Verified() {
					unverified = append(unverified, c.N)
				} else if c.Source.N != c.N {
					t.Errorf("[%d] verified by source %d", c.N, c.Source.N)
				}
			}
			if !reflect.DeepEqual(got, tt.want) || !reflect.DeepEqual(unverified, tt.unverified) {
				t.Errorf("cited %v (unverified %v), want %v (unverified %v)", got, unverified, tt.want, tt.unverified)
			}
		})
	}
	if m := cite.Marks("x [2, 3] y"); len(m) != 1 || m[0].Start != 2 || m[0].End != 8 || !reflect.DeepEqual(m[0].Ns, []int{2, 3}) {
		t.Errorf("Marks = %+v", m)
	}
}

type fakeSearch struct{ hits []knowledge.Hit }

func (f fakeSearch) Search(context.Context, knowledge.Place, string, int) (knowledge.Results, error) {
	return knowledge.Results{Mode: knowledge.Hybrid, Hits: f.hits}, nil
}

func TestToolNumbersEmitsAndReplays(t *testing.T) {
	hits := []knowledge.Hit{
		{Passage: knowledge.Passage{ID: 11, DocumentID: "d1", Page: 3, Heading: "Results", Text: "Revenue grew."}, Document: "report.pdf", Version: "abc"},
		{Passage: knowledge.Passage{ID: 12, DocumentID: "d1", Page: 4, Text: "Costs fell."}, Document: "report.pdf", Version: "abc"},
	}
	var emitted []turn.SourcesData
	ctx := tool.WithEmitter(context.Background(), func(d turn.Draft) { emitted = append(emitted, d.Data.(turn.SourcesData)) })

	numbers := &knowledge.Numbers{}
	numbers.Take(1) // another tool gave [1] first
	tl := cite.NewTool(fakeSearch{hits}, knowledge.Place{SessionID: "s"}, numbers)
	if spec := tl.Spec(); !spec.Recorded || spec.SideEffects || !strings.Contains(spec.Description, "[n]") {
		t.Errorf("spec = %+v, want read-only, recorded, telling to cite [n]", spec)
	}
	args := json.RawMessage(`{"query":"revenue"}`)
	out, err := tl.Execute(ctx, args)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, cite.Instruction) || !strings.Contains(out, `"n":2`) || !strings.Contains(out, `"n":3`) {
		t.Errorf("output = %s, want passages [2] and [3] and the instruction", out)
	}
	if len(emitted) != 1 || len(emitted[0].Sources) != 2 {
		t.Fatalf("emitted %+v, want one sources event of two", emitted)
	}
	want := turn.Source{N: 2, Kind: "passage", DocumentID: "d1", PassageID: 11, Version: "abc", Document: "report.pdf", Page: 3, Heading: "Results", Text: "Revenue grew."}
	if emitted[0].Sources[0] != want {
		t.Errorf("source = %+v, want %+v", emitted[0].Sources[0], want)
	}

	// A replay: no documents, the recorded output alone.
	replayNumbers := &knowledge.Numbers{}
	gone := cite.NewTool(fakeSearch{}, knowledge.Place{SessionID: "s"}, replayNumbers)
	gone.(tool.Replayer).Replayed(ctx, args, out)
	if len(emitted) != 2 || !reflect.DeepEqual(emitted[1], emitted[0]) {
		t.Fatalf("replayed %+v, want the original's sources %+v", emitted[1:], emitted[0])
	}
	if next := replayNumbers.Take(1); next != 4 {
		t.Errorf("after the replay the next number is %d, want 4", next)
	}
}

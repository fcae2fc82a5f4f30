package eval

import "testing"

// TestJudgeAgreement: a cell counts when it has a judge verdict and a
// thumb; up agrees with passed, down with failed; two judges pass only
// together; cells with no judge, no turn or no thumb are left out.
func TestJudgeAgreement(t *testing.T) {
	t.Parallel()
	judge := func(passed ...bool) []AssertOutcome {
		out := []AssertOutcome{{Kind: "contains", Passed: false}}
		for _, p := range passed {
			out = append(out, AssertOutcome{Kind: "judge", Passed: p})
		}
		return out
	}
	cell := func(turn string, outcomes []AssertOutcome) CellResult {
		return CellResult{TurnID: turn, Outcomes: outcomes}
	}
	tests := []struct {
		name    string
		results []CellResult
		thumbs  map[string]int
		want    Agreement
	}{
		{name: "nothing", want: Agreement{}},
		{name: "judged, none rated", results: []CellResult{cell("t1", judge(true))}, thumbs: map[string]int{}, want: Agreement{Judged: 1}},
		{name: "up agrees with a pass", results: []CellResult{cell("t1", judge(true))}, thumbs: map[string]int{"t1": 1},
			want: Agreement{Rated: 1, Agree: 1, Share: 1, Judged: 1}},
		{name: "down agrees with a fail", results: []CellResult{cell("t1", judge(false))}, thumbs: map[string]int{"t1": -1},
			want: Agreement{Rated: 1, Agree: 1, Share: 1, Judged: 1}},
		{name: "up disagrees with a fail", results: []CellResult{cell("t1", judge(false))}, thumbs: map[string]int{"t1": 1},
			want: Agreement{Rated: 1, Judged: 1}},
		{name: "two judges pass only together", results: []CellResult{cell("t1", judge(true, false))}, thumbs: map[string]int{"t1": 1},
			want: Agreement{Rated: 1, Judged: 1}},
		{name: "no judge, a thumb: left out", results: []CellResult{cell("t1", []AssertOutcome{{Kind: "contains", Passed: true}})},
			thumbs: map[string]int{"t1": 1}, want: Agreement{}},
		{name: "no turn: left out", results: []CellResult{cell("", judge(true))}, thumbs: map[string]int{"": 1}, want: Agreement{Judged: 1}},
		{name: "a zero thumb is no rating", results: []CellResult{cell("t1", judge(true))}, thumbs: map[string]int{"t1": 0}, want: Agreement{Judged: 1}},
		{name: "7 of 9", results: func() []CellResult {
			var rs []CellResult
			for i, p := range []bool{true, true, true, true, false, false, false, true, false, true} {
				rs = append(rs, cell(string(rune('a'+i)), judge(p)))
			}
			return rs
		}(), thumbs: map[string]int{"a": 1, "b": 1, "c": 1, "d": -1, "e": -1, "f": -1, "g": 1, "h": 1, "i": -1},
			want: Agreement{Rated: 9, Agree: 7, Share: 7.0 / 9, Judged: 10}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := JudgeAgreement(tc.results, tc.thumbs); got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

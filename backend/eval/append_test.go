package eval

import (
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

func TestAppendCases(t *testing.T) {
	const kept = `# Geography, kept by hand.
name: geo
models: [local/qwen3]
cases:
  # The easy one.
  - id: france
    prompt: Capital of France? # short
    assert:
      - contains: Paris
repeat: 2
`
	fromTurn, err := SuiteYAML(Suite{Name: "from-abc", Models: []string{"local/qwen3"}, Cases: []Case{{ID: "spain", Prompt: "Capital of Spain?\nOne word.",
		Assert: []Assert{{SimilarTo: &Similarity{Reference: "Madrid: it is.\n- yes", Measure: "token_f1"}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		dst, add string
		code     apperr.Code // "" for success
		ids      []string
		contains []string // kept in the result as written
	}{
		{name: "to a file kept by hand", dst: kept, add: string(fromTurn), ids: []string{"france", "spain"},
			contains: []string{"# Geography, kept by hand.", "# The easy one.", "# short", "repeat: 2"}},
		{name: "to a file with no cases yet", dst: "name: geo\nmodels: [local/qwen3]\n", add: string(fromTurn), ids: []string{"spain"},
			contains: []string{"name: geo"}},
		{name: "an id it has", dst: kept, add: "cases:\n  - id: france\n    prompt: again\n", code: apperr.Conflict},
		{name: "nothing to add", dst: kept, add: "name: x\n", code: apperr.Invalid},
		{name: "an empty list", dst: kept, add: "cases: []\n", code: apperr.Invalid},
		{name: "not YAML", dst: kept, add: "cases: [\n", code: apperr.Invalid},
		{name: "a broken file", dst: "cases: [\n", add: string(fromTurn), code: apperr.Invalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := AppendCases([]byte(tt.dst), []byte(tt.add))
			if tt.code != "" {
				if apperr.CodeOf(err) != tt.code {
					t.Fatalf("got %q (%v), want %s", out, err, tt.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s, err := Parse("geo.yaml", out)
			if err != nil {
				t.Fatalf("the result is no suite: %v\n%s", err, out)
			}
			var ids []string
			for _, c := range s.Cases {
				ids = append(ids, c.ID)
			}
			if strings.Join(ids, ",") != strings.Join(tt.ids, ",") || s.Name != "geo" {
				t.Fatalf("suite %s with cases %v\n%s", s.Name, ids, out)
			}
			if got := s.Cases[len(s.Cases)-1]; got.Prompt != "Capital of Spain?\nOne word." || got.Assert[0].SimilarTo.Reference != "Madrid: it is.\n- yes" {
				t.Fatalf("the added case: %+v", got)
			}
			for _, want := range tt.contains {
				if !strings.Contains(string(out), want) {
					t.Errorf("lost %q:\n%s", want, out)
				}
			}
		})
	}
}

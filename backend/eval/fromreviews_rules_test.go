package eval

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/turn"
)

// TestReviewLabelRules: the labels that become assertions, as
// docs/EVALUATIONS.md lists them; any other goes to the judge.
func TestReviewLabelRules(t *testing.T) {
	tests := []struct {
		label, want string
	}{
		{"should use read_file", "tool_called read_file"},
		{"missing tool: web.search", "tool_called web.search"},
		{"needs run_python", "tool_called run_python"},
		{"should use read file", ""}, // a tool's name has no space
		{"wrong tool: calculator", ""},
		{"missing chart", "chart true"},
		{"unwanted chart", "chart false"},
		{"looped", "termination"},
		{"hallucinated", ""},
	}
	for _, tt := range tests {
		t.Run(tt.label, func(t *testing.T) {
			a, ok := labelAssert(tt.label)
			got := ""
			if ok {
				got = assertKey(a)
			}
			if got != tt.want {
				t.Fatalf("%q became %q, want %q", tt.label, got, tt.want)
			}
		})
	}
	doc, err := os.ReadFile("../../docs/EVALUATIONS.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range ReviewLabelRules {
		want := strings.Fields(r.Expect)[0]
		if !regexp.MustCompile("\\| `[^|]*\\| `" + regexp.QuoteMeta(want)).Match(doc) {
			t.Errorf("docs/EVALUATIONS.md's label table has no row for %s (%s)", r.Pattern, r.Expect)
		}
	}
}

// TestStartStep: where a rated-down turn's case starts.
func TestStartStep(t *testing.T) {
	tests := []struct {
		name  string
		steps []string
		want  string
	}{
		{"the whole turn", []string{""}, "start"},
		{"the turn and a call", []string{"", "call2"}, "start"},
		{"a tool", []string{"tool1"}, "start"},
		{"calls: the earliest", []string{"call12", "call3"}, "call3"},
		{"a stage", []string{"stage2"}, "stage2"},
		{"a stage and a call", []string{"stage2", "call1"}, "start"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rs []turn.Review
			for _, s := range tt.steps {
				rs = append(rs, turn.Review{Step: s, Thumb: -1})
			}
			if got := startStep(downReviews(rs)); got != tt.want {
				t.Fatalf("startStep(%v) = %s, want %s", tt.steps, got, tt.want)
			}
		})
	}
}

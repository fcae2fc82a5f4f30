package eval

import (
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/store"
)

// TestFromTurn: a turn becomes a case whose YAML is a valid suite file: the
// message (after its conversation, when it had one), the answer as a
// similar_to reference, a chart when it drew one.
func TestFromTurn(t *testing.T) {
	tests := []struct {
		name      string
		turn      store.TurnDetail
		history   []llm.Message
		id        string
		messages  int
		wantKinds []string
	}{
		{"a first message", store.TurnDetail{Turn: store.Turn{UserMessage: "What's the capital of France?", FinalText: "Paris.", Model: "m"}},
			nil, "what-s-the-capital-of-france", 0, []string{"similar_to", "termination"}},
		{"a follow-up that drew a chart", store.TurnDetail{Turn: store.Turn{UserMessage: "Chart it!", FinalText: "Here.", Model: "m"},
			Charts: []store.ChartRecord{{Title: "sales"}}},
			[]llm.Message{{Role: llm.RoleSystem, Content: "sys"}, {Role: llm.RoleUser, Content: "Load sales"}, {Role: llm.RoleAssistant, Content: "Loaded."}},
			"chart-it", 3, []string{"similar_to", "chart", "termination"}},
		{"no answer, no words", store.TurnDetail{Turn: store.Turn{UserMessage: "¿¡…!?", Model: "m"}}, nil, "case", 0, []string{"termination"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := FromTurn(tt.turn, tt.history)
			if c.ID != tt.id || len(c.Messages) != tt.messages {
				t.Fatalf("id %q, %d messages: %+v", c.ID, len(c.Messages), c)
			}
			var kinds []string
			for _, a := range c.Assert {
				kinds = append(kinds, a.Kind())
			}
			if strings.Join(kinds, ",") != strings.Join(tt.wantKinds, ",") {
				t.Fatalf("assertions %v, want %v", kinds, tt.wantKinds)
			}
			y, err := SuiteYAML(Suite{Name: "from-turns", Models: []string{"local/m"}, Cases: []Case{c}})
			if err != nil {
				t.Fatal(err)
			}
			s, err := Parse("from-turns.yaml", y)
			if err != nil {
				t.Fatalf("the YAML made is not a valid suite: %v\n%s", err, y)
			}
			if got := s.Cases[0]; got.ID != c.ID || (tt.turn.FinalText != "" && got.Assert[0].SimilarTo.Reference != tt.turn.FinalText) {
				t.Fatalf("read back: %+v", got)
			}
		})
	}
}

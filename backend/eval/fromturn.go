package eval

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/goccy/go-yaml"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/store"
)

// A case made from a turn ("Add to evaluation"): the turn's message, with
// the conversation before it when there was one, and its answer as a
// similar_to reference to edit, so what the model said then becomes what
// later runs are held to.

// FromTurn makes a case of turn t, whose conversation before it was
// history. Its id is made from the message; a turn that drew charts must
// draw one again.
func FromTurn(t store.TurnDetail, history []llm.Message) Case {
	c := Case{ID: caseID(t.UserMessage), Description: "made from a turn of " + t.Model}
	var prior []Message
	for _, m := range history {
		if (m.Role == llm.RoleUser || m.Role == llm.RoleAssistant) && strings.TrimSpace(m.Content) != "" {
			prior = append(prior, Message{Role: string(m.Role), Content: m.Content})
		}
	}
	if len(prior) > 0 {
		c.Messages = append(prior, Message{Role: string(llm.RoleUser), Content: t.UserMessage})
	} else {
		c.Prompt = t.UserMessage
	}
	threshold := 0.5
	if answer := strings.TrimSpace(t.FinalText); answer != "" {
		c.Assert = append(c.Assert, Assert{SimilarTo: &Similarity{Reference: answer, Measure: "token_f1", Threshold: &threshold}})
	}
	if len(t.Charts) > 0 {
		drew := true
		c.Assert = append(c.Assert, Assert{Chart: &drew})
	}
	c.Assert = append(c.Assert, Assert{Termination: &TerminationRule{NotLimit: true}})
	return c
}

// SuiteYAML writes s as a suite file a person edits: YAML, with the
// schema named for editors, in the field order of Suite.
func SuiteYAML(s Suite) ([]byte, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	y, err := yaml.JSONToYAML(raw)
	if err != nil {
		return nil, fmt.Errorf("writing the suite as YAML: %w", err)
	}
	return append([]byte("# yaml-language-server: $schema=https://github.com/agentdeck/agentdeck/raw/main/backend/eval/suite.schema.json\n"), y...), nil
}

// caseID is an id made from a message: its first words, lowercase, joined
// by '-', in the form case ids take ("case" when nothing is left).
func caseID(message string) string {
	var words []string
	for _, w := range strings.FieldsFunc(strings.ToLower(message), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		var b strings.Builder
		for _, r := range w {
			if r < 128 {
				b.WriteRune(r)
			}
		}
		if b.Len() > 0 {
			words = append(words, b.String())
		}
		if len(words) == 6 {
			break
		}
	}
	id := strings.Join(words, "-")
	if len(id) > 48 {
		id = strings.TrimRight(id[:48], "-")
	}
	if id == "" {
		return "case"
	}
	return id
}

package workflow

import (
	"strings"

	"github.com/agentdeck/agentdeck/backend/yamlcheck"
)

// The wording of problems: what was found, what was expected, and a likely
// fix ("did you mean"), with the place in the file they are about.

func nameMessage(got string) string { return yamlcheck.SlugMessage(got, "workflow name", 64) }

func agentNameMessage(got string) string { return yamlcheck.SlugMessage(got, "agent name", 48) }

func itemNoun(field string) string {
	switch field {
	case "phases":
		return "phase"
	case "stages":
		return "stage"
	}
	if f := executors().byName[field]; f != nil && f.kind == fieldTeam {
		return strings.TrimSuffix(field, "s") // specialists: specialist
	}
	return "entry"
}

func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	if noun == "entry" {
		return "entries"
	}
	return noun + "s"
}

// issue is a problem found by the schema or by validate, at a place in the
// file given as JSON Pointer tokens.
type issue = yamlcheck.Issue

// where renders a path for a message: phases[0].stages[1].writer.
func where(path []string) string { return yamlcheck.Where(path, isListField) }

// isListField reports whether a field's value is a list.
func isListField(field string) bool {
	switch field {
	case "phases", "stages", "tools":
		return true
	}
	f := executors().byName[field]
	return f != nil && f.kind == fieldTeam
}

// at prefixes msg with the path it is about.
func at(path []string, msg string) string { return yamlcheck.At(path, msg, isListField) }

// withArticle puts "a" or "an" before a word: "a chat", "an echo".
func withArticle(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an " + word
	}
	return "a " + word
}

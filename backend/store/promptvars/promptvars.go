// Package promptvars reads and fills the {{variables}} of a saved prompt.
//
// Rules:
//   - A variable is {{name}}: a name of letters, digits, _ and -, spaces
//     around it trimmed ({{ topic }} is topic). Names match with case.
//   - Anything else is text as written, never an error: "{{{{", an
//     unclosed "{{", "{{}}", "{{two words}}". So a prompt about templates
//     can show braces.
//   - Variables lists each name once, in the order it first appears; a
//     filled value is put in as it is, never read for variables again.
//   - Fill refuses a body whose variables lack a value, naming every one
//     missing (apperr.Invalid); extra values are ignored.
//
// The UI fills a prompt itself (frontend/src/lib/promptvars.ts) by the
// same rules; both are tested on the cases in testdata/cases.json.
package promptvars

import (
	"slices"
	"strings"
	"unicode"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

// Variables lists the names of body's variables, each once, in order
// (empty, never nil, when it has none).
func Variables(body string) []string {
	names := []string{}
	seen := map[string]bool{}
	scan(body, func(text string, name string) {
		if name != "" && !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	})
	return names
}

// Fill is body with each variable replaced by its value. A variable with
// no value is an error naming it (all of them, when several).
func Fill(body string, values map[string]string) (string, error) {
	var b strings.Builder
	var missing []string
	scan(body, func(text string, name string) {
		if name == "" {
			b.WriteString(text)
			return
		}
		v, ok := values[name]
		if !ok {
			if !slices.Contains(missing, name) {
				missing = append(missing, name)
			}
			return
		}
		b.WriteString(v)
	})
	if len(missing) > 0 {
		return "", apperr.New(apperr.Invalid, "The prompt needs a value for %s.", quoteAll(missing))
	}
	return b.String(), nil
}

// scan walks body and calls emit with each piece of plain text (name "")
// and each variable (its name, text the placeholder as written).
func scan(body string, emit func(text, name string)) {
	for body != "" {
		i := strings.Index(body, "{{")
		if i < 0 {
			emit(body, "")
			return
		}
		if strings.HasPrefix(body[i:], "{{{{") {
			emit(body[:i+4], "")
			body = body[i+4:]
			continue
		}
		end := strings.Index(body[i+2:], "}}")
		if end < 0 {
			emit(body, "")
			return
		}
		name := strings.TrimSpace(body[i+2 : i+2+end])
		if !isName(name) {
			// Not a variable: keep "{{" as text and look again after it,
			// so "{{ {{x}}" still finds x.
			emit(body[:i+2], "")
			body = body[i+2:]
			continue
		}
		if i > 0 {
			emit(body[:i], "")
		}
		emit(body[i:i+4+end], name)
		body = body[i+4+end:]
	}
}

// isName reports whether s is a variable's name: letters, digits, _ and -.
func isName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '-' {
			return false
		}
	}
	return true
}

// quoteAll writes names as "{{a}}", "{{a}} and {{b}}", "{{a}}, {{b}} and {{c}}".
func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "{{" + n + "}}"
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

package workflow

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// The wording of problems: what was found, what was expected, and a likely
// fix ("did you mean"), with the place in the file they are about.

func enumMessage(got string, want []string) string {
	msg := fmt.Sprintf("%q is not one of %s", got, strings.Join(want, ", "))
	if s := suggest(got, want); s != "" {
		msg += fmt.Sprintf(` (did you mean %q?)`, s)
	}
	return msg
}

func nameMessage(got string) string {
	msg := fmt.Sprintf("%q is not a valid workflow name: use lowercase letters, digits, '-' and '_', starting with a letter or digit, at most 64 characters", got)
	if s := slugify(got, 64); s != "" {
		msg += fmt.Sprintf(" (such as %q)", s)
	}
	return msg
}

func agentNameMessage(got string) string {
	msg := fmt.Sprintf("%q is not a valid agent name: use lowercase letters, digits, '-' and '_', starting with a letter or digit, at most 48 characters", got)
	if s := slugify(got, 48); s != "" && s != got {
		msg += fmt.Sprintf(" (such as %q)", s)
	}
	return msg
}

func unknownFieldMessage(field string, allowed []string) string {
	msg := fmt.Sprintf("unknown field %q", field)
	if s := suggest(field, allowed); s != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", s)
	}
	if len(allowed) > 0 && len(allowed) <= 12 { // a longer list is noise
		msg += "; expected one of " + strings.Join(allowed, ", ")
	}
	return msg
}

func typeName(t string) string {
	switch t {
	case "string":
		return "a string"
	case "integer":
		return "a whole number"
	case "number":
		return "a number"
	case "boolean":
		return "true or false"
	case "object":
		return "a mapping"
	case "array":
		return "a list"
	case "null":
		return "nothing"
	}
	return t
}

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

// suggest returns the candidate nearest to s when it is near enough to be
// a likely typo: a few edits, a swapped pair of letters, another case.
func suggest(s string, candidates []string) string {
	best, bestDist := "", math.MaxInt
	for _, c := range candidates {
		if strings.EqualFold(s, c) {
			return c
		}
		if d := editDistance(strings.ToLower(s), c); d < bestDist {
			best, bestDist = c, d
		}
	}
	if bestDist <= max(1, min(3, len([]rune(s))/3)) {
		return best
	}
	return ""
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and swaps of neighbours each cost one.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	if len(x) > 64 || len(y) > 64 {
		return math.MaxInt
	}
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}

// slugify suggests a valid name for s: "My Report" becomes "my-report".
func slugify(s string, maxLen int) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
			dash = false
		case b.Len() > 0 && !dash:
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.TrimRight(b.String(), "-")
	if len(out) > maxLen {
		out = strings.TrimRight(out[:maxLen], "-")
	}
	return out
}

// issue is a problem found by the schema or by validate, at a place in the
// file given as JSON Pointer tokens.
type issue struct {
	path []string
	key  bool // point at the key of the last token, not its value
	msg  string
}

// where renders a path for a message: phases[0].stages[1].writer.
func where(path []string) string {
	var b strings.Builder
	for i, tok := range path {
		if i > 0 && isIndex(tok) && isListField(path[i-1]) {
			b.WriteString("[" + tok + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

// isListField reports whether a field's value is a list.
func isListField(field string) bool {
	switch field {
	case "phases", "stages", "tools":
		return true
	}
	f := executors().byName[field]
	return f != nil && f.kind == fieldTeam
}

func isIndex(tok string) bool {
	_, err := strconv.Atoi(tok)
	return err == nil
}

// at prefixes msg with the path it is about.
func at(path []string, msg string) string {
	if len(path) == 0 {
		return msg
	}
	return where(path) + ": " + msg
}

// jsonValue turns a value decoded from YAML into one the schema validator
// takes: string keys, and plain strings for anything JSON has no type for.
func jsonValue(v any) any {
	switch v := v.(type) {
	case nil, bool, string, int, int64, uint64, float64:
		return v
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = jsonValue(e)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[fmt.Sprint(k)] = jsonValue(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = jsonValue(e)
		}
		return out
	case time.Time:
		return v.Format(time.RFC3339Nano)
	case fmt.Stringer:
		return v.String()
	}
	return fmt.Sprint(v)
}

// withArticle puts "a" or "an" before a word: "a chat", "an echo".
func withArticle(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an " + word
	}
	return "a " + word
}

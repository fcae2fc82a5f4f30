package yamlcheck

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The wording of problems every format shares: what was found, what was
// expected, and a likely fix ("did you mean").

// EnumMessage says got is not one of want, with the likely one meant.
func EnumMessage(got string, want []string) string {
	msg := fmt.Sprintf("%q is not one of %s", got, strings.Join(want, ", "))
	if s := Suggest(got, want); s != "" {
		msg += fmt.Sprintf(` (did you mean %q?)`, s)
	}
	return msg
}

// UnknownFieldMessage says field is not one of allowed: the likely one
// meant, else the allowed ones when they are few.
func UnknownFieldMessage(field string, allowed []string) string {
	msg := fmt.Sprintf("unknown field %q", field)
	if s := Suggest(field, allowed); s != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", s)
	}
	if len(allowed) > 0 && len(allowed) <= 12 { // a longer list is noise
		msg += "; expected one of " + strings.Join(allowed, ", ")
	}
	return msg
}

// RegexpMessage says why expr is not a regular expression, "" when it is.
func RegexpMessage(expr string) string {
	if _, err := regexp.Compile(expr); err != nil {
		return fmt.Sprintf("%q is not a valid regular expression (Go RE2 syntax): %s", expr,
			strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	return ""
}

// TypeName names a JSON Schema type as a message does: "a whole number".
func TypeName(t string) string {
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

// Suggest returns the candidate nearest to s when it is near enough to be
// a likely typo: a few edits, a swapped pair of letters, another case.
func Suggest(s string, candidates []string) string {
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

// Slugify suggests a valid name for s: "My Report" becomes "my-report";
// at most maxLen bytes.
func Slugify(s string, maxLen int) string {
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

// SlugMessage says got is not a valid name of the slug form (lowercase
// letters, digits, '-' and '_', at most maxLen bytes): what names noun
// ("workflow name"), and a valid name like it is suggested.
func SlugMessage(got, noun string, maxLen int) string {
	msg := fmt.Sprintf("%q is not a valid %s: use lowercase letters, digits, '-' and '_', starting with a letter or digit, at most %d characters", got, noun, maxLen)
	if s := Slugify(got, maxLen); s != "" && s != got {
		msg += fmt.Sprintf(" (such as %q)", s)
	}
	return msg
}

// JSONValue turns a value decoded from YAML into one the schema validator
// takes: string keys, and plain strings for anything JSON has no type for.
func JSONValue(v any) any {
	switch v := v.(type) {
	case nil, bool, string, int, int64, uint64, float64:
		return v
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = JSONValue(e)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[fmt.Sprint(k)] = JSONValue(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = JSONValue(e)
		}
		return out
	case time.Time:
		return v.Format(time.RFC3339Nano)
	case fmt.Stringer:
		return v.String()
	}
	return fmt.Sprint(v)
}

// ValueAt returns the value at path in a JSONValue tree, or nil.
func ValueAt(v any, path []string) any {
	for _, tok := range path {
		switch c := v.(type) {
		case map[string]any:
			v = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			v = c[i]
		default:
			return nil
		}
	}
	return v
}

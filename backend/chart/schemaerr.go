package chart

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

const (
	maxSchemaErrors = 3   // a model fixes a few things at a time
	maxErrorRunes   = 400 // enum lists can be long
	maxGotRunes     = 60  // an echo of the bad value, not the whole value
)

// schemaError turns the validator's error tree into a short message for the
// model.
//
// Vega-Lite's schema is mostly anyOf: a top-level spec is a unit, layer,
// facet, repeat or concat spec; a channel is a field, datum or value
// definition; a mark is a name or a definition. A wrong spec fails every
// alternative, and the full tree says so at length. At each anyOf/oneOf,
// pickBranch keeps the alternative the model most likely meant; when every
// alternative just rejects the value itself (wrong type, not an allowed
// name), they are merged into one "want one of" list instead.
func schemaError(err error) error {
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return fmt.Errorf("chart: validate spec: %w", err)
	}
	probs := problems(verr)
	slices.SortStableFunc(probs, func(a, b problem) int { return len(b.at) - len(a.at) })
	var lines []string
	for _, p := range probs {
		line := "at " + location(p.at) + ": " + truncate(p.message(), maxErrorRunes)
		if !slices.Contains(lines, line) {
			lines = append(lines, line)
		}
	}
	if len(lines) == 0 {
		return invalid("the spec does not match the Vega-Lite v6 schema")
	}
	shown := lines[:min(len(lines), maxSchemaErrors)]
	return invalid("the spec does not match the Vega-Lite v6 schema:\n- %s%s",
		strings.Join(shown, "\n- "), more(len(lines)-len(shown), "error"))
}

// A problem is one leaf error, reduced to what the model needs.
type problem struct {
	at  []string // instance location
	msg string   // for anything but a shape problem
	// A shape problem rejects the value as a whole (wrong type, or not one
	// of the allowed values): want lists what would do, got echoes the
	// value. Shape problems of alternatives at one place merge.
	want []string
	got  string
	// size is how much the problem is off by: the number of missing or
	// unknown properties, else 1.
	size int
	// variant marks a mismatch of a single allowed value (a const, such as
	// "type": "boxplot"): it says this alternative is a different variant,
	// not that the spec got this variant wrong.
	variant bool
}

func (p problem) shape() bool { return p.want != nil }

func (p problem) message() string {
	if !p.shape() {
		return p.msg
	}
	if len(p.want) == 1 {
		return fmt.Sprintf("got %s, want %s", p.got, p.want[0])
	}
	return fmt.Sprintf("got %s, want one of: %s", p.got, strings.Join(p.want, ", "))
}

// problems returns the leaf problems of the alternatives most likely meant.
func problems(e *jsonschema.ValidationError) []problem {
	if len(e.Causes) == 0 {
		return []problem{leaf(e)}
	}
	switch e.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
		branches := make([][]problem, len(e.Causes))
		for i, c := range e.Causes {
			branches[i] = problems(c)
		}
		return pickBranch(branches, len(e.InstanceLocation))
	}
	var all []problem
	for _, c := range e.Causes {
		all = append(all, problems(c)...)
	}
	return all
}

// pickBranch chooses among the failed alternatives of an anyOf/oneOf at
// depth. If each only rejects the value itself, they merge into one list of
// what would do. Otherwise the winner is, in order: not weak (a weak
// alternative is a different variant, or wants another type altogether),
// deepest (it matched furthest into the spec), smallest (fewest problems,
// missing and unknown properties: nearest to matching), first.
func pickBranch(branches [][]problem, depth int) []problem {
	if merged, ok := mergeShapes(branches, depth); ok {
		return []problem{merged}
	}
	best, bestKey := 0, [3]int{}
	for i, b := range branches {
		key := [3]int{boolInt(weak(b, depth)), -maxDepth(b), size(b)}
		if i == 0 || slices.Compare(key[:], bestKey[:]) < 0 {
			best, bestKey = i, key
		}
	}
	return branches[best]
}

func weak(branch []problem, depth int) bool {
	onlyShape := true
	for _, p := range branch {
		if p.variant {
			return true
		}
		if !p.shape() || len(p.at) != depth {
			onlyShape = false
		}
	}
	return onlyShape
}

// mergeShapes merges alternatives that each have a single shape problem at
// depth.
func mergeShapes(branches [][]problem, depth int) (problem, bool) {
	var m problem
	for i, b := range branches {
		if len(b) != 1 || !b[0].shape() || len(b[0].at) != depth {
			return problem{}, false
		}
		p := b[0]
		if i == 0 || (m.got == typeName(m.got) && p.got != typeName(p.got)) {
			// Prefer echoing the value over naming its type.
			m.at, m.got = p.at, p.got
		}
		for _, w := range p.want {
			if !slices.Contains(m.want, w) {
				m.want = append(m.want, w)
			}
		}
	}
	// Values first, then types, so a list of names reads as one.
	slices.SortStableFunc(m.want, func(a, b string) int {
		return boolInt(a == typeName(a)) - boolInt(b == typeName(b))
	})
	return m, true
}

// leaf converts one error of the library's into a problem.
func leaf(e *jsonschema.ValidationError) problem {
	p := problem{at: e.InstanceLocation, size: 1}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		p.size = max(1, len(k.Missing))
	case *kind.AdditionalProperties:
		p.size = max(1, len(k.Properties))
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Type:
		p.want, p.got = k.Want, k.Got
	case *kind.Enum:
		for _, w := range k.Want {
			p.want = append(p.want, display(w))
		}
		p.got, p.variant = display(k.Got), len(k.Want) == 1
	case *kind.Const:
		p.want, p.got, p.variant = []string{display(k.Want)}, display(k.Got), true
	default:
		if out := e.BasicOutput(); out != nil && out.Error != nil {
			p.msg = out.Error.String()
		} else {
			p.msg = "invalid value"
		}
	}
	return p
}

// typeName returns s if it is a JSON Schema type name, which is how shape
// problems list types (values are JSON-encoded, so a string value is
// quoted and never equals one).
func typeName(s string) string {
	switch s {
	case "null", "boolean", "object", "array", "number", "string", "integer":
		return s
	}
	return ""
}

func display(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return truncate(string(b), maxGotRunes)
}

func size(probs []problem) int {
	n := 0
	for _, p := range probs {
		n += p.size
	}
	return n
}

func maxDepth(probs []problem) int {
	d := 0
	for _, p := range probs {
		d = max(d, len(p.at))
	}
	return d
}

func location(path []string) string {
	if len(path) == 0 {
		return "the top level"
	}
	return pointer(path)
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

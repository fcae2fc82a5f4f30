package yamlcheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Schema is a compiled JSON Schema (draft 2020-12) that a Document's value
// is checked against, with its tree kept to say which fields a place
// allows.
type Schema struct {
	noun  string
	tree  map[string]any
	sch   *jsonschema.Schema
	lists map[string]bool
}

// Explain words a failed schema keyword the way a format wants, or says
// (ok false) that the shared wording will do. It is asked about every
// error of the tree, leaves and the errors that group them, before their
// causes.
type Explain func(e *jsonschema.ValidationError) (issues []Issue, ok bool)

// CompileSchema compiles doc, a schema whose $id is url. noun names the
// file's content in messages ("workflow"). The schema may refer only to
// itself: compiling never reads a file or the network.
func CompileSchema(url string, doc []byte, noun string) (*Schema, error) {
	s := &Schema{noun: noun, lists: map[string]bool{}}
	if err := json.Unmarshal(doc, &s.tree); err != nil {
		return nil, fmt.Errorf("%s: read the schema: %w", noun, err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("%s: read the schema: %w", noun, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader(url))
	if err := c.AddResource(url, v); err != nil {
		return nil, fmt.Errorf("%s: add the schema: %w", noun, err)
	}
	if s.sch, err = c.Compile(url); err != nil {
		return nil, fmt.Errorf("%s: compile the schema: %w", noun, err)
	}
	s.findLists(s.tree)
	return s, nil
}

// Validate checks v (as JSONValue made it) and returns the validator's
// own error, for tests; Check says the same in a user's words.
func (s *Schema) Validate(v any) error { return s.sch.Validate(v) }

// refuseLoader keeps compiling off the network and the file system: the
// draft 2020-12 metaschema is built into the library.
type refuseLoader string

func (l refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("refusing to load %q: only the schema %s is available", url, string(l))
}

// Check validates v, a Document's Value, and says what is wrong, each
// issue at its path. explain may be nil.
func (s *Schema) Check(v any, explain Explain) []Issue {
	err := s.sch.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Issue{{Msg: err.Error()}}
	}
	var issues []Issue
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if explain != nil {
			if is, ok := explain(e); ok {
				issues = append(issues, is...)
				return
			}
		}
		if len(e.Causes) == 0 {
			issues = append(issues, s.leafIssues(e)...)
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return issues
}

// At prefixes msg with path written as a person would, lists as lists.
func (s *Schema) At(path []string, msg string) string {
	return At(path, msg, s.IsList)
}

// IsList reports whether a field of that name holds a list anywhere in
// the schema.
func (s *Schema) IsList(field string) bool { return s.lists[field] }

// leafIssues says what one failed schema keyword means, in words any
// format may use.
func (s *Schema) leafIssues(e *jsonschema.ValidationError) []Issue {
	path := e.InstanceLocation
	one := func(msg string) []Issue { return []Issue{{Path: path, Msg: s.At(path, msg)}} }
	switch k := e.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		allowed := s.FieldsAt(path)
		var out []Issue
		for _, prop := range k.Properties {
			p := append(slices.Clone(path), prop)
			out = append(out, Issue{Path: p, Key: true, Msg: s.At(path, UnknownFieldMessage(prop, allowed))})
		}
		return out
	case *kind.Required:
		var out []Issue
		for _, f := range k.Missing {
			out = append(out, Issue{Path: path, Msg: s.At(path, "missing "+f)})
		}
		return out
	case *kind.Type:
		if len(path) == 0 {
			return one(fmt.Sprintf("a %s file is a mapping of fields; got %s", s.noun, TypeName(k.Got)))
		}
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = TypeName(w)
		}
		return one("expected " + strings.Join(want, " or ") + ", got " + TypeName(k.Got))
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = fmt.Sprint(w)
		}
		return one(EnumMessage(fmt.Sprint(k.Got), want))
	case *kind.Minimum:
		return one(fmt.Sprintf("must be at least %s, got %s", RatString(k.Want), RatString(k.Got)))
	case *kind.Maximum:
		return one(fmt.Sprintf("must be at most %s, got %s", RatString(k.Want), RatString(k.Got)))
	case *kind.MinItems:
		noun := "entries"
		if k.Want == 1 {
			noun = "entry"
		}
		return one(fmt.Sprintf("needs at least %d %s", k.Want, noun))
	case *kind.MinLength:
		return one("must not be empty")
	case *kind.MaxLength:
		return one(fmt.Sprintf("must be at most %d characters, got %d", k.Want, k.Got))
	case *kind.UniqueItems:
		return []Issue{{Path: append(slices.Clone(path), strconv.Itoa(k.Duplicates[1])),
			Msg: s.At(path, fmt.Sprintf("lists the same entry twice (items %d and %d)", k.Duplicates[0]+1, k.Duplicates[1]+1))}}
	case *kind.InvalidJsonValue:
		return one(fmt.Sprintf("not a value a %s can hold (infinite or not a number?)", s.noun))
	}
	return one(e.ErrorKind.LocalizedString(message.NewPrinter(language.English)))
}

// RatString writes a number as a file would: 2, 0.5.
func RatString(r *big.Rat) string {
	if r.IsInt() {
		return r.RatString()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// FieldsAt lists the fields the schema allows at path, sorted.
func (s *Schema) FieldsAt(path []string) []string {
	node := s.resolve(s.tree)
	for _, tok := range path {
		props, _ := node["properties"].(map[string]any)
		switch next := props[tok]; {
		case next != nil:
			node = s.resolve(next)
		case node["additionalProperties"] != nil && node["additionalProperties"] != false:
			node = s.resolve(node["additionalProperties"])
		case node["items"] != nil && isIndex(tok):
			node = s.resolve(node["items"])
		default:
			return nil
		}
	}
	props, _ := node["properties"].(map[string]any)
	return slices.Sorted(maps.Keys(props))
}

// resolve follows a schema node's $ref within the schema.
func (s *Schema) resolve(v any) map[string]any {
	node, _ := v.(map[string]any)
	for range 8 {
		ref, ok := node["$ref"].(string)
		if !ok {
			break
		}
		defs, _ := s.tree["$defs"].(map[string]any)
		node, _ = defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
	}
	return node
}

// findLists records the properties whose value is a list, anywhere in v.
func (s *Schema) findLists(v any) {
	switch n := v.(type) {
	case map[string]any:
		if props, ok := n["properties"].(map[string]any); ok {
			for name, p := range props {
				if node := s.resolve(p); node["type"] == "array" || node["items"] != nil {
					s.lists[name] = true
				}
			}
		}
		for _, e := range n {
			s.findLists(e)
		}
	case []any:
		for _, e := range n {
			s.findLists(e)
		}
	}
}

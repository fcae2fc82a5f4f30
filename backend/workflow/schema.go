package workflow

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

// SchemaURL is the $id of the workflow schema: the address of
// workflow.schema.json on the main branch, for editors. It is the name the
// schema is compiled under and is never fetched.
const SchemaURL = "https://raw.githubusercontent.com/agentdeck/agentdeck/main/backend/workflow/workflow.schema.json"

// workflow.schema.json, shipped for editors, is Schema written out:
// TestSchemaFile fails when it differs, and with -update rewrites it, as
// TestDocsKinds does the table of kinds in docs/WORKFLOWS.md. After
// changing an executor's spec, run go generate ./backend/workflow.
//
//go:generate go test -run TestSchemaFile|TestDocsKinds -update

// Schema returns the JSON Schema (draft 2020-12) of a workflow file, for
// editors and for the app to write next to the user's files: the schema
// the app checks files against, made from the registered executors' specs
// (schemagen.go). The caller may keep or change the returned copy.
func Schema() []byte {
	return generateSchema(executors())
}

// schemaSet is the schema of one registry: its text, its tree (for the
// fields allowed at a place) and the compiled validator. It is made on
// first use: compiling takes longer than checking a file.
type schemaSet struct {
	doc  []byte
	tree map[string]any
	sch  *jsonschema.Schema
}

func newSchemaSet(r *registry) (*schemaSet, error) {
	set := &schemaSet{doc: generateSchema(r)}
	if err := json.Unmarshal(set.doc, &set.tree); err != nil {
		return nil, fmt.Errorf("workflow: read the schema: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(set.doc))
	if err != nil {
		return nil, fmt.Errorf("workflow: read the schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	if err := c.AddResource(SchemaURL, doc); err != nil {
		return nil, fmt.Errorf("workflow: add the schema: %w", err)
	}
	if set.sch, err = c.Compile(SchemaURL); err != nil {
		return nil, fmt.Errorf("workflow: compile the schema: %w", err)
	}
	return set, nil
}

// compiledSchema is the validator of the registered executors' schema.
func compiledSchema() (*jsonschema.Schema, error) {
	set, err := executors().schema()
	if err != nil {
		return nil, err
	}
	return set.sch, nil
}

// refuseLoader keeps compiling off the network and the file system: the
// schema refers only to itself, and the draft 2020-12 metaschema is built
// into the library.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("workflow: refusing to load %q: only the workflow schema is available", url)
}

// schemaIssues checks a decoded file against the schema. v is the file as
// jsonValue made it.
func schemaIssues(v any) []issue {
	sch, err := compiledSchema()
	if err != nil {
		return []issue{{msg: err.Error()}}
	}
	err = sch.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []issue{{msg: err.Error()}}
	}
	var issues []issue
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if pn, ok := e.ErrorKind.(*kind.PropertyNames); ok {
			// Only agents restricts its keys. The error's own instance
			// location is not reliable (the validator reuses its array).
			issues = append(issues, issue{path: []string{"agents", pn.Property}, key: true, msg: agentNameMessage(pn.Property)})
			return
		}
		if len(e.Causes) == 0 {
			issues = append(issues, leafIssues(e, v)...)
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return issues
}

// leafIssues says what one failed schema keyword means for the user.
func leafIssues(e *jsonschema.ValidationError, root any) []issue {
	path := e.InstanceLocation
	field := ""
	if len(path) > 0 {
		field = path[len(path)-1]
	}
	one := func(msg string) []issue { return []issue{{path: path, msg: at(path, msg)}} }
	switch k := e.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		allowed := fieldsAt(path)
		var out []issue
		for _, prop := range k.Properties {
			p := append(slices.Clone(path), prop)
			out = append(out, issue{path: p, key: true, msg: at(path, unknownFieldMessage(prop, allowed))})
		}
		return out
	case *kind.Required:
		var out []issue
		for _, f := range k.Missing {
			out = append(out, issue{path: path, msg: at(path, missingMessage(path, f, root))})
		}
		return out
	case *kind.Type:
		return one(typeMessage(path, k))
	case *kind.Enum:
		if field == "kind" && len(path) > 1 && k.Got == string(KindPipeline) {
			return one("a stage cannot itself be a pipeline; use one of " + strings.Join(executors().kindNames(false), ", "))
		}
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = fmt.Sprint(w)
		}
		return one(enumMessage(fmt.Sprint(k.Got), want))
	case *kind.Pattern:
		switch field {
		case "name":
			return one(nameMessage(k.Got))
		case "timeout":
			return one(fmt.Sprintf("%q is not a duration: %s", k.Got, durationHint))
		}
		return one(agentNameMessage(k.Got))
	case *kind.Minimum:
		return one(fmt.Sprintf("must be at least %s, got %s", ratString(k.Want), ratString(k.Got)))
	case *kind.Maximum:
		return one(fmt.Sprintf("must be at most %s, got %s", ratString(k.Want), ratString(k.Got)))
	case *kind.MinItems:
		return one(fmt.Sprintf("needs at least %d %s", k.Want, plural(k.Want, itemNoun(field))))
	case *kind.MinProperties, *kind.MaxProperties:
		if field == "pass_check" {
			return one(passCheckHint)
		}
	case *kind.MinLength:
		return one("must not be empty")
	case *kind.MaxLength:
		return one(fmt.Sprintf("must be at most %d characters, got %d", k.Want, k.Got))
	case *kind.UniqueItems:
		return []issue{{path: append(slices.Clone(path), strconv.Itoa(k.Duplicates[1])),
			msg: at(path, fmt.Sprintf("lists the same entry twice (items %d and %d)", k.Duplicates[0]+1, k.Duplicates[1]+1))}}
	case *kind.InvalidJsonValue:
		return one("not a value a workflow can hold (infinite or not a number?)")
	}
	return one(e.ErrorKind.LocalizedString(message.NewPrinter(language.English)))
}

// typeMessage says what type was expected at path, and what was found.
func typeMessage(path []string, k *kind.Type) string {
	if len(path) == 0 {
		return "a workflow file is a mapping of fields such as name, kind and agents; got " + typeName(k.Got)
	}
	if slices.Equal(k.Want, []string{"integer", "string"}) || slices.Equal(k.Want, []string{"string", "integer"}) {
		return durationHint + ", got " + typeName(k.Got)
	}
	want := make([]string, len(k.Want))
	for i, w := range k.Want {
		want[i] = typeName(w)
	}
	return "expected " + strings.Join(want, " or ") + ", got " + typeName(k.Got)
}

// ratString writes a number as the file would: 2, 0.5.
func ratString(r *big.Rat) string {
	if r.IsInt() {
		return r.RatString()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// missingMessage explains a missing required field at path.
func missingMessage(path []string, field string, root any) string {
	switch field {
	case "name":
		return `missing name: every workflow needs a name such as "my-workflow"`
	case "kind":
		return "missing kind: one of " + strings.Join(executors().kindNames(len(path) == 0), ", ")
	case "phases":
		return "a pipeline workflow needs phases, each with a list of stages"
	case "stages":
		return "a phase needs stages: a list of at least one stage"
	}
	obj, _ := valueAt(root, path).(map[string]any)
	k, _ := obj["kind"].(string)
	return missingRoleMessage(Kind(k), len(path) == 0, field)
}

// missingRoleMessage says that a kind needs a role, and what the role is.
func missingRoleMessage(k Kind, top bool, field string) string {
	noun := "stage"
	if top {
		noun = "workflow"
	}
	msg := fmt.Sprintf("%s %s needs %s", withArticle(string(k)), noun, field)
	if s := executors().lookup(k); s != nil {
		if rl, ok := s.role(field); ok {
			what := "the name of "
			if rl.list {
				what = "a list of "
			}
			msg += ": " + what + rl.doc
		}
	}
	return msg
}

// valueAt returns the value at path in a jsonValue tree, or nil.
func valueAt(v any, path []string) any {
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

// fieldsAt lists the fields the schema allows at path, sorted.
func fieldsAt(path []string) []string {
	set, err := executors().schema()
	if err != nil {
		return nil
	}
	node := set.resolve(set.tree)
	for _, tok := range path {
		props, _ := node["properties"].(map[string]any)
		switch next := props[tok]; {
		case next != nil:
			node = set.resolve(next)
		case node["additionalProperties"] != nil && node["additionalProperties"] != false:
			node = set.resolve(node["additionalProperties"])
		case node["items"] != nil && isIndex(tok):
			node = set.resolve(node["items"])
		default:
			return nil
		}
	}
	props, _ := node["properties"].(map[string]any)
	return slices.Sorted(maps.Keys(props))
}

// resolve follows a schema node's $ref within the schema.
func (set *schemaSet) resolve(v any) map[string]any {
	node, _ := v.(map[string]any)
	for range 8 {
		ref, ok := node["$ref"].(string)
		if !ok {
			break
		}
		defs, _ := set.tree["$defs"].(map[string]any)
		node, _ = defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
	}
	return node
}

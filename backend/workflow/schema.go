package workflow

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentdeck/agentdeck/backend/yamlcheck"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
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
//go:generate go test -run TestSchemaFile|TestDocsKinds|TestDocsInstructedAgents -update

// Schema returns the JSON Schema (draft 2020-12) of a workflow file, for
// editors and for the app to write next to the user's files: the schema
// the app checks files against, made from the registered executors' specs
// (schemagen.go). The caller may keep or change the returned copy.
func Schema() []byte {
	return generateSchema(executors())
}

// schemaSet is the schema of one registry: its text and its compiled
// form. It is made on first use: compiling takes longer than checking a
// file.
type schemaSet struct {
	doc []byte
	sch *yamlcheck.Schema
}

func newSchemaSet(r *registry) (*schemaSet, error) {
	set := &schemaSet{doc: generateSchema(r)}
	var err error
	set.sch, err = yamlcheck.CompileSchema(SchemaURL, set.doc, "workflow")
	return set, err
}

// compiledSchema is the registered executors' schema.
func compiledSchema() (*yamlcheck.Schema, error) {
	set, err := executors().schema()
	if err != nil {
		return nil, err
	}
	return set.sch, nil
}

// schemaIssues checks a decoded file against the schema. v is the file as
// yamlcheck.Read made it.
func schemaIssues(v any) []issue {
	sch, err := compiledSchema()
	if err != nil {
		return []issue{{Msg: err.Error()}}
	}
	return sch.Check(v, func(e *jsonschema.ValidationError) ([]issue, bool) { return explain(e, v) })
}

// explain words the schema's errors that a workflow says its own way; the
// rest yamlcheck words.
func explain(e *jsonschema.ValidationError, root any) ([]issue, bool) {
	if pn, ok := e.ErrorKind.(*kind.PropertyNames); ok {
		// Only agents restricts its keys. The error's own instance
		// location is not reliable (the validator reuses its array).
		return []issue{{Path: []string{"agents", pn.Property}, Key: true, Msg: agentNameMessage(pn.Property)}}, true
	}
	path := e.InstanceLocation
	field := ""
	if len(path) > 0 {
		field = path[len(path)-1]
	}
	one := func(msg string) ([]issue, bool) { return []issue{{Path: path, Msg: at(path, msg)}}, true }
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		var out []issue
		for _, f := range k.Missing {
			out = append(out, issue{Path: path, Msg: at(path, missingMessage(path, f, root))})
		}
		return out, true
	case *kind.Type:
		return one(typeMessage(path, k))
	case *kind.Enum:
		if field == "kind" && len(path) > 1 && k.Got == string(KindPipeline) {
			return one("a stage cannot itself be a pipeline; use one of " + strings.Join(executors().kindNames(false), ", "))
		}
	case *kind.Pattern:
		switch field {
		case "name":
			return one(nameMessage(k.Got))
		case "timeout":
			return one(fmt.Sprintf("%q is not a duration: %s", k.Got, durationHint))
		}
		return one(agentNameMessage(k.Got))
	case *kind.MinItems:
		return one(fmt.Sprintf("needs at least %d %s", k.Want, plural(k.Want, itemNoun(field))))
	case *kind.MinProperties, *kind.MaxProperties:
		if field == "pass_check" {
			return one(passCheckHint)
		}
	}
	return nil, false
}

// typeMessage says what type was expected at path, and what was found.
func typeMessage(path []string, k *kind.Type) string {
	if len(path) == 0 {
		return "a workflow file is a mapping of fields such as name, kind and agents; got " + yamlcheck.TypeName(k.Got)
	}
	if slices.Equal(k.Want, []string{"integer", "string"}) || slices.Equal(k.Want, []string{"string", "integer"}) {
		return durationHint + ", got " + yamlcheck.TypeName(k.Got)
	}
	want := make([]string, len(k.Want))
	for i, w := range k.Want {
		want[i] = yamlcheck.TypeName(w)
	}
	return "expected " + strings.Join(want, " or ") + ", got " + yamlcheck.TypeName(k.Got)
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
	obj, _ := yamlcheck.ValueAt(root, path).(map[string]any)
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

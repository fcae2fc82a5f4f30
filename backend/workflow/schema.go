package workflow

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// SchemaURL is the $id of the workflow schema: the address of
// workflow.schema.json on the main branch, for editors. It is the name the
// embedded schema is compiled under and is never fetched.
const SchemaURL = "https://raw.githubusercontent.com/agentdeck/agentdeck/main/backend/workflow/workflow.schema.json"

//go:embed workflow.schema.json
var schemaJSON []byte

// Schema returns the JSON Schema (draft 2020-12) of a workflow file, for
// editors and for the app to write next to the user's files. The caller may
// keep or change the returned copy.
func Schema() []byte {
	return bytes.Clone(schemaJSON)
}

// compiledSchema is compiled once, on first use: compiling takes longer
// than checking a file, and the compiled schema is never changed after.
var compiledSchema = sync.OnceValues(compileSchema)

func compileSchema() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, fmt.Errorf("workflow: read the embedded schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	if err := c.AddResource(SchemaURL, doc); err != nil {
		return nil, fmt.Errorf("workflow: add the embedded schema: %w", err)
	}
	sch, err := c.Compile(SchemaURL)
	if err != nil {
		return nil, fmt.Errorf("workflow: compile the embedded schema: %w", err)
	}
	return sch, nil
}

// refuseLoader keeps compiling off the network and the file system: the
// schema refers only to itself, and the draft 2020-12 metaschema is built
// into the library.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("workflow: refusing to load %q: only the embedded schema is available", url)
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
			return one("a stage cannot itself be a pipeline; use one of " + strings.Join(kindNames(false), ", "))
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
		return "missing kind: one of " + strings.Join(kindNames(len(path) == 0), ", ")
	case "phases":
		return "a pipeline workflow needs phases, each with a list of stages"
	case "stages":
		return "a phase needs stages: a list of at least one stage"
	}
	obj, _ := valueAt(root, path).(map[string]any)
	k, _ := obj["kind"].(string)
	return missingRoleMessage(Kind(k), len(path) == 0, field)
}

func missingRoleMessage(k Kind, top bool, field string) string {
	noun := "stage"
	if top {
		noun = "workflow"
	}
	return fmt.Sprintf("a %s %s needs %s: %s", k, noun, field, roleHelp[field])
}

// roleHelp says what each agent role does, for messages.
var roleHelp = map[string]string{
	"agent":       "the name of the agent that answers",
	"writer":      "the name of the agent that writes the first draft",
	"critic":      "the name of the agent that judges each draft",
	"planner":     "the name of the agent that makes the plan",
	"executor":    "the name of the agent that carries out each step",
	"triage":      "the name of the agent that reads the request first",
	"specialists": "a list of the agents triage may hand the conversation to",
}

func kindNames(pipeline bool) []string {
	names := []string{string(KindChat), string(KindCritiqueRevise), string(KindPlanExecute), string(KindReflection), string(KindHandoff)}
	if pipeline {
		names = append(names, string(KindPipeline))
	}
	return names
}

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
	case "specialists":
		return "specialist"
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

// fieldsAt lists the fields the file format allows at path, read from the
// yaml tags of the types a file decodes into.
func fieldsAt(path []string) []string {
	t := reflect.TypeFor[Definition]()
	for _, tok := range path {
		t = deref(t)
		switch t.Kind() {
		case reflect.Struct:
			f, ok := fieldByYAMLName(t, tok)
			if !ok {
				return nil
			}
			t = f.Type
		case reflect.Map, reflect.Slice:
			t = t.Elem()
		default:
			return nil
		}
	}
	t = deref(t)
	if t.Kind() != reflect.Struct {
		return nil
	}
	var names []string
	collectYAMLNames(t, &names)
	slices.Sort(names)
	return slices.Compact(names)
}

// allFieldNames lists every field name of the file format.
func allFieldNames() []string {
	var names []string
	for _, t := range []reflect.Type{reflect.TypeFor[Definition](), reflect.TypeFor[AgentDef](), reflect.TypeFor[Limits](),
		reflect.TypeFor[Phase](), reflect.TypeFor[Condition](), reflect.TypeFor[Validation](),
		reflect.TypeFor[PassCheck](), reflect.TypeFor[PostPassCheck]()} {
		collectYAMLNames(t, &names)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func yamlName(f reflect.StructField) (name string, inline bool) {
	tag := f.Tag.Get("yaml")
	name, opts, _ := strings.Cut(tag, ",")
	if strings.Contains(","+opts+",", ",inline,") {
		return "", true
	}
	if name == "-" || !f.IsExported() {
		return "", false
	}
	if name == "" {
		name = strings.ToLower(f.Name)
	}
	return name, false
}

func collectYAMLNames(t reflect.Type, names *[]string) {
	for f := range t.Fields() {
		name, inline := yamlName(f)
		switch {
		case inline:
			collectYAMLNames(deref(f.Type), names)
		case name != "":
			*names = append(*names, name)
		}
	}
}

func fieldByYAMLName(t reflect.Type, want string) (reflect.StructField, bool) {
	for f := range t.Fields() {
		name, inline := yamlName(f)
		if inline {
			if g, ok := fieldByYAMLName(deref(f.Type), want); ok {
				return g, true
			}
			continue
		}
		if name == want {
			return f, true
		}
	}
	return reflect.StructField{}, false
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
		if i > 0 && isIndex(tok) && listFields[path[i-1]] {
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

// listFields are the fields whose values are lists.
var listFields = map[string]bool{"phases": true, "stages": true, "specialists": true, "tools": true}

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

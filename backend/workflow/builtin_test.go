package workflow

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// docsDir holds the commented examples of the built-ins.
const docsDir = "../../docs/workflows"

func builtinFiles(tb testing.TB) []string {
	tb.Helper()
	names, err := fs.Glob(builtinFS, "builtin/*.yaml")
	if err != nil || len(names) == 0 {
		tb.Fatalf("no built-in files: %v", err)
	}
	return names
}

func TestBuiltins(t *testing.T) {
	defs := Builtins()
	kinds := map[Kind]string{}
	for _, d := range defs {
		if d.Source != "" {
			t.Errorf("%s: Source = %q, want none", d.Name, d.Source)
		}
		if ps := d.Validate(); len(ps) > 0 {
			t.Errorf("%s: %v", d.Name, ps)
		}
		if d.Description == "" {
			t.Errorf("%s has no description", d.Name)
		}
		for name, a := range d.Agents {
			if len(a.SystemPrompt) < 200 {
				t.Errorf("%s: agent %s has a thin system prompt (%d bytes)", d.Name, name, len(a.SystemPrompt))
			}
		}
		kinds[d.Kind] = d.Name
	}
	want := map[Kind]string{
		KindChat: "chat", KindCritiqueRevise: "critique-revise", KindPlanExecute: "plan-execute",
		KindReflection: "reflection", KindHandoff: "handoff", KindPipeline: "research-report",
	}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("built-ins by kind = %v, want %v", kinds, want)
	}
	if len(defs) != len(builtinFiles(t)) {
		t.Errorf("%d built-ins from %d files", len(defs), len(builtinFiles(t)))
	}
}

// The prompts ask for what the executors parse.
func TestBuiltinPrompts(t *testing.T) {
	defs := Builtins()
	prompt := func(wf, agent string) string {
		t.Helper()
		d, ok := Lookup(defs, wf)
		if !ok {
			t.Fatalf("no built-in %s", wf)
		}
		a, ok := d.Agents[agent]
		if !ok {
			t.Fatalf("%s has no agent %s", wf, agent)
		}
		return a.SystemPrompt
	}
	tests := []struct {
		wf, agent string
		want      []string
	}{
		{"chat", "assistant", []string{"update_plan", "render_chart"}},
		{"critique-revise", "critic", []string{`{"passed": true or false, "score": a number from 0 to 1, "feedback": "..."}`}},
		{"plan-execute", "planner", []string{`{"steps": [{"title": "..."}`}},
		{"reflection", "reviewer", []string{`"passed"`, `"score"`, `"feedback"`}},
		{"handoff", "triage", []string{"transfer_to_data_analyst", "transfer_to_writer"}},
		{"research-report", "editor", []string{`"passed"`}},
	}
	for _, tt := range tests {
		p := prompt(tt.wf, tt.agent)
		for _, w := range tt.want {
			if !strings.Contains(p, w) {
				t.Errorf("%s/%s prompt lacks %q", tt.wf, tt.agent, w)
			}
		}
	}
	chat, _ := Lookup(defs, "chat")
	if tools := chat.Agents["assistant"].Tools; !slices.Equal(tools, []string{"*"}) {
		t.Errorf("chat assistant tools = %v, want [*]", tools)
	}
}

func TestBuiltinPipelinePolicies(t *testing.T) {
	d, _ := Lookup(Builtins(), "research-report")
	var phases []string
	var skip, validate, cont bool
	for _, ph := range d.Phases {
		phases = append(phases, ph.Name)
		for _, st := range ph.Stages {
			skip = skip || st.SkipIf != nil
			validate = validate || st.Validate != nil
			cont = cont || st.OnFailure == "continue"
		}
	}
	if !slices.Equal(phases, []string{"research", "write"}) || !skip || !validate || !cont {
		t.Errorf("phases %v, skip_if %v, validate %v, on_failure continue %v", phases, skip, validate, cont)
	}
}

func TestBuiltinsAreFresh(t *testing.T) {
	a := Builtins()
	a[0].Name = "changed"
	a[0].Agents = nil
	if b := Builtins(); b[0].Name == "changed" || b[0].Agents == nil {
		t.Error("Builtins shares state between calls")
	}
}

// TestBuiltinsDecodeAsParsed: the copies Builtins decodes from JSON are
// the definitions the files parse to, field for field.
func TestBuiltinsDecodeAsParsed(t *testing.T) {
	parsed, copies := parseBuiltins(), Builtins()
	if len(parsed) != len(copies) || len(parsed) < 5 {
		t.Fatalf("%d parsed, %d copies", len(parsed), len(copies))
	}
	for i := range parsed {
		if !reflect.DeepEqual(parsed[i], copies[i]) {
			t.Errorf("%s decodes differently:\nparsed %+v\ncopy   %+v", parsed[i].Name, parsed[i], copies[i])
		}
	}
}

func TestBuiltinLookup(t *testing.T) {
	user := &Definition{Name: "chat", Source: "mine.yaml"}
	defs := append(Builtins(), nil, user)
	if d, ok := Lookup(defs, "chat"); !ok || d != user {
		t.Errorf("Lookup(chat) = %v, %v; want the user's file, which comes last", d, ok)
	}
	if d, ok := Lookup(defs, "handoff"); !ok || d.Name != "handoff" {
		t.Errorf("Lookup(handoff) = %v, %v", d, ok)
	}
	if _, ok := Lookup(defs, "nope"); ok {
		t.Error("Lookup(nope) found something")
	}
}

// A built-in's JSON form is a valid file: it passes the schema and parses
// back to the same definition.
func TestBuiltinJSONRoundTrip(t *testing.T) {
	sch, err := compiledSchema()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range Builtins() {
		data, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(v); err != nil {
			t.Errorf("%s: JSON form fails the schema: %v", d.Name, err)
			continue
		}
		back, err := Parse(d.Name+".json", data)
		if err != nil {
			t.Errorf("%s: JSON form does not parse: %v", d.Name, err)
			continue
		}
		back.Source = ""
		if !reflect.DeepEqual(back, d) {
			t.Errorf("%s: JSON round trip changed the definition", d.Name)
		}
	}
}

func TestSchemaCompiles(t *testing.T) {
	if _, err := newSchemaSet(executors()); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(Schema(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" || doc["$id"] != SchemaURL {
		t.Errorf("$schema %v, $id %v", doc["$schema"], doc["$id"])
	}
	s := Schema()
	s[0] = 'x'
	if Schema()[0] == 'x' {
		t.Error("Schema returns the embedded bytes, not a copy")
	}
}

// The schema and the Go types (with the executors' fields, which a Stage
// holds in its maps) describe the same fields, and every object in the
// schema is closed.
func TestSchemaMatchesTypes(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(Schema(), &doc); err != nil {
		t.Fatal(err)
	}
	defs := doc["$defs"].(map[string]any)
	props := func(obj any) []string {
		var names []string
		for k := range obj.(map[string]any)["properties"].(map[string]any) {
			names = append(names, k)
		}
		slices.Sort(names)
		return names
	}
	tests := []struct {
		name   string
		schema any
		path   []string // where fieldsAt finds the Go type
		drop   []string // Go fields a file may not set there
	}{
		{"workflow", doc, nil, []string{}},
		{"agent", defs["agent"], []string{"agents", "x"}, nil},
		{"limits", defs["limits"], []string{"agents", "x", "limits"}, nil},
		{"phase", defs["phase"], []string{"phases", "0"}, nil},
		{"stage", defs["stage"], []string{"phases", "0", "stages", "0"}, nil},
		{"condition", defs["condition"], []string{"skip_if"}, nil},
		{"validation", defs["validation"], []string{"validate"}, nil},
		{"passCheck", defs["passCheck"], []string{"pass_check"}, nil},
		{"postPassCheck", defs["postPassCheck"], []string{"post_pass_check"}, nil},
	}
	for _, tt := range tests {
		goFields := goFieldsAt(tt.path)
		if got := props(tt.schema); !slices.Equal(got, goFields) {
			t.Errorf("%s: schema properties %v, Go fields %v", tt.name, got, goFields)
		}
		if ap, ok := tt.schema.(map[string]any)["additionalProperties"]; !ok || ap != false {
			t.Errorf("%s: additionalProperties is %v, want false", tt.name, ap)
		}
	}
}

func TestDocWorkflows(t *testing.T) {
	defs, problems := LoadDir(docsDir)
	for _, p := range problems {
		t.Error(p)
	}
	files, _ := filepath.Glob(filepath.Join(docsDir, "*.yaml"))
	if len(defs) != len(files) || len(files) == 0 {
		t.Fatalf("loaded %d of %d files in %s", len(defs), len(files), docsDir)
	}
	for _, d := range defs {
		if ps := d.Validate(); len(ps) > 0 {
			t.Errorf("%s: %v", d.Source, ps)
		}
		data, err := os.ReadFile(d.Source)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte("# yaml-language-server: $schema=")) {
			t.Errorf("%s does not point editors at the schema", d.Source)
		}
	}
}

// Each built-in has a commented copy in docs/workflows that says the same.
func TestDocWorkflowsMatchBuiltins(t *testing.T) {
	docs, _ := LoadDir(docsDir)
	for _, b := range Builtins() {
		d, ok := Lookup(docs, b.Name)
		if !ok {
			t.Errorf("docs/workflows has no %s.yaml", b.Name)
			continue
		}
		if base := path.Base(filepath.ToSlash(d.Source)); base != b.Name+".yaml" {
			t.Errorf("%s is documented in %s, want %s.yaml", b.Name, base, b.Name)
		}
		cp := *d
		cp.Source = ""
		if !reflect.DeepEqual(&cp, b) {
			got, _ := json.MarshalIndent(&cp, "", "  ")
			want, _ := json.MarshalIndent(b, "", "  ")
			t.Errorf("%s differs from the built-in:\n%s\nwant\n%s", d.Source, got, want)
		}
	}
}

// goFieldsAt lists the fields the Go types a file decodes into allow at
// path: their yaml tags, and at a stage the executors' fields.
func goFieldsAt(path []string) []string {
	t := reflect.TypeFor[Definition]()
	for _, tok := range path {
		t = derefType(t)
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
	t = derefType(t)
	if t.Kind() != reflect.Struct {
		return nil
	}
	var names []string
	collectYAMLNames(t, &names)
	if t == reflect.TypeFor[Definition]() || t == reflect.TypeFor[Stage]() {
		names = append(names, executors().fieldNames()...)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

func derefType(t reflect.Type) reflect.Type {
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
			collectYAMLNames(derefType(f.Type), names)
		case name != "":
			*names = append(*names, name)
		}
	}
}

func fieldByYAMLName(t reflect.Type, want string) (reflect.StructField, bool) {
	for f := range t.Fields() {
		name, inline := yamlName(f)
		if inline {
			if g, ok := fieldByYAMLName(derefType(f.Type), want); ok {
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

package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/yamlcheck"
)

// update rewrites suite.schema.json from Schema:
//
//	go test ./backend/eval -run '^TestSchemaFile$' -update
var update = flag.Bool("update", false, "rewrite suite.schema.json")

const (
	schemaFile  = "suite.schema.json"
	exampleFile = "example/example.yaml"
)

// good is a valid suite; cases append to it or change it.
const good = `name: capitals
models: [openai/gpt-4o-mini]
cases:
  - prompt: What is the capital of {{country}}?
    vars: {country: France}
    assert:
      - contains: Paris
`

// The schema shipped for editors is the one Parse checks against.
func TestSchemaFile(t *testing.T) {
	got := Schema()
	if *update {
		if err := os.WriteFile(schemaFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not the schema Schema() makes; run go generate ./backend/eval", schemaFile)
	}
	if _, err := compiledSchema(); err != nil {
		t.Fatal(err)
	}
}

// Every field of the schema says what it is for: editors show it.
func TestSchemaDescriptions(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(Schema(), &doc); err != nil {
		t.Fatal(err)
	}
	var walk func(where string, node map[string]any)
	walk = func(where string, node map[string]any) {
		props, _ := node["properties"].(map[string]any)
		for name, p := range props {
			pm := p.(map[string]any)
			if _, ok := pm["description"]; !ok {
				if ref, _ := pm["$ref"].(string); ref == "" || !hasDescription(doc, ref) {
					t.Errorf("%s.%s has no description", where, name)
				}
			}
			walk(where+"."+name, pm)
		}
		if node["properties"] != nil && node["additionalProperties"] != false {
			t.Errorf("%s: additionalProperties is not false", where)
		}
	}
	walk("suite", doc)
	for name, d := range doc["$defs"].(map[string]any) {
		walk(name, d.(map[string]any))
	}
}

func hasDescription(doc map[string]any, ref string) bool {
	d := doc["$defs"].(map[string]any)[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
	_, ok := d["description"]
	return ok
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string // the first problem, whole or its start
	}{
		// Exact positions.
		{"unknown key", good + "repeats: 3\n", `s.yaml:8:1: unknown field "repeats" (did you mean "repeat"?)`},
		{"unknown assertion", strings.Replace(good, "- contains: Paris", "- contians: Paris", 1), `s.yaml:7:9: cases[0].assert[0]: unknown field "contians" (did you mean "contains"?)`},
		{"missing name", strings.Replace(good, "name: capitals\n", "", 1), `s.yaml:1:1: missing name: every suite needs a name`},
		{"bad model", strings.Replace(good, "openai/gpt-4o-mini", "gpt-4o-mini", 1), `s.yaml:2:10: models[0]: "gpt-4o-mini" is not a model as provider/model`},
		{"duplicate model", strings.Replace(good, "[openai/gpt-4o-mini]", "\n  - openai/gpt-4o-mini\n  - openai/gpt-4o-mini", 1), `s.yaml:4:5: models[1]: "openai/gpt-4o-mini" is listed twice (items 1 and 2)`},
		{"repeat too high", good + "repeat: 101\n", `s.yaml:8:9: repeat: must be at most 100, got 101`},
		{"repeat zero", good + "repeat: 0\n", `s.yaml:8:9: repeat: must be at least 1, got 0`},
		{"two kinds in one assertion", strings.Replace(good, "- contains: Paris", "- contains: Paris\n        regex: Par", 1),
			`s.yaml:7:9: cases[0].assert[0]: an assertion has exactly one of contains,`},
		{"empty assertion", strings.Replace(good, "- contains: Paris", "- {}", 1), `s.yaml:7:9: cases[0].assert[0]: an assertion needs exactly one of contains, not_contains`},
		{"no assertions", strings.Replace(good, "    assert:\n      - contains: Paris\n", "    assert: []\n", 1), `s.yaml:6:13: cases[0].assert: needs at least one assertion`},
		{"missing assert", strings.Replace(good, "    assert:\n      - contains: Paris\n", "", 1), `s.yaml:4:5: cases[0]: missing assert: a case needs at least one assertion`},
		{"prompt and messages", strings.Replace(good, "    vars:", "    messages: [{role: user, content: hi}]\n    vars:", 1), `s.yaml:5:5: cases[0]: a case needs a prompt or messages, not both`},
		{"neither prompt nor messages", "name: x\nmodels: [a/b]\ncases:\n  - assert: [{contains: a}]\n", `s.yaml:4:5: cases[0]: missing prompt: a case needs a prompt or messages`},
		{"unknown placeholder", strings.Replace(good, "{{country}}", "{{ countyr }}", 1), `s.yaml:4:13: cases[0].prompt: {{countyr}} has no var; give it under vars (vars: country); did you mean "country"?`},
		{"unused var", strings.Replace(good, "{country: France}", "{country: France, city: Paris}", 1), `s.yaml:5:29: cases[0].vars.city: var "city" is not used: no {{city}} in the prompt or messages`},
		{"bad regex", strings.Replace(good, "- contains: Paris", "- regex: '(Par'", 1), `s.yaml:7:16: cases[0].assert[0].regex: "(Par" is not a valid regular expression (Go RE2 syntax): missing closing )`},
		{"bad id", strings.Replace(good, "  - prompt:", "  - id: Capital City\n    prompt:", 1), `s.yaml:4:9: cases[0].id: "Capital City" is not a valid case id`},
		{"duplicate id", good + "  - id: case-1\n    prompt: hi\n    assert: [{contains: a}]\n", `s.yaml:8:9: cases[1].id: case id "case-1" is already used by cases[0]`},

		// The rest, by message.
		{"default id taken", "name: x\nmodels: [a/b]\ncases:\n  - id: case-2\n    prompt: a\n    assert: [{contains: a}]\n  - prompt: b\n    assert: [{contains: b}]\n",
			`s.yaml:7:5: cases[1]: this case's default id "case-2" is already used by cases[0]`},
		{"last message not the user's", strings.Replace(good, "  - prompt: What is the capital of {{country}}?\n    vars: {country: France}\n", "  - messages:\n      - {role: user, content: hi}\n      - {role: assistant, content: hello}\n", 1),
			`s.yaml:6:9: cases[0].messages[1]: the last message is the one the case sends, so it must be the user's, not "assistant"`},
		{"bad role", strings.Replace(good, "  - prompt: What is the capital of {{country}}?\n    vars: {country: France}\n", "  - messages:\n      - {role: system, content: hi}\n", 1),
			`cases[0].messages[0].role: "system" is not one of user, assistant`},
		{"placeholder in a message", strings.Replace(good, "  - prompt: What is the capital of {{country}}?\n", "  - messages:\n      - {role: user, content: 'capital of {{nation}}?'}\n", 1),
			`cases[0].messages[0].content: {{nation}} has no var`},
		{"bad matcher regex", strings.Replace(good, "- contains: Paris", "- tool_called: {name: search, args: {q: {regex: '[a-'}}}", 1),
			`cases[0].assert[0].tool_called.args.q.regex: "[a-" is not a valid regular expression`},
		{"matcher with two fields", strings.Replace(good, "- contains: Paris", "- tool_called: {name: search, args: {q: {regex: a, equals: b}}}", 1),
			`cases[0].assert[0].tool_called.args.q: an argument matcher has exactly one of equals, contains, regex; this one has equals and regex`},
		{"bad json_schema", strings.Replace(good, "- contains: Paris", "- json_schema: {type: thing}", 1),
			`cases[0].assert[0].json_schema: not a JSON Schema the answer can be checked against`},
		{"unknown measure", strings.Replace(good, "- contains: Paris", "- similar_to: {reference: Paris, measure: bleu}", 1),
			`cases[0].assert[0].similar_to.measure: "bleu" is not a known measure: token_f1 (F1 of the two texts' word tokens) is the only one for now`},
		{"threshold above 1", strings.Replace(good, "- contains: Paris", "- similar_to: {reference: Paris, threshold: 1.5}", 1),
			`cases[0].assert[0].similar_to.threshold: must be at most 1, got 1.5`},
		{"judge without rubric", strings.Replace(good, "- contains: Paris", "- judge: {model: openai/gpt-4o}", 1),
			`cases[0].assert[0].judge: missing rubric: what the critic scores the answer against`},
		{"judge model not provider/model", strings.Replace(good, "- contains: Paris", "- judge: {rubric: good, model: gpt-4o}", 1),
			`cases[0].assert[0].judge.model: "gpt-4o" is not a model as provider/model`},
		{"termination with both", strings.Replace(good, "- contains: Paris", "- termination: {is: [completed], not_limit: true}", 1),
			`cases[0].assert[0].termination: a termination rule has exactly one of is, not_limit; this one has is and not_limit`},
		{"termination with neither", strings.Replace(good, "- contains: Paris", "- termination: {not_limit: false}", 1),
			`cases[0].assert[0].termination: give is (the termination kinds that pass) or not_limit: true`},
		{"unknown termination kind", strings.Replace(good, "- contains: Paris", "- termination: {is: [timout]}", 1),
			`cases[0].assert[0].termination.is[0]: "timout" is not one of completed,`},
		{"absolute attachment", strings.Replace(good, "    vars:", "    attach: [/etc/passwd]\n    vars:", 1),
			`s.yaml:5:14: cases[0].attach[0]: "/etc/passwd" is an absolute path`},
		{"attachment outside the folder", strings.Replace(good, "    vars:", "    attach: [data/../../secret.csv]\n    vars:", 1),
			`cases[0].attach[0]: "data/../../secret.csv" leaves the suite file's folder`},
		{"wrong type", strings.Replace(good, "- contains: Paris", "- max_tokens: many", 1),
			`cases[0].assert[0].max_tokens: expected a whole number, got a string`},
		{"not a mapping", "- a\n", `s.yaml:1:1: a suite file is a mapping of fields; got a list`},
		{"empty file", "", `s.yaml: the file is empty: a suite needs at least name, models and cases`},
		{"invalid YAML", "name: x\nname: y\n", `s.yaml:2:1: invalid YAML`},
		{"JSON", "{\n  \"name\": \"x\",\n  \"models\": [\"a/b\"],\n  \"cases\": [{\"prompt\": \"hi\", \"assert\": [{\"regex\": \"(\"}]}]\n}\n",
			`s.yaml:4:51: cases[0].assert[0].regex: "(" is not a valid regular expression`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("s.yaml", []byte(tt.src))
			var ps yamlcheck.Problems
			if !errors.As(err, &ps) || len(ps) == 0 {
				t.Fatalf("got %v, want Problems", err)
			}
			if got := ps[0].Error(); !strings.HasPrefix(got, tt.want) && !strings.Contains(got, tt.want) {
				t.Errorf("got  %s\nwant %s", err, tt.want)
			}
		})
	}
}

// Every problem in a file is reported at once, in file order.
func TestParseAllProblems(t *testing.T) {
	src := "name: x\nmodels: [a/b, a/b]\ncases:\n  - prompt: '{{x}}'\n    assert: [{regex: '('}]\n"
	_, err := Parse("s.yaml", []byte(src))
	want := []string{
		`s.yaml:2:15: models[1]: "a/b" is listed twice (items 1 and 2); a model runs once per repeat`,
		`s.yaml:4:13: cases[0].prompt: {{x}} has no var; give it under vars`,
		`s.yaml:5:22: cases[0].assert[0].regex: "(" is not a valid regular expression (Go RE2 syntax): missing closing ): ` + "`(`",
	}
	if err == nil || err.Error() != strings.Join(want, "\n") {
		t.Errorf("got\n%v\nwant\n%s", err, strings.Join(want, "\n"))
	}
}

func TestParseGood(t *testing.T) {
	s, err := Parse("s.yaml", []byte(good+"  - id: second\n    messages:\n      - {role: user, content: hi}\n    assert: [{judge: {rubric: polite, model: openai/gpt-4o}}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Source != "s.yaml" || s.Repeat != 1 || len(s.Cases) != 2 || s.Cases[0].ID != "case-1" || s.Cases[1].ID != "second" {
		t.Errorf("got %+v", s)
	}
	// Round trip: the suite written as JSON parses back to itself.
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse("s.yaml", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if !reflect.DeepEqual(s, back) {
		t.Errorf("round trip changed the suite:\n got %+v\nwant %+v", back, s)
	}
}

// The example suite loads, and shows every assertion kind.
func TestExampleSuite(t *testing.T) {
	s, err := Load(exampleFile)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range s.Cases {
		for _, a := range c.Assert {
			seen[a.Kind()] = true
		}
	}
	for _, k := range assertKinds {
		if !seen[k] {
			t.Errorf("%s has no %s assertion", exampleFile, k)
		}
	}
}

func TestLoadAttachments(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("data/sales.csv", "a,b\n1,2\n")
	suite := strings.Replace(good, "    vars:", "    attach: [data/sales.csv, data/missing.csv, data]\n    vars:", 1)
	path := write("suite.yaml", suite)

	// Parse does not look for the files.
	if _, err := Parse(path, []byte(suite)); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	want := []string{
		path + `:5:30: cases[0].attach[1]: no file "data/missing.csv" in ` + dir,
		path + `:5:48: cases[0].attach[2]: "data" is a folder; attach names files`,
	}
	if err == nil || err.Error() != strings.Join(want, "\n") {
		t.Errorf("got\n%v\nwant\n%s", err, strings.Join(want, "\n"))
	}

	if _, err := Load(filepath.Join(dir, "none.yaml")); err == nil || !strings.Contains(err.Error(), "none.yaml: cannot read the file") {
		t.Errorf("missing file: got %v", err)
	}
	big := write("big.yaml", "# "+strings.Repeat("x", MaxFileSize))
	if _, err := Load(big); err == nil || !strings.Contains(err.Error(), "a suite file is at most") {
		t.Errorf("big file: got %v", err)
	}
}

func TestRender(t *testing.T) {
	s := &Suite{}
	tests := []struct {
		name        string
		c           Case
		wantPrompt  string
		wantHistory []Message
	}{
		{"prompt", Case{Prompt: "Capital of {{country}}? {{ country }}!", Vars: map[string]string{"country": "France"}}, "Capital of France? France!", nil},
		{"no placeholders", Case{Prompt: "a {b} {{ }} c", Vars: map[string]string{"x": "y"}}, "a {b} {{ }} c", nil},
		{"no vars", Case{Prompt: "{{x}}"}, "{{x}}", nil},
		{"a value is not rendered again", Case{Prompt: "{{a}}", Vars: map[string]string{"a": "{{b}}", "b": "no"}}, "{{b}}", nil},
		{"messages", Case{
			Messages: []Message{{Role: "user", Content: "hi {{name}}"}, {Role: "assistant", Content: "hello"}, {Role: "user", Content: "bye {{name}}"}},
			Vars:     map[string]string{"name": "Ada"},
		}, "bye Ada", []Message{{Role: "user", Content: "hi Ada"}, {Role: "assistant", Content: "hello"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prompt, history := s.Render(tt.c)
			if prompt != tt.wantPrompt || !reflect.DeepEqual(history, tt.wantHistory) {
				t.Errorf("got %q %v, want %q %v", prompt, history, tt.wantPrompt, tt.wantHistory)
			}
		})
	}
}

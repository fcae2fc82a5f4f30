package workflow

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/yamlcheck"
	"github.com/goccy/go-yaml"
)

// head is a valid start of a chat workflow; cases append to it.
const head = `name: demo
kind: chat
agent: helper
agents:
  helper:
    tools: ["*"]
`

// critique is a valid start of a critique-revise workflow.
const critique = `name: review
kind: critique-revise
writer: w
critic: c
agents: {w: {}, c: {}}
max_retries: 2
`

// pipe is a valid pipeline; cases change it with strings.Replace.
const pipe = `name: pipe
kind: pipeline
agents:
  a: {}
  b: {}
phases:
  - name: one
    stages:
      - name: first
        kind: chat
        agent: a
      - name: second
        kind: critique-revise
        writer: a
        critic: b
`

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		line int
		want []string // substrings of the problem on line
	}{
		{"unknown key", head + "max_retires: 3\n", 7,
			[]string{`unknown field "max_retires"`, `did you mean "max_retries"?`}},
		{"unknown key in a stage", strings.Replace(pipe, "        agent: a\n      - name: second", "        agent: a\n        on_failur: continue\n      - name: second", 1), 12,
			[]string{`phases[0].stages[0]: unknown field "on_failur"`, `did you mean "on_failure"?`}},
		{"unknown key in an agent", head + "    system_promt: hi\n", 7,
			[]string{`agents.helper: unknown field "system_promt"`, `did you mean "system_prompt"?`}},
		{"unknown key with no near match", head + "    colour: blue\n", 7,
			[]string{`agents.helper: unknown field "colour"; expected one of limits, max_tokens, model, provider, reasoning_effort, seed, session_instructions, stop, system_prompt, temperature, tools, top_p`}},
		{"wrong type", head + "    temperature: warm\n", 7,
			[]string{"agents.helper.temperature: expected a number, got a string"}},
		{"wrong type of a list", "name: demo\nkind: chat\nagent: helper\nagents:\n  helper:\n    tools: all\n", 6,
			[]string{"agents.helper.tools: expected a list, got a string"}},
		{"not a mapping", "- name: demo\n", 1,
			[]string{"a workflow file is a mapping", "got a list"}},
		{"missing agent reference", strings.Replace(pipe, "critic: b", "critic: bb", 1), 15,
			[]string{`phases[0].stages[1].critic: "bb" is not an agent of this workflow`, "define it under agents", "(defined: a, b)", `did you mean "b"?`}},
		{"missing specialist", "name: desk\nkind: handoff\ntriage: t\nspecialists: [t2, analyst]\nagents:\n  t: {}\n  t2: {}\n", 4,
			[]string{`specialists[1]: "analyst" is not an agent of this workflow`}},
		{"bad regex in validate", head + "validate:\n  matches: '(abc'\n", 8,
			[]string{`validate.matches: "(abc" is not a valid regular expression`, "missing closing )"}},
		{"bad regex in skip_if", strings.Replace(pipe, "        critic: b\n", "        critic: b\n        skip_if:\n          input_matches: '[a-'\n", 1), 17,
			[]string{`phases[0].stages[1].skip_if.input_matches: "[a-" is not a valid regular expression`}},
		{"unknown kind", "name: demo\nkind: chatt\n", 2,
			[]string{`kind: "chatt" is not one of chat, critique-revise, plan-execute, reflection, handoff, pipeline`, `did you mean "chat"?`}},
		{"nested pipeline", strings.Replace(pipe, "kind: critique-revise", "kind: pipeline", 1), 13,
			[]string{"phases[0].stages[1].kind: a stage cannot itself be a pipeline"}},
		{"missing kind", "name: demo\nagents: {}\n", 1,
			[]string{"missing kind: one of chat, critique-revise"}},
		{"missing required role", "name: review\nkind: critique-revise\nwriter: w\nagents:\n  w: {}\n", 1,
			[]string{"a critique-revise workflow needs critic: the name of the agent that judges each draft"}},
		{"missing required role in a stage", strings.Replace(pipe, "        writer: a\n", "", 1), 12,
			[]string{"phases[0].stages[1]: a critique-revise stage needs writer"}},
		{"missing specialists", "name: desk\nkind: handoff\ntriage: t\nagents:\n  t: {}\n", 1,
			[]string{"a handoff workflow needs specialists"}},
		{"role of another kind", head + "writer: helper\n", 7,
			[]string{"writer: not read by a chat workflow; only critique-revise uses writer"}},
		{"bad duration", head + "    limits:\n      timeout: 5 minutes\n", 8,
			[]string{`agents.helper.limits.timeout: "5 minutes" is not a duration`, `"30s"`, "whole number of seconds"}},
		{"negative duration", head + "    limits:\n      timeout: -5\n", 8,
			[]string{"agents.helper.limits.timeout: must be at least 0, got -5"}},
		{"duplicate stage names", strings.Replace(pipe, "name: second", "name: first", 1), 12,
			[]string{`phases[0].stages[1].name: stage name "first" is already used by phases[0].stages[0]`, "unique"}},
		{"duplicate stage names across phases", pipe + "  - name: two\n    stages:\n      - name: second\n        kind: chat\n        agent: a\n", 18,
			[]string{`phases[1].stages[0].name: stage name "second" is already used by phases[0].stages[1]`}},
		{"duplicate phase names", pipe + "  - name: one\n    stages:\n      - kind: chat\n        agent: a\n", 16,
			[]string{`phases[1].name: phase name "one" is already used by phases[0]`}},
		{"missing name", "kind: chat\nagent: a\nagents: {a: {}}\n", 1,
			[]string{`missing name: every workflow needs a name such as "my-workflow"`}},
		{"name not a slug", "name: My Report\nkind: chat\nagent: a\nagents: {a: {}}\n", 1,
			[]string{`name: "My Report" is not a valid workflow name`, `(such as "my-report")`}},
		{"agent name not a slug", "name: demo\nkind: chat\nagent: a\nagents:\n  a: {}\n  Data Analyst: {}\n", 6,
			[]string{`"Data Analyst" is not a valid agent name`, `(such as "data-analyst")`}},
		{"threshold out of range", "name: think\nkind: reflection\nagent: a\nthreshold: 11\nagents: {a: {}}\n", 4,
			[]string{"threshold: must be at most 10, got 11"}},
		{"fraction out of range", head + "    temperature: 2.5\n", 7,
			[]string{"agents.helper.temperature: must be at most 2, got 2.5"}},
		{"negative number", head + "max_attempts: -1\n", 7,
			[]string{"max_attempts: must be at least 0, got -1"}},
		{"bad on_failure", head + "on_failure: retry\n", 7,
			[]string{`on_failure: "retry" is not one of abort, continue`}},
		{"bad previous outcome", strings.Replace(pipe, "        critic: b\n", "        critic: b\n        skip_if: {previous: faild}\n", 1), 16,
			[]string{`phases[0].stages[1].skip_if.previous: "faild" is not one of succeeded, failed, skipped`, `did you mean "failed"?`}},
		{"previous on the first stage", strings.Replace(pipe, "        agent: a\n", "        agent: a\n        skip_if: {previous: failed}\n", 1), 12,
			[]string{"phases[0].stages[0].skip_if.previous: the first stage has no previous stage"}},
		{"phases on a chat workflow", head + "phases:\n  - stages:\n      - kind: chat\n        agent: helper\n", 7,
			[]string{"phases: only read by a pipeline workflow"}},
		{"pipeline without phases", "name: p\nkind: pipeline\n", 1,
			[]string{"a pipeline workflow needs phases"}},
		{"empty phase", strings.Replace(pipe, "phases:\n", "phases:\n  - name: zero\n    stages: []\n", 1), 8,
			[]string{"phases[0].stages: needs at least 1 stage"}},
		{"role at the top of a pipeline", "agent: a\n" + pipe, 1,
			[]string{"agent: not read at the top of a pipeline workflow"}},
		{"duplicate key", head + "kind: chat\n", 7,
			[]string{"invalid YAML", `mapping key "kind" already defined at line 2`}},
		{"bad indentation", "name: demo\n  kind: chat\n", 1,
			[]string{"invalid YAML"}},
		{"two documents", head + "---\nname: other\n", 8,
			[]string{"a file holds one workflow"}},
		{"JSON", "{\n  \"name\": \"demo\",\n  \"kind\": \"chat\",\n  \"agent\": \"nobody\",\n  \"agents\": {\"helper\": {}}\n}\n", 4,
			[]string{`agent: "nobody" is not an agent of this workflow`}},
		{"aliases that expand too far", laughs(), 2,
			[]string{"more than 100000 values, counting what its aliases repeat"}},
		{"too many values", strings.Repeat("- a\n", yamlcheck.MaxExpandedNodes+1), 1,
			[]string{"more than 100000 values"}},
		{"pass_check with a bad regex", critique + "pass_check: {matches: '(ok'}\n", 7,
			[]string{`pass_check.matches: "(ok" is not a valid regular expression`, "missing closing )"}},
		{"pass_check of an unknown kind", critique + "pass_check: {contain: LGTM}\n", 7,
			[]string{`pass_check: unknown field "contain"`, `did you mean "contains"?`}},
		{"pass_check of two kinds", critique + "pass_check: {contains: LGTM, matches: ok}\n", 7,
			[]string{"pass_check: give exactly one of verdict: true (the default), contains, score_at_least or matches"}},
		{"pass_check that is empty", critique + "pass_check: {}\n", 7,
			[]string{"pass_check: give exactly one of"}},
		{"pass_check verdict false", critique + "pass_check: {verdict: false}\n", 7,
			[]string{"pass_check: give exactly one of"}},
		{"pass_check score out of range", critique + "pass_check: {score_at_least: 11}\n", 7,
			[]string{"pass_check.score_at_least: must be at most 10, got 11"}},
		{"post_pass_check on something else", critique + "post_pass_check: {on: critiqe, contains: ok}\n", 7,
			[]string{`post_pass_check.on: "critiqe" is not one of draft, critique`, `did you mean "critique"?`}},
		{"post_pass_check with a bad regex", critique + "post_pass_check:\n  on: critique\n  matches: '[a-'\n", 9,
			[]string{`post_pass_check.matches: "[a-" is not a valid regular expression`}},
		{"post_pass_check without a check", critique + "post_pass_check: {on: critique}\n", 7,
			[]string{"post_pass_check: needs at least one check"}},
		{"pass_check on a chat workflow", head + "pass_check: {contains: LGTM}\n", 7,
			[]string{"pass_check: not read by a chat workflow; only critique-revise uses pass_check"}},
		{"error inside an anchor", "name: demo\nkind: chat\nagent: a\nagents:\n  a: &base\n    tools: x\n  b: *base\n", 6,
			[]string{"agents.a.tools: expected a list, got a string"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def, err := Parse("test.yaml", []byte(tt.src))
			if err == nil {
				t.Fatalf("Parse succeeded (%+v), want a problem on line %d", def, tt.line)
			}
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("error %T %v is not Problems", err, err)
			}
			for _, p := range ps {
				if p.File != "test.yaml" {
					t.Errorf("problem %v: File = %q", p, p.File)
				}
				if p.Line != tt.line {
					continue
				}
				msg := p.Message
				if slices.ContainsFunc(tt.want, func(w string) bool { return !strings.Contains(msg, w) }) {
					continue
				}
				if p.Column <= 0 {
					t.Errorf("problem %v has no column", p)
				}
				return
			}
			t.Errorf("no problem on line %d containing %q; got:\n%v", tt.line, tt.want, err)
		})
	}
}

func TestParseEmpty(t *testing.T) {
	for _, src := range []string{"", "# only a comment\n", "---\n", "null\n"} {
		_, err := Parse("empty.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), "empty.yaml") {
			t.Errorf("Parse(%q) = %v, want a problem naming the file", src, err)
		}
	}
}

func TestParseEncodings(t *testing.T) {
	for name, src := range map[string]string{
		"byte order mark": "\ufeff" + head,
		"CRLF":            strings.ReplaceAll(head, "\n", "\r\n"),
	} {
		if _, err := Parse("x.yaml", []byte(src)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	_, err := Parse("x.yaml", []byte(strings.ReplaceAll(head+"max_retires: 1\n", "\n", "\r\n")))
	var ps Problems
	if !errors.As(err, &ps) || ps[0].Line != 7 {
		t.Errorf("CRLF file: %v, want a problem on line 7", err)
	}
}

func TestParseTooLarge(t *testing.T) {
	_, err := Parse("big.yaml", make([]byte, MaxFileSize+1))
	if err == nil || !strings.Contains(err.Error(), "at most") {
		t.Fatalf("Parse(big) = %v, want a size problem", err)
	}
}

// fullWorkflow sets every field of the file format.
const fullWorkflow = `# A comment.
name: full
description: Every field.
kind: pipeline
token_budget: 1000
agents:
  a:
    system_prompt: Be brief.
    model: m
    provider: p
    tools: ["*"]
    temperature: 0.5
    limits: {max_steps: 3, max_tool_calls: 4, token_budget: 5, timeout: 90}
  b:
    limits: {timeout: 1h30m}
phases:
  - stages:
      - kind: chat
        agent: a
        input: user
        max_attempts: 2
        token_budget: 10
        validate: {contains: x, matches: '(?i)^ok', json: true, min_length: 3}
      - kind: critique-revise
        writer: a
        critic: b
        max_retries: 1
        pass_check: {score_at_least: 8}
        post_pass_check: {on: critique, contains: because, min_length: 10}
        skip_if: {previous: failed, input_matches: '^$', input_shorter_than: 5}
        on_failure: continue
  - name: later
    stages:
      - {kind: plan-execute, planner: a, executor: b, max_replans: 1}
      - {kind: reflection, agent: a, threshold: 7, max_iterations: 2}
      - {name: desk, kind: handoff, triage: a, specialists: [b], max_handoffs: 1}
`

func TestParseFull(t *testing.T) {
	src := fullWorkflow
	def, err := Parse("full.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	temp := float32(0.5)
	eight := 8.0
	want := &Definition{
		Name: "full", Description: "Every field.", TokenBudget: 1000, Source: "full.yaml",
		Stage: Stage{Kind: KindPipeline},
		Agents: map[string]AgentDef{
			"a": {SystemPrompt: "Be brief.", Model: "m", Provider: "p", Tools: []string{"*"}, Temperature: &temp,
				Limits: Limits{MaxSteps: 3, MaxToolCalls: 4, TokenBudget: 5, Timeout: Duration(90 * time.Second)}},
			"b": {Limits: Limits{Timeout: Duration(90 * time.Minute)}},
		},
		Phases: []Phase{
			{Name: "phase-1", Stages: []Stage{
				{Name: "stage-1", Kind: KindChat, Roles: Roles{"agent": "a"}, Input: "user", MaxAttempts: 2, TokenBudget: 10,
					Validate: &Validation{Contains: "x", Matches: "(?i)^ok", JSON: true, MinLength: 3}},
				{Name: "stage-2", Kind: KindCritiqueRevise, Roles: Roles{"writer": "a", "critic": "b", "reviser": "a"}, Numbers: Numbers{"max_retries": 1},
					PassCheck:     &PassCheck{ScoreAtLeast: &eight},
					PostPassCheck: &PostPassCheck{On: "critique", Validation: Validation{Contains: "because", MinLength: 10}},
					SkipIf:        &Condition{Previous: "failed", InputMatches: "^$", InputShorterThan: 5}, OnFailure: "continue"},
			}},
			{Name: "later", Stages: []Stage{
				{Name: "stage-3", Kind: KindPlanExecute, Roles: Roles{"planner": "a", "executor": "b", "finisher": "b"}, Numbers: Numbers{"max_replans": 1}},
				{Name: "stage-4", Kind: KindReflection, Roles: Roles{"agent": "a", "critic": "a"}, Numbers: Numbers{"threshold": 7, "max_iterations": 2}},
				{Name: "desk", Kind: KindHandoff, Roles: Roles{"triage": "a"}, Teams: Teams{"specialists": {"b"}}, Numbers: Numbers{"max_handoffs": 1}},
			}},
		},
	}
	if !reflect.DeepEqual(def, want) {
		got, _ := json.MarshalIndent(def, "", "  ")
		t.Errorf("Parse = %s", got)
	}
}

func TestParseNormalize(t *testing.T) {
	d := &Definition{Name: "n", Stage: Stage{Kind: KindPipeline}, Phases: []Phase{
		{Stages: []Stage{{Kind: KindChat}, {Name: "stage-1", Kind: KindChat}}},
		{Name: "phase-1", Stages: []Stage{{Kind: KindReflection, Roles: Roles{"agent": "x"}}}},
	}}
	d.Normalize()
	var names []string
	for _, ph := range d.Phases {
		names = append(names, ph.Name)
		for _, st := range ph.Stages {
			names = append(names, st.Name)
		}
	}
	// Defaults never take a name a phase or stage already has.
	if want := []string{"phase-2", "stage-2", "stage-1", "phase-1", "stage-3"}; !slices.Equal(names, want) {
		t.Errorf("names = %v, want %v", names, want)
	}
	if c := d.Phases[1].Stages[0].Roles["critic"]; c != "x" {
		t.Errorf("reflection critic = %q, want the agent", c)
	}
	before, _ := json.Marshal(d)
	d.Normalize()
	if after, _ := json.Marshal(d); string(after) != string(before) {
		t.Errorf("Normalize is not idempotent:\n%s\n%s", before, after)
	}
}

func TestParseValidateWithoutLines(t *testing.T) {
	d := &Definition{Name: "v", Source: "v.yaml", Stage: Stage{Kind: KindCritiqueRevise, Roles: Roles{"writer": "w"}},
		Agents: map[string]AgentDef{"w": {}}}
	ps := d.Validate()
	if len(ps) != 1 || ps[0].Line != 0 || ps[0].File != "v.yaml" || !strings.Contains(ps[0].Message, "needs critic") {
		t.Fatalf("Validate = %v", ps)
	}
	if got := ps[0].Error(); !strings.HasPrefix(got, "v.yaml: a critique-revise") {
		t.Errorf("Error() = %q", got)
	}
}

func TestLoadProblemError(t *testing.T) {
	tests := []struct {
		p    Problem
		want string
	}{
		{Problem{File: "a.yaml", Line: 3, Column: 5, Message: "bad"}, "a.yaml:3:5: bad"},
		{Problem{File: "a.yaml", Line: 3, Message: "bad"}, "a.yaml:3: bad"},
		{Problem{File: "a.yaml", Message: "bad"}, "a.yaml: bad"},
		{Problem{Message: "bad"}, "bad"},
	}
	for _, tt := range tests {
		if got := tt.p.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
	ps := Problems{tests[0].p, tests[2].p}
	if got := ps.Error(); got != "a.yaml:3:5: bad\na.yaml: bad" {
		t.Errorf("Problems.Error() = %q", got)
	}
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		out  string
		bad  bool
	}{
		{in: `"30s"`, want: 30 * time.Second, out: "30s"},
		{in: `"2m"`, want: 2 * time.Minute, out: "2m"},
		{in: `"1h30m"`, want: 90 * time.Minute, out: "1h30m"},
		{in: `"1h"`, want: time.Hour, out: "1h"},
		{in: `"1h0m30s"`, want: time.Hour + 30*time.Second, out: "1h0m30s"},
		{in: `"500ms"`, want: 500 * time.Millisecond, out: "500ms"},
		{in: `45`, want: 45 * time.Second, out: "45s"},
		{in: `0`, want: 0, out: "0s"},
		{in: `"soon"`, bad: true},
		{in: `1.5`, bad: true},
		{in: `true`, bad: true},
		{in: `99999999999999`, bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var j, y Duration
			jerr := json.Unmarshal([]byte(tt.in), &j)
			yerr := yaml.Unmarshal([]byte(tt.in), &y)
			if tt.bad {
				if jerr == nil || yerr == nil {
					t.Fatalf("JSON err %v, YAML err %v; want both to fail", jerr, yerr)
				}
				return
			}
			if jerr != nil || yerr != nil {
				t.Fatalf("JSON err %v, YAML err %v", jerr, yerr)
			}
			if time.Duration(j) != tt.want || time.Duration(y) != tt.want {
				t.Fatalf("JSON %v, YAML %v, want %v", time.Duration(j), time.Duration(y), tt.want)
			}
			if b, _ := json.Marshal(j); string(b) != `"`+tt.out+`"` {
				t.Errorf("MarshalJSON = %s, want %q", b, tt.out)
			}
			if b, _ := yaml.Marshal(map[string]Duration{"t": y}); string(b) != "t: "+tt.out+"\n" {
				t.Errorf("MarshalYAML = %q, want %q", b, tt.out)
			}
		})
	}
}

func TestLoadDir(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a-good.yaml": head,
		"b-good.json": `{"name": "other", "kind": "reflection", "agent": "r", "agents": {"r": {}}}`,
		"c-bad.yml":   head + "max_retires: 3\n",
		"README.md":   "not a workflow",
		// The schema may sit next to the files for editors.
		"workflow.schema.json": string(Schema()),
		".hidden.yaml":         "not: [parsed",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "nested.yaml"), 0o755); err != nil {
		t.Fatal(err)
	}

	defs, problems := LoadDir(dir)
	var names []string
	for _, d := range defs {
		names = append(names, d.Name)
	}
	if !slices.Equal(names, []string{"demo", "other"}) {
		t.Errorf("loaded %v, want [demo other]", names)
	}
	if defs[0].Source != filepath.Join(dir, "a-good.yaml") {
		t.Errorf("Source = %q", defs[0].Source)
	}
	if len(problems) != 1 {
		t.Fatalf("problems = %v, want one for c-bad.yml", problems)
	}
	p := problems[0]
	if p.File != filepath.Join(dir, "c-bad.yml") || p.Line != 7 || p.Column != 1 || !strings.Contains(p.Message, "max_retries") {
		t.Errorf("problem = %+v", p)
	}
}

func TestLoadDirMissing(t *testing.T) {
	defs, problems := LoadDir(filepath.Join(t.TempDir(), "workflows"))
	if defs != nil || problems != nil {
		t.Errorf("LoadDir(missing) = %v, %v; want nothing", defs, problems)
	}
}

func TestLoadDirNotADir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "workflows")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, problems := LoadDir(file)
	if len(problems) != 1 || problems[0].File != file {
		t.Errorf("problems = %v, want one naming the path", problems)
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range builtinFiles(f) {
		data, err := builtinFS.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(head + "max_retires: 3\n"))
	f.Add([]byte(pipe))
	f.Add([]byte("a: &x [*x]\n"))
	f.Add([]byte(laughs()))
	f.Add([]byte("name: x\nkind: chat\n<<: {agent: a}\nagents: {a: {}}\n"))
	f.Add([]byte(`{"name": "j", "kind": "handoff", "triage": "t", "specialists": ["t"], "agents": {"t": {}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		def, err := Parse("fuzz.yaml", data)
		if err != nil {
			var ps Problems
			if !errors.As(err, &ps) || len(ps) == 0 {
				t.Fatalf("error %T %v is not Problems", err, err)
			}
			for _, p := range ps {
				if p.Message == "" || p.File != "fuzz.yaml" {
					t.Fatalf("bad problem %+v", p)
				}
			}
			return
		}
		if ps := def.Validate(); len(ps) > 0 {
			t.Fatalf("Parse accepted a definition Validate rejects: %v", ps)
		}
		if _, err := json.Marshal(def); err != nil {
			t.Fatalf("marshal: %v", err)
		}
	})
}

// laughs is a small file whose aliases expand to 9^9 values.
func laughs() string {
	src := "a: &a [x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		src += n + ": &" + n + " [" + strings.Repeat("*"+prev+", ", 8) + "*" + prev + "]\n"
		prev = n
	}
	return src
}

package workflow

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// update rewrites what the tests compare with: the files made from the
// executors' specs,
//
//	go test ./backend/workflow -run '^(TestSchemaFile|TestDocsKinds)$' -update
//
// (which go generate ./backend/workflow runs), and, only when meant, the
// stored JSON of the built-ins (-run TestBuiltinsStoredJSON -update).
var update = flag.Bool("update", false, "rewrite the files the tests compare with (workflow.schema.json, the kinds table of docs/WORKFLOWS.md, testdata)")

const (
	schemaFile = "workflow.schema.json"
	docsFile   = "../../docs/WORKFLOWS.md"
	kindsStart = "<!-- kinds: made from the executors' specs; go generate ./backend/workflow rewrites it -->\n"
	kindsEnd   = "<!-- end of kinds -->\n"
)

// The schema shipped for editors is the one the app checks files
// against: the one the executors' specs make, byte for byte.
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
		t.Errorf("%s is not the schema the executors' specs make; run go generate ./backend/workflow\n%s", schemaFile, firstDiff(string(want), string(got)))
	}
}

// The table of kinds in docs/WORKFLOWS.md is the one the specs make.
func TestDocsKinds(t *testing.T) {
	checkDocsSection(t, kindsStart, kindsEnd, kindsTable(executors()), "the kinds table")
}

// checkDocsSection checks that the part of docs/WORKFLOWS.md between the
// markers is got, and with -update writes got there.
func checkDocsSection(t *testing.T, startMark, endMark, got, what string) {
	t.Helper()
	data, err := os.ReadFile(docsFile)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	start, end := strings.Index(doc, startMark), strings.Index(doc, endMark)
	if start < 0 || end < start {
		t.Fatalf("%s has no %q ... %q markers around %s", docsFile, startMark, endMark, what)
	}
	start += len(startMark)
	if *update {
		doc = doc[:start] + got + doc[end:]
		if err := os.WriteFile(docsFile, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		end = start + len(got)
	}
	if want := doc[start:end]; want != got {
		t.Errorf("%s of %s is not the one the code makes; run go generate ./backend/workflow\n%s", what, docsFile, firstDiff(want, got))
	}
}

// firstDiff shows the first line where two texts differ.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n  file: " + wl + "\n  made: " + gl
		}
	}
	return ""
}

// Every registered executor's spec is whole: a doc, a run function, a
// required role, every field documented, and defaults that name a role of
// its own kind.
func TestExecutorSpecs(t *testing.T) {
	reg := executors()
	want := []string{"chat", "critique-revise", "plan-execute", "reflection", "handoff"}
	if got := reg.kindNames(false); !reflect.DeepEqual(got, want) {
		t.Fatalf("kinds %v, want %v", got, want)
	}
	for _, s := range reg.specs {
		if s.doc == "" || s.run == nil || !strings.Contains(fieldDoc(reg, reg.byName[s.roles[0].name]), string(s.kind)+": ") {
			t.Errorf("%s: spec lacks a doc, a run function or its first role's doc", s.kind)
		}
		required := false
		for _, rl := range s.roles {
			required = required || rl.required
			if rl.doc == "" || !strings.HasPrefix(rl.doc, "the agent") {
				t.Errorf("%s: role %s's doc %q does not say which agent", s.kind, rl.name, rl.doc)
			}
		}
		for _, n := range s.numbers {
			if n.doc == "" || n.deflt <= 0 {
				t.Errorf("%s: number %s has no doc or no default", s.kind, n.name)
			}
		}
		if !required {
			t.Errorf("%s needs no agent", s.kind)
		}
	}
}

// A spec that contradicts the file format or another spec is refused when
// it registers, before any file is read.
func TestRegisterRefusesConflicts(t *testing.T) {
	run := (*wfRun).execChat
	tests := []struct {
		name string
		spec executorSpec
	}{
		{"a kind taken", executorSpec{kind: KindChat, run: run}},
		{"pipeline", executorSpec{kind: KindPipeline, run: run}},
		{"no run function", executorSpec{kind: "x"}},
		{"a field of every stage", executorSpec{kind: "x", run: run, roles: []role{{name: "input"}}}},
		{"a field of the workflow", executorSpec{kind: "x", run: run, numbers: []number{{name: "phases"}}}},
		{"a role as a block", executorSpec{kind: "x", run: run, roles: []role{{name: "pass_check"}}}},
		{"a role of another shape", executorSpec{kind: "x", run: run, roles: []role{{name: "writer", list: true}}}},
		{"a number of another range", executorSpec{kind: "x", run: run, numbers: []number{{name: "max_retries", integer: true, max: 9}}}},
		{"a default that is no role", executorSpec{kind: "x", run: run, roles: []role{{name: "a", deflt: "b"}}}},
		{"an unknown block", executorSpec{kind: "x", run: run, blocks: []string{"checks"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("register accepted it")
				}
			}()
			undo := register(tt.spec)
			undo()
		})
	}
	if got := executors().kindNames(false); len(got) != 5 {
		t.Errorf("kinds after refusals: %v", got)
	}
}

// A turn stores its workflow as JSON for replays: the built-ins' JSON
// stays what it was (testdata/builtins.jsonl was written before the
// executors' settings moved into Stage's maps; -update rewrites it).
func TestBuiltinsStoredJSON(t *testing.T) {
	const golden = "testdata/builtins.jsonl"
	var b strings.Builder
	for _, d := range Builtins() {
		data, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("the built-ins' JSON differs from %s\n%s", golden, firstDiff(string(want), b.String()))
	}
}

// A definition goes to JSON (as a turn stores it) and back unchanged,
// every field included.
func TestDefinitionJSONRoundTrip(t *testing.T) {
	src, err := os.ReadFile("builtin/research-report.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range append(Builtins(), mustParse(t, "full.yaml", fullWorkflow), mustParse(t, "b.yaml", string(src))) {
		data, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		var back Definition
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(&back, d) {
			t.Errorf("%s: JSON round trip changed it:\n%s\n%+v", d.Name, data, back)
		}
	}
}

func mustParse(t *testing.T, name, src string) *Definition {
	t.Helper()
	d, err := Parse(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

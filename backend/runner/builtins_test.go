package runner

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/chart"
	"github.com/agentdeck/agentdeck/backend/knowledge"
	"github.com/agentdeck/agentdeck/backend/sandbox"
	"github.com/agentdeck/agentdeck/backend/web"
)

// update rewrites the list of built-in tools in docs/WORKFLOWS.md:
//
//	go test ./backend/runner -run TestDocsBuiltinTools -update
var update = flag.Bool("update", false, "rewrite the built-in tools of docs/WORKFLOWS.md")

const (
	workflowsDoc  = "../../docs/WORKFLOWS.md"
	builtinsStart = "<!-- built-in tools: made from backend/runner/builtins.go; go test ./backend/runner -run TestDocsBuiltinTools -update rewrites it -->\n"
	builtinsEnd   = "<!-- end of built-in tools -->\n"
)

// The built-in tools docs/WORKFLOWS.md lists are those of the table, in
// its order, with what each tells the model it does.
func TestDocsBuiltinTools(t *testing.T) {
	data, err := os.ReadFile(workflowsDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	start, end := strings.Index(doc, builtinsStart), strings.Index(doc, builtinsEnd)
	if start < 0 || end < start {
		t.Fatalf("%s has no %q ... %q markers", workflowsDoc, builtinsStart, builtinsEnd)
	}
	start += len(builtinsStart)
	got := builtinsList(t)
	if *update {
		doc = doc[:start] + got + doc[end:]
		if err := os.WriteFile(workflowsDoc, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		end = start + len(got)
	}
	if want := doc[start:end]; want != got {
		t.Errorf("the built-in tools of %s are not those of builtins.go; run go test ./backend/runner -run TestDocsBuiltinTools -update\nwant:\n%s\ngot:\n%s", workflowsDoc, want, got)
	}
}

// builtinsList is the docs' list: every tool of the table, made by a
// runner that has what each needs.
func builtinsList(t *testing.T) string {
	r := New(Config{DB: searchOnly{}, Charts: chart.NewValidator(), Knowledge: &knowledge.Library{}, Web: web.New(web.Options{})})
	var b strings.Builder
	for _, bt := range builtinTools {
		code := sandbox.DefaultLimits()
		tl := bt.make(r, turnTools{documents: true, numbers: &knowledge.Numbers{}, code: &code})
		if tl == nil {
			t.Fatalf("the built-in %s was not made", bt.name)
		}
		spec := tl.Spec()
		if spec.Name != bt.name {
			t.Fatalf("the built-in %s makes a tool called %s", bt.name, spec.Name)
		}
		fmt.Fprintf(&b, "- `%s`: %s\n", spec.Name, spec.Description)
	}
	return b.String()
}

// searchOnly is a store the recall tool can be made over; nothing here
// calls it.
type searchOnly struct{ Store }

// builtins honours the names an agent gives, "*" and a runner that lacks a
// tool's dependency, keeping the table's order.
func TestBuiltinsByName(t *testing.T) {
	full := New(Config{DB: searchOnly{}, Charts: chart.NewValidator(), Knowledge: &knowledge.Library{}, Web: web.New(web.Options{})})
	bare := New(Config{})
	docs := turnTools{documents: true, numbers: &knowledge.Numbers{}}
	code := sandbox.DefaultLimits()
	withCode := turnTools{code: &code}
	cases := []struct {
		name  string
		r     *Runner
		tt    turnTools
		names []string
		want  string
	}{
		{"all", full, turnTools{}, []string{"*"}, "update_plan render_chart recall fetch_url create_artifact"},
		{"all, with documents", full, docs, []string{"*"}, "update_plan render_chart recall search_knowledge fetch_url create_artifact"},
		{"named, in the table's order", full, docs, []string{"fetch_url", "search_knowledge", "recall", "update_plan"}, "update_plan recall search_knowledge fetch_url"},
		{"none named", full, docs, []string{"read_file"}, ""},
		{"no validator, no store", bare, docs, []string{"*"}, "update_plan create_artifact"},
		{"all, with the sandbox", full, withCode, []string{"*"}, "update_plan render_chart recall fetch_url create_artifact run_code"},
		{"the sandbox without a validator", bare, withCode, []string{"run_code"}, "run_code"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, tl := range c.r.builtins(c.names, c.tt) {
				got = append(got, tl.Spec().Name)
			}
			if s := strings.Join(got, " "); s != c.want {
				t.Fatalf("builtins(%v) = %q, want %q", c.names, s, c.want)
			}
		})
	}
}

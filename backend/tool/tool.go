package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// Package tool is what a tool is to the engine: its spec, the set a model
// is offered with compiled argument schemas, and how a running tool
// reports events (Emit). Tools live in their own packages (data,
// workspace, mcp, plan, chart, recall) and are picked by name.

// Spec describes a tool to the model and to the engine.
type Spec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"` // JSON Schema of the arguments
	// SideEffects marks tools that change something outside the
	// conversation (files, remote systems); guards ask before they run.
	SideEffects bool `json:"side_effects"`
	// Recorded marks tools that read something that may change or be
	// gone later (a web page, a search over documents): the result is
	// recorded, and a replay gives it back instead of running the tool
	// (Replayer lets the tool report its events again). A read-only tool
	// that is not Recorded runs again in a replay; a side-effecting one
	// never runs and gives back its recorded result too.
	Recorded bool `json:"recorded,omitempty"`
}

// Replayer is a Recorded tool that reports its events again when a replay
// gives back its recorded result (output), as if it had just run with args.
type Replayer interface {
	Replayed(ctx context.Context, args json.RawMessage, output string)
}

// Scoped is a tool whose every call reaches one named part of the world
// (fetch_url: a site). The person is asked before a call reaches a scope,
// even when the tool changes nothing, and an "always" answer allows that
// scope, not the whole tool, for the rest of the session. Scope "" asks
// nothing (the call will be refused by the tool itself).
type Scoped interface {
	Scope(args json.RawMessage) string
}

// Tool is something the model can call. Execute receives arguments that
// already passed the schema, and must honour ctx: Stop cancels it.
type Tool interface {
	Spec() Spec
	Execute(ctx context.Context, args json.RawMessage) (string, error)
}

// Func adapts a spec and a function to Tool.
type Func struct {
	Def Spec
	Fn  func(ctx context.Context, args json.RawMessage) (string, error)
}

func (t Func) Spec() Spec { return t.Def }

func (t Func) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	return t.Fn(ctx, args)
}

// Set is a set of tools with their compiled argument schemas.
type Set struct {
	tools   map[string]Tool
	schemas map[string]*jsonschema.Schema
	order   []string
}

// NewSet compiles every tool's schema. A duplicate name or a schema that
// does not compile is an error: it is a bug in the tool, not in the model.
func NewSet(tools ...Tool) (*Set, error) {
	ts := &Set{tools: map[string]Tool{}, schemas: map[string]*jsonschema.Schema{}}
	for _, t := range tools {
		if err := ts.add(t); err != nil {
			return nil, err
		}
	}
	return ts, nil
}

func (ts *Set) add(t Tool) error {
	spec := t.Spec()
	if spec.Name == "" {
		return fmt.Errorf("a tool has no name")
	}
	if _, dup := ts.tools[spec.Name]; dup {
		return fmt.Errorf("tool %q is defined twice", spec.Name)
	}
	params := spec.Parameters
	if len(params) == 0 {
		params = json.RawMessage(`{"type":"object"}`)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(params))
	if err != nil {
		return fmt.Errorf("tool %q: the parameter schema is not JSON: %w", spec.Name, err)
	}
	c := jsonschema.NewCompiler()
	url := "mem:///tools/" + spec.Name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return fmt.Errorf("tool %q: %w", spec.Name, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return fmt.Errorf("tool %q: the parameter schema does not compile: %w", spec.Name, err)
	}
	ts.tools[spec.Name] = t
	ts.schemas[spec.Name] = sch
	ts.order = append(ts.order, spec.Name)
	return nil
}

// With returns a new Set with extra tools added.
func (ts *Set) With(tools ...Tool) (*Set, error) {
	out := &Set{tools: map[string]Tool{}, schemas: map[string]*jsonschema.Schema{}}
	if ts != nil {
		for _, name := range ts.order {
			out.tools[name] = ts.tools[name]
			out.schemas[name] = ts.schemas[name]
			out.order = append(out.order, name)
		}
	}
	for _, t := range tools {
		if err := out.add(t); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Len returns the number of tools.
func (ts *Set) Len() int {
	if ts == nil {
		return 0
	}
	return len(ts.order)
}

// Get returns a tool by name.
func (ts *Set) Get(name string) (Tool, bool) {
	if ts == nil {
		return nil, false
	}
	t, ok := ts.tools[name]
	return t, ok
}

// LLMTools returns the tool definitions to send to the model.
func (ts *Set) LLMTools() []llm.Tool {
	if ts == nil {
		return nil
	}
	out := make([]llm.Tool, 0, len(ts.order))
	for _, name := range ts.order {
		s := ts.tools[name].Spec()
		params := s.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		out = append(out, llm.Tool{Name: s.Name, Description: s.Description, Parameters: params})
	}
	return out
}

// Validate checks raw arguments against the tool's schema. The error text
// goes back to the model, so it says what to fix.
func (ts *Set) Validate(name string, raw string) (json.RawMessage, error) {
	sch, ok := ts.schemas[name]
	if !ok {
		return nil, fmt.Errorf("there is no tool named %q; available tools: %s", name, strings.Join(ts.names(), ", "))
	}
	trimmed := strings.TrimSpace(raw)
	if trimmed == "" {
		trimmed = "{}"
	}
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(trimmed))
	if syntax := (*json.SyntaxError)(nil); errors.As(err, &syntax) && strings.HasSuffix(syntax.Error(), "exceeded max depth") {
		// Valid JSON perhaps, but deeper than encoding/json reads.
		return nil, fmt.Errorf("the arguments are nested too deeply (more than 10000 levels of arrays and objects); send a flatter JSON object matching the tool's schema")
	}
	if err != nil {
		return nil, fmt.Errorf("the arguments are not valid JSON (%v); send a JSON object matching the tool's schema", err)
	}
	if err := sch.Validate(v); err != nil {
		return nil, fmt.Errorf("the arguments do not match the schema: %s", schemaErrorText(err))
	}
	return json.RawMessage(trimmed), nil
}

func (ts *Set) names() []string {
	n := append([]string(nil), ts.order...)
	sort.Strings(n)
	return n
}

// schemaErrorText flattens a validation error to its leaf causes, one line each.
func schemaErrorText(err error) string {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err.Error()
	}
	p := message.NewPrinter(language.English)
	var leaves []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := "/" + strings.Join(e.InstanceLocation, "/")
			leaves = append(leaves, fmt.Sprintf("at %s: %s", loc, e.ErrorKind.LocalizedString(p)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	if len(leaves) > 3 {
		leaves = append(leaves[:3], fmt.Sprintf("and %d more", len(leaves)-3))
	}
	return strings.Join(leaves, "; ")
}

package chart

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Limits on what a chart may carry. They keep the UI responsive; a model
// that hits one is told to aggregate before charting.
const (
	MaxSpecBytes  = 2 << 20 // the spec as sent, and again with datasets inlined
	MaxRows       = 5000    // data rows in one chart, all sources together
	MaxTitleRunes = 200
)

// Datasets resolves named datasets the app provides (e.g. a query result
// the agent produced). May be nil.
type Datasets interface {
	Dataset(name string) (rows []map[string]any, ok bool)
}

// DatasetNames is implemented by Datasets that can list what they hold.
// When a spec names an unknown dataset, the error lists these names so the
// model can pick the right one.
type DatasetNames interface {
	Names() []string
}

// DatasetMap is Datasets (and DatasetNames) over a map of name to rows.
type DatasetMap map[string][]map[string]any

func (m DatasetMap) Dataset(name string) ([]map[string]any, bool) {
	rows, ok := m[name]
	return rows, ok
}

func (m DatasetMap) Names() []string {
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Validator checks specs against the Vega-Lite schema. It is safe for
// concurrent use; build one with NewValidator and share it.
type Validator struct {
	schema func() (*jsonschema.Schema, error) // compiled once, on first use
}

// NewValidator returns a Validator. It compiles nothing: the schema
// compiles when the first spec reaches the schema rule, so a process that
// draws no chart never pays for it (see compileSchema).
func NewValidator() *Validator {
	return &Validator{schema: sync.OnceValues(compileSchema)}
}

// Result is a spec that passed every rule.
type Result struct {
	// Spec is the spec to render: named datasets inlined into "datasets"
	// and "$schema" set to SchemaURL, so the UI needs nothing else.
	Spec json.RawMessage
	// Title is the cleaned title, plain text.
	Title string
}

// Validate checks spec and title against the rules in the package doc. ds
// may be nil. An error is an *apperr.Error with code Invalid whose message
// is meant for the model that wrote the spec.
func (v *Validator) Validate(spec json.RawMessage, title string, ds Datasets) (Result, error) {
	title, err := cleanTitle(title)
	if err != nil {
		return Result{}, err
	}
	if len(spec) > MaxSpecBytes {
		return Result{}, invalid("the spec is %s bytes; the limit is %s (2 MB). Aggregate in the query first, or use a named dataset instead of inline rows",
			thousands(len(spec)), thousands(MaxSpecBytes))
	}
	obj, err := decodeSpec(spec)
	if err != nil {
		return Result{}, err
	}
	if err := checkNoRemote(obj); err != nil {
		return Result{}, err
	}
	inline, err := resolveData(obj, ds)
	if err != nil {
		return Result{}, err
	}
	obj["$schema"] = SchemaURL
	sch, err := v.schema()
	if err != nil {
		return Result{}, err
	}
	if err := sch.Validate(obj); err != nil {
		return Result{}, schemaError(err)
	}
	out, err := render(obj, inline)
	if err != nil {
		return Result{}, err
	}
	return Result{Spec: out, Title: title}, nil
}

// render inlines the named datasets into the top-level "datasets" and
// encodes the spec. The schema has already checked that "datasets", when
// the model wrote one, is an object.
func render(obj map[string]any, inline map[string][]map[string]any) (json.RawMessage, error) {
	if len(inline) > 0 {
		sets, _ := obj["datasets"].(map[string]any)
		if sets == nil {
			sets = make(map[string]any, len(inline))
			obj["datasets"] = sets
		}
		for name, rows := range inline {
			if rows == nil {
				rows = []map[string]any{} // a dataset must be an array, not null
			}
			sets[name] = rows
		}
	}
	out, err := json.Marshal(obj)
	if err != nil {
		// Only rows from the app can get here (a value json cannot encode);
		// the model's part came from JSON and goes back to it unchanged.
		return nil, fmt.Errorf("chart: encode spec with inlined datasets: %w", err)
	}
	if len(out) > MaxSpecBytes {
		return nil, invalid("with its datasets inlined the chart is %s bytes; the limit is %s (2 MB). Aggregate in the query first or select fewer columns",
			thousands(len(out)), thousands(MaxSpecBytes))
	}
	return out, nil
}

// invalid returns the error for a spec the model must fix.
func invalid(format string, args ...any) error {
	return apperr.New(apperr.Invalid, format, args...)
}

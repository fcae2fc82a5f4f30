package chart_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/chart"
)

const (
	barSpec = `{
		"data": {"values": [{"a": "A", "b": 28}, {"a": "B", "b": 55}, {"a": "C", "b": 43}]},
		"mark": "bar",
		"encoding": {
			"x": {"field": "a", "type": "nominal"},
			"y": {"field": "b", "type": "quantitative"}
		}
	}`
	layerSpec = `{
		"data": {"values": [{"x": 1, "y": 2}, {"x": 2, "y": 4}]},
		"layer": [
			{"mark": "line", "encoding": {"x": {"field": "x", "type": "quantitative"}, "y": {"field": "y", "type": "quantitative"}}},
			{"mark": {"type": "rule", "color": "red"}, "encoding": {"y": {"datum": 3}}}
		]
	}`
)

// names is a Datasets that cannot list its names.
type names map[string][]map[string]any

func (n names) Dataset(name string) ([]map[string]any, bool) {
	rows, ok := n[name]
	return rows, ok
}

func rows(n int) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		out[i] = map[string]any{"day": i, "sales": i * 2}
	}
	return out
}

func inlineRows(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"a":%d}`, i)
	}
	return `{"data":{"values":[` + b.String() + `]},"mark":"point","encoding":{"x":{"field":"a","type":"quantitative"}}}`
}

func TestValidate(t *testing.T) {
	v := chart.NewValidator()
	sales := chart.DatasetMap{"sales": rows(3), "visits": rows(2)}
	quoted, _ := json.Marshal(barSpec)

	tests := []struct {
		name    string
		spec    string
		title   string
		ds      chart.Datasets
		wantErr []string                                       // substrings of the error; nil means the spec is accepted
		check   func(t *testing.T, res chart.Result, spec any) // spec: res.Spec decoded
	}{
		{name: "bar chart", spec: barSpec, title: "Sales", check: func(t *testing.T, _ chart.Result, spec any) {
			if got := field(spec, "mark"); got != "bar" {
				t.Errorf("mark = %v", got)
			}
		}},
		{name: "layered chart", spec: layerSpec},
		{name: "sequence generator", spec: `{"data":{"sequence":{"start":0,"stop":10,"as":"x"}},"mark":"tick","encoding":{"x":{"field":"x","type":"quantitative"}}}`},
		{name: "spec sent as a JSON string", spec: string(quoted), check: func(t *testing.T, _ chart.Result, spec any) {
			if field(spec, "mark") != "bar" {
				t.Errorf("the string was not decoded: %v", spec)
			}
		}},
		{name: "schema added", spec: barSpec, check: func(t *testing.T, _ chart.Result, spec any) {
			if got := field(spec, "$schema"); got != chart.SchemaURL {
				t.Errorf("$schema = %v", got)
			}
		}},
		{
			name:  "other schema replaced",
			spec:  strings.Replace(barSpec, `"mark"`, `"$schema": "https://vega.github.io/schema/vega/v5.json", "mark"`, 1),
			check: func(t *testing.T, _ chart.Result, spec any) { mustEqual(t, field(spec, "$schema"), chart.SchemaURL) },
		},
		{
			name: "named dataset inlined",
			spec: `{"data":{"name":"sales"},"mark":"line","encoding":{"x":{"field":"day","type":"quantitative"},"y":{"field":"sales","type":"quantitative"}}}`,
			ds:   sales,
			check: func(t *testing.T, _ chart.Result, spec any) {
				got := field(spec, "datasets", "sales")
				if n := len(got.([]any)); n != 3 {
					t.Errorf("inlined %d rows, want 3", n)
				}
				if field(spec, "datasets", "visits") != nil {
					t.Error("an unused dataset was inlined")
				}
			},
		},
		{
			name: "named dataset in a layer and a concat",
			spec: `{"vconcat":[
				{"data":{"name":"visits"},"mark":"bar","encoding":{"x":{"field":"day","type":"ordinal"}}},
				{"layer":[{"data":{"name":"sales"},"mark":"line","encoding":{"x":{"field":"day","type":"ordinal"}}}]}
			]}`,
			ds: sales,
			check: func(t *testing.T, _ chart.Result, spec any) {
				if field(spec, "datasets", "sales") == nil || field(spec, "datasets", "visits") == nil {
					t.Errorf("datasets = %v", field(spec, "datasets"))
				}
			},
		},
		{
			name: "spec's own datasets win",
			spec: `{"datasets":{"sales":[{"day":1,"sales":9}]},"data":{"name":"sales"},"mark":"bar","encoding":{"x":{"field":"day","type":"ordinal"}}}`,
			ds:   sales,
			check: func(t *testing.T, _ chart.Result, spec any) {
				if n := len(field(spec, "datasets", "sales").([]any)); n != 1 {
					t.Errorf("sales has %d rows, want the spec's 1", n)
				}
			},
		},
		{
			name:  "hostile title is stripped, not escaped",
			spec:  barSpec,
			title: "  <script>alert(1)</script>\x00\x07 Sales\n\tby\u202e region\x1b[31m  ",
			check: func(t *testing.T, res chart.Result, _ any) {
				mustEqual(t, res.Title, "<script>alert(1)</script> Sales by region[31m")
			},
		},

		{name: "missing mark", spec: `{"data":{"values":[{"a":1}]},"encoding":{"x":{"field":"a","type":"quantitative"}}}`,
			wantErr: []string{"at the top level: missing property 'mark'"}},
		{name: "misspelled type", spec: strings.Replace(barSpec, `"quantitative"`, `"quantitativ"`, 1),
			wantErr: []string{`at /encoding/y/type: got "quantitativ", want one of: "quantitative"`}},
		{name: "misspelled channel", spec: strings.Replace(barSpec, `"y":`, `"yy":`, 1),
			wantErr: []string{"at /encoding", "'yy'"}},
		{name: "data url", spec: `{"data":{"url":"https://example.com/data.csv"},"mark":"bar"}`,
			wantErr: []string{"charts cannot load data from a URL; put the rows in data.values or use a named dataset", "/data/url"}},
		{name: "url nested in a layer", spec: `{"layer":[{"data":{"values":[]},"mark":"bar"},{"data":{"url":"//evil.example/x.json"},"mark":"line"}]}`,
			wantErr: []string{"charts cannot load data from a URL", "/layer/1/data/url"}},
		{name: "lookup from a url", spec: `{"data":{"values":[{"a":1}]},"transform":[{"lookup":"a","from":{"data":{"url":"x.json"},"key":"a"}}],"mark":"bar"}`,
			wantErr: []string{"charts cannot load data from a URL", "/transform/0/from/data/url"}},
		{name: "image url channel", spec: `{"data":{"values":[{"a":1}]},"mark":"image","encoding":{"url":{"value":"https://example.com/x.png"}}}`,
			wantErr: []string{"cannot load images", "/encoding/url"}},
		{name: "href", spec: `{"data":{"values":[{"a":1}]},"mark":{"type":"bar","href":"https://example.com"}}`,
			wantErr: []string{"cannot link to URLs", "/mark/href"}},
		{name: "usermeta", spec: `{"data":{"values":[{"a":1}]},"mark":"bar","usermeta":{"embedOptions":{"sourceHeader":"<script>"}}}`,
			wantErr: []string{"usermeta is not allowed", "/usermeta"}},
		{name: "url column in inline rows", spec: `{"data":{"values":[{"url":"https://a"},{"url":"https://b"}]},"mark":"bar"}`,
			wantErr: []string{`column named "url"`, "/data/values/0/url", "(and 1 more place)"}},
		{name: "data without a source", spec: `{"data":{"format":{"type":"json"}},"mark":"bar"}`,
			wantErr: []string{`data at /data needs "values"`}},
		{name: "unknown dataset lists the available ones", spec: `{"data":{"name":"sale"},"mark":"bar"}`, ds: sales,
			wantErr: []string{`unknown dataset "sale" (at /data/name); available datasets: "sales", "visits"`}},
		{name: "unknown dataset, none available", spec: `{"data":{"name":"sale"},"mark":"bar"}`,
			wantErr: []string{`unknown dataset "sale"`, "no datasets are available"}},
		{name: "unknown dataset, names not listable", spec: `{"data":{"name":"sale"},"mark":"bar"}`, ds: names{"sales": rows(1)},
			wantErr: []string{`unknown dataset "sale"`, "exact name"}},
		{name: "too many inline rows", spec: inlineRows(chart.MaxRows + 1),
			wantErr: []string{"5,001 data rows", "/data/values", "limit is 5,000", "Aggregate in the query first"}},
		{name: "too many rows in a named dataset", spec: `{"data":{"name":"big"},"mark":"bar"}`, ds: chart.DatasetMap{"big": rows(12000)},
			wantErr: []string{"12,000 data rows", `dataset "big"`, "Aggregate in the query first"}},
		{name: "not an object", spec: `[{"mark":"bar"}]`, wantErr: []string{"must be a JSON object", "not an array"}},
		{name: "string holding a string", spec: `"\"{}\""`, wantErr: []string{"must be a JSON object", "not a string"}},
		{name: "string holding junk", spec: `"mark: bar"`, wantErr: []string{"string that does not hold valid JSON"}},
		{name: "invalid JSON", spec: `{"mark": bar}`, wantErr: []string{"not valid JSON", "at byte"}},
		{name: "trailing data", spec: barSpec + `{}`, wantErr: []string{"not valid JSON", "more follows"}},
		{name: "empty", spec: ``, wantErr: []string{"not valid JSON: it is empty"}},
		{name: "title too long", spec: barSpec, title: strings.Repeat("é", chart.MaxTitleRunes+1),
			wantErr: []string{"title is 201 characters"}},
		{name: "spec too big", spec: `{"description":"` + strings.Repeat("x", chart.MaxSpecBytes) + `"}`,
			wantErr: []string{"the spec is 2,097,170 bytes; the limit is 2,097,152 (2 MB)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := v.Validate(json.RawMessage(tt.spec), tt.title, tt.ds)
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("accepted, want an error with %q", tt.wantErr)
				}
				if !chartInvalid(err) {
					t.Errorf("code = %s, want invalid", apperr.CodeOf(err))
				}
				for _, want := range tt.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error does not contain %q:\n%v", want, err)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("rejected: %v", err)
			}
			var spec any
			if err := json.Unmarshal(res.Spec, &spec); err != nil {
				t.Fatalf("result is not JSON: %v", err)
			}
			if tt.check != nil {
				tt.check(t, res, spec)
			}
		})
	}
}

// A schema error names where the problem is, keeps to three items and
// leaves out the anyOf scaffolding.
func TestSchemaErrorIsShort(t *testing.T) {
	v := chart.NewValidator()
	spec := `{"data":{"values":[]},"mark":"bar","width":"wide","height":"tall","encoding":{
		"x":{"field":"a","type":"quantitativ"},"y":{"field":"b","type":"nominl"},"color":{"field":"c","type":"ordinl"},"size":{"field":"d","type":"x"}}}`
	_, err := v.Validate(json.RawMessage(spec), "", nil)
	if err == nil {
		t.Fatal("accepted")
	}
	msg := err.Error()
	t.Log(msg)
	if n := strings.Count(msg, "\n- at "); n != 3 {
		t.Errorf("%d errors listed, want 3", n)
	}
	for _, noise := range []string{"anyOf", "oneOf", "validation failed", "jsonschema"} {
		if strings.Contains(msg, noise) {
			t.Errorf("message contains %q", noise)
		}
	}
	if !strings.Contains(msg, "more errors)") {
		t.Error("message does not say more errors were left out")
	}
}

// A new Validator, so that the goroutines also race to compile the schema
// on first use.
func TestValidateConcurrent(t *testing.T) {
	v := chart.NewValidator()
	ds := chart.DatasetMap{"sales": rows(10)}
	specs := []string{barSpec, layerSpec, `{"data":{"name":"sales"},"mark":"bar"}`, `{"mark":"bar"}`}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			for j := range 20 {
				spec := specs[(i+j)%len(specs)]
				_, err := v.Validate(json.RawMessage(spec), "t", ds)
				if (err == nil) != (spec != `{"mark":"bar"}`) {
					t.Errorf("spec %s: err = %v", spec, err)
				}
			}
		})
	}
	wg.Wait()
}

// The embedded schema must be the one the frontend renders with; after an
// upgrade of vega-lite there, copy it again (see schema.go).
func TestEmbeddedSchemaMatchesFrontend(t *testing.T) {
	frontend, err := os.ReadFile(filepath.Join("..", "..", "frontend", "node_modules", "vega-lite", "build", "vega-lite-schema.json"))
	if os.IsNotExist(err) {
		t.Skip("frontend dependencies are not installed")
	}
	if err != nil {
		t.Fatal(err)
	}
	embedded, err := os.ReadFile("vega-lite-v6.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(frontend, embedded) {
		t.Error("backend/chart/vega-lite-v6.schema.json differs from the frontend's vega-lite schema; copy it again (see schema.go)")
	}
}

func chartInvalid(err error) bool { return apperr.CodeOf(err) == apperr.Invalid }

// field walks decoded JSON by object keys; nil when a key is missing.
func field(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func mustEqual[T comparable](t *testing.T, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("got %v, want %v", got, want)
	}
}

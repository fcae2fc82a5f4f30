package chart

import (
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The schema compiles on the first spec that reaches the schema rule: not
// when the Validator is built (at the app's start; sync.OnceValues calls
// nothing), and not for a spec an earlier rule refuses.
func TestSchemaCompilesOnFirstUse(t *testing.T) {
	v := NewValidator()
	asked := 0
	schema := v.schema
	v.schema = func() (*jsonschema.Schema, error) {
		asked++
		return schema()
	}
	if _, err := v.Validate(json.RawMessage(`{"data":{"url":"https://example.com/x.csv"},"mark":"bar"}`), "", nil); err == nil {
		t.Fatal("a remote data url was accepted")
	}
	if asked != 0 {
		t.Fatalf("a spec refused before the schema rule asked for the schema %d times", asked)
	}
	spec := json.RawMessage(`{"data":{"values":[{"a":1}]},"mark":"bar","encoding":{"x":{"field":"a","type":"quantitative"}}}`)
	for range 2 {
		if _, err := v.Validate(spec, "", nil); err != nil {
			t.Fatal(err)
		}
	}
	if asked != 2 {
		t.Fatalf("two valid specs asked for the schema %d times", asked)
	}
	if _, err := v.Validate(json.RawMessage(`{"mark":"barr"}`), "", nil); err == nil {
		t.Fatal("a spec the schema refuses was accepted")
	}
}

// BenchmarkCompileSchema is what the first chart of a process costs before
// it is checked: compiling the Vega-Lite schema (without handing the
// garbage back to the OS, which compileSchema also does).
func BenchmarkCompileSchema(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := compile(); err != nil {
			b.Fatal(err)
		}
	}
}

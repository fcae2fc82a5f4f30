package chart

import (
	"bytes"
	_ "embed"
	"fmt"
	"runtime/debug"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaURL identifies the Vega-Lite version specs are checked against. It is
// the id the embedded schema is compiled under and the "$schema" of every
// spec Validate returns; it is never fetched.
const SchemaURL = "https://vega.github.io/schema/vega-lite/v6.json"

// schemaJSON is build/vega-lite-schema.json from the vega-lite npm package,
// version 6.5.0, the version the frontend renders with. To refresh it after
// upgrading vega-lite in frontend/, from the repository root:
//
//	cp frontend/node_modules/vega-lite/build/vega-lite-schema.json backend/chart/vega-lite-v6.schema.json
//
// TestEmbeddedSchemaMatchesFrontend fails when the two copies differ.
//
//go:embed vega-lite-v6.schema.json
var schemaJSON []byte

// compileSchema compiles the embedded schema. It takes a sixth of a second
// of CPU or so (BenchmarkCompileSchema) and allocates about 55 MB, of which
// the compiled schema keeps about 8: a Validator does it once, on first
// use, and then hands the garbage back to the OS at once (the runtime
// would return it only over minutes, and an idle window would carry it all
// that time). FreeOSMemory is a forced GC: it runs on the goroutine of the
// tool call that drew the first chart, never on the UI's.
func compileSchema() (*jsonschema.Schema, error) {
	sch, err := compile()
	debug.FreeOSMemory()
	return sch, err
}

func compile() (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	c.UseLoader(embeddedLoader{})
	sch, err := c.Compile(SchemaURL)
	if err != nil {
		return nil, fmt.Errorf("chart: compile the Vega-Lite schema: %w", err)
	}
	return sch, nil
}

// embeddedLoader serves the embedded schema and refuses every other URL, so
// compiling can never reach the network or the file system. Metaschemas
// (draft-07) are built into the jsonschema library and never get here.
type embeddedLoader struct{}

func (embeddedLoader) Load(url string) (any, error) {
	if url != SchemaURL {
		return nil, fmt.Errorf("chart: refusing to load %q: only the embedded Vega-Lite schema is available", url)
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
}

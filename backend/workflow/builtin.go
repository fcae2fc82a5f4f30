package workflow

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sync"
)

// builtinFS holds the built-in workflows, one per kind. A user file with
// the same name replaces one (the app decides; see Lookup).
//
//go:embed builtin/*.yaml
var builtinFS embed.FS

// Builtins returns the built-in workflows, a fresh copy on each call so
// callers may change what they get. They are sorted by file name and have
// no Source. A built-in that does not parse is a bug caught by the tests,
// so it panics.
func Builtins() []*Definition {
	enc := builtinJSON()
	defs := make([]*Definition, len(enc))
	for i, b := range enc {
		defs[i] = new(Definition)
		if err := json.Unmarshal(b, defs[i]); err != nil {
			panic(fmt.Sprintf("workflow: decode a built-in: %v", err))
		}
	}
	return defs
}

// builtinJSON is each built-in workflow parsed once, as JSON. Parsing
// them (YAML, then the schema) took 4 ms, on the path of every turn's
// start; a copy decoded from JSON takes a small part of that, and a
// Definition is plain data that JSON carries whole (a turn's run spec
// stores it so, and TestBuiltinsDecodeAsParsed checks it).
var builtinJSON = sync.OnceValue(func() [][]byte {
	var enc [][]byte
	for _, def := range parseBuiltins() {
		b, err := json.Marshal(def)
		if err != nil {
			panic(fmt.Sprintf("workflow: encode the built-in %s: %v", def.Name, err))
		}
		enc = append(enc, b)
	}
	return enc
})

// parseBuiltins parses the embedded files.
func parseBuiltins() []*Definition {
	entries, err := fs.ReadDir(builtinFS, "builtin")
	if err != nil {
		panic(fmt.Sprintf("workflow: read the built-in workflows: %v", err))
	}
	defs := make([]*Definition, 0, len(entries))
	for _, e := range entries {
		name := path.Join("builtin", e.Name())
		data, err := builtinFS.ReadFile(name)
		if err != nil {
			panic(fmt.Sprintf("workflow: read %s: %v", name, err))
		}
		def, err := Parse(name, data)
		if err != nil {
			panic(fmt.Sprintf("workflow: built-in %v", err))
		}
		def.Source = ""
		defs = append(defs, def)
	}
	return defs
}

// Lookup returns the definition named name. When several have the name,
// the last wins, so Lookup(append(Builtins(), userDefs...), name) prefers
// the user's file.
func Lookup(defs []*Definition, name string) (*Definition, bool) {
	for i := len(defs) - 1; i >= 0; i-- {
		if defs[i] != nil && defs[i].Name == name {
			return defs[i], true
		}
	}
	return nil, false
}

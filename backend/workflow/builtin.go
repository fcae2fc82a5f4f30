package workflow

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
)

// builtinFS holds the built-in workflows, one per kind. A user file with
// the same name replaces one (the app decides; see Lookup).
//
//go:embed builtin/*.yaml
var builtinFS embed.FS

// Builtins returns the built-in workflows, parsed afresh on each call so
// callers may change what they get. They are sorted by file name and have
// no Source. A built-in that does not parse is a bug caught by the tests,
// so it panics.
func Builtins() []*Definition {
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

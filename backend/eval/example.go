package eval

import (
	"bytes"
	"embed"
	"path"
)

// The example suite is built into the binary so an installed copy, which
// has no docs/ folder, can offer it (the window's "Create an example
// suite"). It is the file the repository's docs link to.
//
//go:embed example/example.yaml example/sales.csv
var example embed.FS

// ExampleFile is one file of the example suite: its name in a suite's
// folder and its bytes.
type ExampleFile struct {
	Name string
	Data []byte
}

// Example returns the example suite's files, the suite first, then the
// files its cases attach. The suite's editor hint (a schema path that is
// right only in the repository) is left out.
func Example() []ExampleFile {
	var out []ExampleFile
	for _, name := range []string{"example.yaml", "sales.csv"} {
		data, err := example.ReadFile(path.Join("example", name))
		if err != nil {
			panic("eval: the embedded example is missing " + name) // the build embeds it; cannot happen
		}
		if name == "example.yaml" {
			data = withoutSchemaHint(data)
		}
		out = append(out, ExampleFile{Name: name, Data: data})
	}
	return out
}

// withoutSchemaHint drops a first line "# yaml-language-server: ..." and the
// empty comment line after it.
func withoutSchemaHint(data []byte) []byte {
	const hint = "# yaml-language-server:"
	if !bytes.HasPrefix(data, []byte(hint)) {
		return data
	}
	_, rest, _ := bytes.Cut(data, []byte("\n"))
	return bytes.TrimPrefix(rest, []byte("#\n"))
}

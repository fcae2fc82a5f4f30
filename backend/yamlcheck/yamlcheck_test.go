package yamlcheck

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

var testFormat = Format{Noun: "thing", Needs: "a name", MaxSize: 64}

const testSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://example.com/thing.schema.json",
  "type": "object",
  "properties": {
    "name": { "type": "string" },
    "items": { "type": "array", "items": { "$ref": "#/$defs/item" } }
  },
  "required": ["name"],
  "additionalProperties": false,
  "$defs": {
    "item": { "type": "object", "properties": { "size": { "type": "integer", "maximum": 3 } }, "additionalProperties": false }
  }
}`

// A format's noun, the schema's wording and the positions: what a
// workflow or a suite gets from this package.
func TestReadAndCheck(t *testing.T) {
	sch, err := CompileSchema("https://example.com/thing.schema.json", []byte(testSchema), "thing")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, src string
		want      []string
	}{
		{"empty", "", []string{"t.yaml: the file is empty: a thing needs at least a name"}},
		{"too big", strings.Repeat("#", 65), []string{"t.yaml: the file is 65 bytes; a thing file is at most 64"}},
		{"two documents", "name: a\n---\nname: b\n", []string{"t.yaml:3:1: a file holds one thing, but a second YAML document starts here"}},
		{"syntax", "name: a\nname: b\n", []string{"t.yaml:2:1: invalid YAML"}},
		{"unknown key", "name: a\nnmae: b\n", []string{`t.yaml:2:1: unknown field "nmae" (did you mean "name"?)`}},
		{"missing", "items: []\n", []string{"t.yaml:1:1: missing name"}},
		{"in a list", "name: a\nitems:\n  - size: 4\n  - sise: 1\n", []string{
			"t.yaml:3:11: items[0].size: must be at most 3, got 4",
			`t.yaml:4:5: items[1]: unknown field "sise" (did you mean "size"?)`}},
		{"root", "- a\n", []string{"t.yaml:1:1: a thing file is a mapping of fields; got a list"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := testFormat.Read("t.yaml", []byte(tt.src))
			if err == nil {
				err = doc.Problems(sch.Check(doc.Value, nil))
			}
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("got %v, want Problems", err)
			}
			if len(ps) != len(tt.want) {
				t.Fatalf("got %d problems, want %d:\n%v", len(ps), len(tt.want), ps)
			}
			for i, p := range ps {
				if !strings.HasPrefix(p.Error(), tt.want[i]) {
					t.Errorf("problem %d:\n got %s\nwant %s...", i, p.Error(), tt.want[i])
				}
			}
		})
	}
}

func TestSuggest(t *testing.T) {
	words := []string{"contains", "not_contains", "regex", "equals"}
	for in, want := range map[string]string{"contians": "contains", "REGEX": "regex", "equal": "equals", "banana": ""} {
		if got := Suggest(in, words); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWhere(t *testing.T) {
	isList := func(f string) bool { return slices.Contains([]string{"cases", "assert"}, f) }
	if got := Where([]string{"cases", "2", "vars", "0"}, isList); got != "cases[2].vars.0" {
		t.Errorf("Where = %q", got)
	}
}

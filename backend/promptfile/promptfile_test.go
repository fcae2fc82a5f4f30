package promptfile

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentdeck/agentdeck/backend/yamlcheck"
)

func TestWriteThenParseGivesTheSamePrompts(t *testing.T) {
	in := []Entry{
		{Name: "Summarize", Description: "short", Body: "Sum up {{text}}.\n\nIn {{words}} words.\n"},
		{Name: "Review", Project: "Work", Body: "Review this: {{diff}}"},
		{Name: "Colon: and # hash", Body: "  leading spaces and a trailing line\n\n"},
		{Name: "yaml-looking", Body: "---\n# not a comment\n- not a list: {x}\n\ttab\ntrailing spaces   \n   \n..."},
		{Name: "windows lines", Body: "one\r\ntwo\r\n"},
		{Name: "blank first line", Body: "\nsecond\n"},
		{Name: "kept breaks", Body: "a\n\n\n"},
		{Name: "unicode", Description: "é — ✓", Body: "Résumé {{thème}}\n日本語\n"},
		{Name: "'quotes' and \"doubles\"", Body: "true"},
	}
	data, err := Write(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "body: |") {
		t.Errorf("a body of several lines is not a literal block:\n%s", data)
	}
	out, err := Parse("prompts.yaml", data)
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, data)
	}
	if !slices.Equal(in, out) {
		t.Errorf("round trip:\n got %q\nwant %q\nfile:\n%s", out, in, data)
	}
	empty, err := Write(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Parse("empty.yaml", empty); err != nil || len(got) != 0 {
		t.Errorf("an empty library reads back as %v, %v\n%s", got, err, empty)
	}
}

func TestParseSaysWhereTheFileIsWrong(t *testing.T) {
	for _, c := range []struct {
		name, file string
		want       []string // "line:col: words" of each problem
	}{
		{"syntax", "version: 1\nprompts: [\n", []string{"invalid YAML"}},
		{"no version", "prompts: []\n", []string{"1:1: missing version"}},
		{"newer version", "version: 2\nprompts: []\n", []string{"1:10: version: this file is version 2"}},
		{"unknown field", "version: 1\nprompts:\n  - name: a\n    body: b\n    boddy: c\n", []string{"5:5:", "boddy"}},
		{"missing body", "version: 1\nprompts:\n  - name: a\n", []string{"3:5:", "missing body"}},
		{"blank body", "version: 1\nprompts:\n  - name: a\n    body: \"  \"\n", []string{"4:11:", "must not be blank"}},
		{"name of two lines", "version: 1\nprompts:\n  - name: \"a\\nb\"\n    body: x\n", []string{"3:11:", "one line"}},
		{"same name twice in a scope", "version: 1\nprompts:\n  - name: Daily\n    body: x\n  - name: daily\n    body: y\n", []string{"5:11:", `"daily" is the name of prompts[0] too`}},
		{"a list, not a mapping", "- a\n", []string{"mapping"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("p.yaml", []byte(c.file))
			var ps yamlcheck.Problems
			if !errors.As(err, &ps) {
				t.Fatalf("Parse = %v, want Problems", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("problems %q do not say %q", err.Error(), w)
				}
			}
			if !strings.HasPrefix(err.Error(), "p.yaml:") {
				t.Errorf("problems %q do not name the file", err.Error())
			}
		})
	}
}

func TestTheSameNameInTwoScopesIsFine(t *testing.T) {
	got, err := Parse("p.yaml", []byte("version: 1\nprompts:\n  - name: Daily\n    body: x\n  - name: daily\n    project: Work\n    body: y\n"))
	if err != nil || len(got) != 2 {
		t.Fatalf("Parse = %v, %v", got, err)
	}
}

// FuzzWriteParse: any body the library may hold reads back as written.
func FuzzWriteParse(f *testing.F) {
	for _, s := range []string{"a\nb", "  x\n", "x\n\n\n", "\ty\n  z", "a\r\nb", "#\n---\n...", "é\u2028x\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		if !utf8.ValidString(body) || strings.TrimSpace(body) == "" {
			return
		}
		in := []Entry{{Name: "n", Body: body}}
		data, err := Write(in)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Parse("f.yaml", data)
		if err != nil || !slices.Equal(in, out) {
			t.Fatalf("body %q read back as %q, %v\n%s", body, out, err, data)
		}
	})
}

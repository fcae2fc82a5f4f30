package promptfile

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/goccy/go-yaml"

	"github.com/agentdeck/agentdeck/backend/yamlcheck"
)

// Version is the version of the file this package writes, and the newest
// it reads.
const Version = 1

// MaxFileSize bounds a file; a bigger one is not read.
const MaxFileSize = 8 << 20

// MaxNameLen is the longest prompt name, as the library keeps it.
const MaxNameLen = 80

// Entry is one prompt of a file. Project is its project's name, "" for a
// global prompt.
type Entry struct {
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	Project     string `yaml:"project,omitempty" json:"project,omitempty"`
	Body        string `yaml:"body" json:"body"`
}

// File is the whole file.
type File struct {
	Version int     `yaml:"version" json:"version"`
	Prompts []Entry `yaml:"prompts" json:"prompts"`
}

var format = yamlcheck.Format{Noun: "prompt library", Needs: "a version and prompts", MaxSize: MaxFileSize}

// Parse reads a prompt file; name is the file's name in messages. Its
// error is yamlcheck.Problems, each at its place.
func Parse(name string, data []byte) ([]Entry, error) {
	doc, err := format.Read(name, data)
	if err != nil {
		return nil, err
	}
	sch, err := schema()
	if err != nil {
		return nil, yamlcheck.Problems{{File: name, Message: err.Error()}}
	}
	if issues := sch.Check(doc.Value, nil); len(issues) > 0 {
		return nil, doc.Problems(issues)
	}
	var f File
	if err := doc.Decode(&f); err != nil {
		return nil, err
	}
	if issues := check(f, sch); len(issues) > 0 {
		return nil, doc.Problems(issues)
	}
	for i := range f.Prompts {
		e := &f.Prompts[i]
		e.Name, e.Description, e.Project = strings.TrimSpace(e.Name), strings.TrimSpace(e.Description), strings.TrimSpace(e.Project)
	}
	return f.Prompts, nil
}

// ReadFile reads and parses the prompt file at path.
func ReadFile(path string) ([]Entry, error) {
	data, err := format.ReadFile(path)
	if err != nil {
		return nil, yamlcheck.Problems{{File: path, Message: err.Error()}}
	}
	return Parse(path, data)
}

// Write returns entries as a file of this Version.
func Write(entries []Entry) ([]byte, error) {
	var b strings.Builder
	b.WriteString("# Agentdeck prompt library: agentdeck prompts import FILE, or Settings → Prompts → Import.\n")
	fmt.Fprintf(&b, "version: %d\n", Version)
	if len(entries) == 0 {
		b.WriteString("prompts: []\n")
		return []byte(b.String()), nil
	}
	b.WriteString("prompts:\n")
	for _, e := range entries {
		fields := [][2]string{{"name", e.Name}, {"description", e.Description}, {"project", e.Project}, {"body", e.Body}}
		for i, f := range fields {
			if f[1] == "" && (f[0] == "description" || f[0] == "project") {
				continue
			}
			lead := "    "
			if i == 0 {
				lead = "  - "
			}
			v, err := scalar(f[1])
			if err != nil {
				return nil, fmt.Errorf("writing the prompt %q: %w", e.Name, err)
			}
			b.WriteString(lead + f[0] + ": " + v + "\n")
		}
	}
	return []byte(b.String()), nil
}

// scalar writes s as a YAML value at a prompt's field: a literal block
// (indented six spaces) when it has several lines and one can hold it
// exactly, else quoted as needed.
func scalar(s string) (string, error) {
	if literalOK(s) {
		text := strings.TrimRight(s, "\n")
		chomp := "-"
		switch strings.Count(s[len(text):], "\n") {
		case 0:
		case 1:
			chomp = ""
		default:
			chomp = "+"
		}
		lines := strings.Split(s[:len(text)], "\n")
		for i, l := range lines {
			if l != "" {
				lines[i] = "      " + l
			}
		}
		out := "|" + chomp + "\n" + strings.Join(lines, "\n")
		// The kept line breaks after the text, as empty lines.
		if n := strings.Count(s[len(text):], "\n"); n > 1 {
			out += strings.Repeat("\n", n-1)
		}
		return out, nil
	}
	if strings.ContainsFunc(s, unicode.IsControl) {
		// Go's quoting is YAML's double-quoted style for valid UTF-8
		// (\n, \t, \r, \", \\, \xXX, \uXXXX); the library would write a
		// literal block here, which cannot hold every string.
		return strconv.Quote(s), nil
	}
	v, err := yaml.Marshal(s)
	if err != nil {
		return "", err
	}
	// The library leaves some strings plain that YAML reads otherwise
	// ("? 0" is a mapping key): what does not read back as s is quoted.
	var back string
	if yaml.Unmarshal(v, &back) != nil || back != s {
		return strconv.Quote(s), nil
	}
	return strings.TrimSuffix(string(v), "\n"), nil
}

// literalOK reports whether a literal block holds s exactly: several
// lines, the first neither empty nor indented (it sets the block's
// indentation), no line ending in blanks (the YAML library drops some),
// and nothing a block cannot hold (a carriage return, other control
// characters).
func literalOK(s string) bool {
	first, _, multi := strings.Cut(s, "\n")
	if !multi || first == "" || first[0] == ' ' || first[0] == '\t' {
		return false
	}
	for l := range strings.SplitSeq(s, "\n") {
		if strings.HasSuffix(l, " ") || strings.HasSuffix(l, "\t") {
			return false
		}
	}
	for _, r := range s {
		if r != '\n' && r != '\t' && (r < 0x20 || r == 0x7f || r == 0xfeff || (r >= 0x80 && r < 0xa0)) {
			return false
		}
	}
	return true
}

// check is the meaning of a file the schema accepted.
func check(f File, sch *yamlcheck.Schema) []yamlcheck.Issue {
	var issues []yamlcheck.Issue
	if f.Version > Version {
		issues = append(issues, yamlcheck.Issue{Path: []string{"version"},
			Msg: fmt.Sprintf("version: this file is version %d, written by a newer Agentdeck; this one reads version %d. Update Agentdeck to import it", f.Version, Version)})
	}
	seen := map[string]int{}
	for i, e := range f.Prompts {
		at := func(field string) []string { return []string{"prompts", strconv.Itoa(i), field} }
		name := strings.TrimSpace(e.Name)
		switch {
		case name == "":
			issues = append(issues, yamlcheck.Issue{Path: at("name"), Msg: sch.At(at("name"), "must not be blank")})
		case strings.ContainsAny(name, "\n\r\t"):
			issues = append(issues, yamlcheck.Issue{Path: at("name"), Msg: sch.At(at("name"), "must be one line")})
		}
		if strings.TrimSpace(e.Body) == "" {
			issues = append(issues, yamlcheck.Issue{Path: at("body"), Msg: sch.At(at("body"), "must not be blank: write what the prompt says")})
		}
		key := strings.ToLower(strings.TrimSpace(e.Project)) + "\x00" + strings.ToLower(name)
		if first, dup := seen[key]; dup && name != "" {
			issues = append(issues, yamlcheck.Issue{Path: at("name"),
				Msg: sch.At(at("name"), fmt.Sprintf("%q is the name of prompts[%d] too; a name is used once per project (and once among global prompts)", name, first))})
		} else {
			seen[key] = i
		}
	}
	return issues
}

const schemaURL = "https://raw.githubusercontent.com/agentdeck/agentdeck/main/backend/promptfile/prompts.schema.json"

// schema is the file's JSON Schema, compiled on first use.
var schema = sync.OnceValues(func() (*yamlcheck.Schema, error) {
	str := func(desc string, minLen, maxLen int) yamlcheck.Obj {
		o := yamlcheck.Obj{{"description", desc}, {"type", "string"}}
		if minLen > 0 {
			o = append(o, yamlcheck.Member{"minLength", minLen})
		}
		if maxLen > 0 {
			o = append(o, yamlcheck.Member{"maxLength", maxLen})
		}
		return o
	}
	doc := yamlcheck.Obj{
		{"$schema", "https://json-schema.org/draft/2020-12/schema"},
		{"$id", schemaURL},
		{"title", "Agentdeck prompt library"},
		{"type", "object"},
		{"properties", yamlcheck.Obj{
			{"version", yamlcheck.Obj{{"description", "The file's format version: 1."}, {"type", "integer"}, {"minimum", 1}}},
			{"prompts", yamlcheck.Obj{{"description", "The prompts."}, {"type", "array"}, {"items", yamlcheck.Obj{
				{"type", "object"},
				{"properties", yamlcheck.Obj{
					{"name", str("The prompt's name, unique in its project (or among global prompts), ignoring case.", 1, MaxNameLen)},
					{"description", str("What the prompt is for, shown in the palette.", 0, 500)},
					{"project", str("The name of the project the prompt belongs to; absent for a global prompt.", 0, MaxNameLen)},
					{"body", str("The prompt's text; {{name}} is a variable, asked for when the prompt is used.", 1, 0)},
				}},
				{"required", []string{"name", "body"}},
				{"additionalProperties", false},
			}}}},
		}},
		{"required", []string{"version", "prompts"}},
		{"additionalProperties", false},
	}
	return yamlcheck.CompileSchema(schemaURL, yamlcheck.WriteSchema(doc), "prompt library")
})

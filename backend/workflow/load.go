package workflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// Problem is one thing wrong with a workflow file, with where it is when
// that is known (Line and Column are 1-based; 0 when unknown). Message says
// what was found and what was expected, and is safe to show a user.
type Problem struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
}

// Error returns "file:line:col: message", leaving out what is unknown.
func (p Problem) Error() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File)
		b.WriteByte(':')
	}
	if p.Line > 0 {
		b.WriteString(strconv.Itoa(p.Line))
		b.WriteByte(':')
		if p.Column > 0 {
			b.WriteString(strconv.Itoa(p.Column))
			b.WriteByte(':')
		}
	}
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	b.WriteString(p.Message)
	return b.String()
}

// Problems is the error Parse returns: every problem found, in file order.
// Get them back with errors.As.
type Problems []Problem

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

const (
	// MaxFileSize bounds a workflow file; a bigger one is surely not a
	// workflow and is not read.
	MaxFileSize = 1 << 20
	// maxProblems keeps a badly broken file from burying the first,
	// usually the real, problem.
	maxProblems = 20
)

// Parse reads one workflow from YAML or JSON (JSON is YAML). It checks, in
// order: the syntax, the JSON Schema (unknown or misspelled fields, wrong
// types, missing fields), then the meaning (Validate) after Normalize. The
// first step that finds problems returns them all as Problems, each with
// its line and column. name is the file's name for messages and becomes
// the definition's Source.
func Parse(name string, data []byte) (*Definition, error) {
	if len(data) > MaxFileSize {
		return nil, Problems{{File: name, Message: fmt.Sprintf("the file is %d bytes; a workflow file is at most %d", len(data), MaxFileSize)}}
	}
	// Editors on Windows may start a UTF-8 file with a byte order mark,
	// which the YAML parser would take as part of the first key.
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	body, prob := parseDocument(data)
	if prob != nil {
		prob.File = name
		return nil, Problems{*prob}
	}
	loc := newLocator(body)

	var raw any
	if err := yaml.NodeToValue(body, &raw); err != nil {
		return nil, Problems{yamlProblem(name, err)}
	}
	doc := jsonValue(raw)
	if issues := schemaIssues(doc); len(issues) > 0 {
		return nil, loc.problems(name, issues)
	}

	// The schema has rejected every field the file format does not have;
	// the decoder reads the fixed fields, readSettings the executors'.
	var d Definition
	if err := yaml.NodeToValue(body, &d); err != nil {
		return nil, Problems{yamlProblem(name, err)}
	}
	if issues := d.readSettings(doc); len(issues) > 0 {
		return nil, loc.problems(name, issues)
	}
	d.Source = name
	d.Normalize()
	if issues := d.validate(); len(issues) > 0 {
		return nil, loc.problems(name, issues)
	}
	return &d, nil
}

// LoadDir parses every *.yaml, *.yml and *.json file directly in dir, in
// name order, skipping *.schema.json (the schema may sit next to the files
// for editors). A bad file is reported as Problems and never stops the
// others; a missing dir is no problem (the user has no workflows yet).
func LoadDir(dir string) (defs []*Definition, problems []Problem) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, []Problem{{File: dir, Message: "cannot read the workflows folder: " + err.Error()}}
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !isWorkflowFile(name) {
			continue
		}
		path := filepath.Join(dir, name)
		def, err := loadFile(path)
		if err != nil {
			var ps Problems
			if errors.As(err, &ps) {
				problems = append(problems, ps...)
			} else {
				problems = append(problems, Problem{File: path, Message: err.Error()})
			}
			continue
		}
		defs = append(defs, def)
	}
	return defs, problems
}

func isWorkflowFile(name string) bool {
	if strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".schema.json") {
		return false
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

func loadFile(path string) (*Definition, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the file: %w", err)
	}
	defer f.Close()
	// A FIFO or device would block or never end.
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	// One byte more than allowed is enough for Parse to say it is too big.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read the file: %w", err)
	}
	return Parse(path, data)
}

// parseDocument parses data and returns the body of its only document.
func parseDocument(data []byte) (ast.Node, *Problem) {
	file, err := parser.ParseBytes(data, 0)
	if err != nil {
		p := yamlProblem("", err)
		return nil, &p
	}
	var docs []*ast.DocumentNode
	for _, doc := range file.Docs {
		if doc != nil && doc.Body != nil {
			docs = append(docs, doc)
		}
	}
	if len(docs) == 0 {
		return nil, &Problem{Message: "the file is empty: a workflow needs at least name and kind"}
	}
	if len(docs) > 1 {
		line, col := nodePos(docs[1].Body)
		return nil, &Problem{Line: line, Column: col,
			Message: "a file holds one workflow, but a second YAML document starts here (after ---); move it to a file of its own"}
	}
	body := docs[0].Body
	if n := expandedSize(body, maxExpandedNodes); n > maxExpandedNodes {
		at := body
		if aliases := ast.Filter(ast.AliasType, body); len(aliases) > 0 {
			at = aliases[0]
		}
		line, col := nodePos(at)
		return nil, &Problem{Line: line, Column: col,
			Message: fmt.Sprintf("the file holds more than %d values, counting what its aliases repeat; a workflow needs far fewer", maxExpandedNodes)}
	}
	return body, nil
}

// maxExpandedNodes bounds the values a file may expand to through aliases,
// which can grow exponentially ("billion laughs").
const maxExpandedNodes = 100_000

// expandedSize counts the values body stands for with aliases expanded,
// stopping once the count passes limit.
func expandedSize(body ast.Node, limit int) int {
	anchors := map[string][]ast.Node{} // a name may be anchored more than once
	for _, n := range ast.Filter(ast.AnchorType, body) {
		if a, ok := n.(*ast.AnchorNode); ok && a.Name != nil {
			name := a.Name.GetToken().Value
			anchors[name] = append(anchors[name], a.Value)
		}
	}
	memo := map[ast.Node]int{}
	var size func(n ast.Node) int
	size = func(n ast.Node) int {
		switch v := n.(type) {
		case nil:
			return 0
		case *ast.AnchorNode:
			return size(v.Value)
		case *ast.TagNode:
			return size(v.Value)
		case *ast.AliasNode:
			if v.Value == nil {
				return 1
			}
			most := 1
			for _, target := range anchors[v.Value.GetToken().Value] {
				if s, ok := memo[target]; ok {
					most = max(most, s)
					continue
				}
				memo[target] = 1 // a cycle counts once
				s := size(target)
				memo[target] = s
				most = max(most, s)
			}
			return most
		case *ast.MappingNode:
			return collectionSize(v.Values, size, limit)
		case *ast.MappingValueNode:
			return size(v.Key) + size(v.Value)
		case *ast.SequenceNode:
			return collectionSize(v.Values, size, limit)
		}
		return 1
	}
	return size(body)
}

// collectionSize is expandedSize's count for a mapping or a sequence: one
// for the node and the sizes of its items, stopping once it passes limit.
func collectionSize[N ast.Node](items []N, size func(ast.Node) int, limit int) int {
	total := 1
	for _, it := range items {
		if total += size(it); total > limit {
			break
		}
	}
	return total
}

// yamlProblem turns a go-yaml error into a problem at its token.
func yamlProblem(file string, err error) Problem {
	p := Problem{File: file, Message: err.Error()}
	var ye yaml.Error
	if !errors.As(err, &ye) {
		return p
	}
	if tk := ye.GetToken(); tk != nil && tk.Position != nil {
		p.Line, p.Column = tk.Position.Line, tk.Position.Column
	}
	var typ *yaml.TypeError
	switch {
	case errors.As(err, &typ) && typ.DstType != nil && typ.SrcType != nil:
		p.Message = fmt.Sprintf("expected %s, got %s", goTypeName(typ.DstType.String()), goTypeName(typ.SrcType.String()))
	default:
		p.Message = "invalid YAML: " + yamlPosRe.ReplaceAllString(ye.GetMessage(), "line $1")
	}
	return p
}

func goTypeName(t string) string {
	switch {
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["):
		return "a mapping"
	case t == "string", strings.HasSuffix(t, ".Kind"):
		return "a string"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "a whole number"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case t == "bool":
		return "true or false"
	}
	return t
}

// UnmarshalYAML reads "30s", "2m", "1h30m" or a whole number of seconds.
func (d *Duration) UnmarshalYAML(unmarshal func(any) error) error {
	var v any
	if err := unmarshal(&v); err != nil {
		return err
	}
	return d.set(v)
}

// UnmarshalJSON reads "30s", "2m", "1h30m" or a whole number of seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var v any
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return err
	}
	if n, ok := v.(json.Number); ok {
		i, err := n.Int64()
		if err != nil {
			return fmt.Errorf("invalid duration %s: %s", n, durationHint)
		}
		v = i
	}
	return d.set(v)
}

// MarshalJSON writes the duration as a string such as "2m".
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(d.String())
}

// MarshalYAML writes the duration as a string such as "2m".
func (d Duration) MarshalYAML() (any, error) {
	return d.String(), nil
}

// String is time.Duration's form without zero trailing units: "2m", not
// "2m0s".
func (d Duration) String() string {
	s := time.Duration(d).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

const durationHint = `expected a duration such as "30s", "2m" or "1h30m", or a whole number of seconds`

func (d *Duration) set(v any) error {
	switch v := v.(type) {
	case string:
		t, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("invalid duration %q: %s", v, durationHint)
		}
		*d = Duration(t)
		return nil
	case int64, int, uint64:
		n, _ := strconv.ParseInt(fmt.Sprint(v), 10, 64)
		if fmt.Sprint(n) != fmt.Sprint(v) || n > math.MaxInt64/int64(time.Second) || n < math.MinInt64/int64(time.Second) {
			return fmt.Errorf("invalid duration: %v seconds is too long", v)
		}
		*d = Duration(time.Duration(n) * time.Second)
		return nil
	case nil:
		*d = 0
		return nil
	}
	return fmt.Errorf("invalid duration %v: %s", v, durationHint)
}

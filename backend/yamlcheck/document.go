package yamlcheck

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// Format says what kind of file is read, for the messages about it.
type Format struct {
	// Noun names one file's content: "workflow", "suite".
	Noun string
	// Needs says what an empty file lacks: "name and kind".
	Needs string
	// MaxSize bounds the file in bytes; a bigger one is not read.
	MaxSize int
}

// MaxExpandedNodes bounds the values a file may expand to through
// aliases, which can grow exponentially ("billion laughs").
const MaxExpandedNodes = 100_000

// maxProblems keeps a badly broken file from burying the first, usually
// the real, problem.
const maxProblems = 20

// Document is one parsed file: its YAML tree, for positions, and its
// value as the schema validator takes it (JSONValue).
type Document struct {
	File  string
	Body  ast.Node
	Value any
	loc   *locator
}

// Read parses data, one YAML document (JSON is YAML), named file in
// messages. It checks the size, the syntax, that there is exactly one
// document, and how far aliases expand; a leading UTF-8 byte order mark
// is ignored. Its error is Problems.
func (f Format) Read(file string, data []byte) (*Document, error) {
	if len(data) > f.MaxSize {
		return nil, Problems{{File: file, Message: fmt.Sprintf("the file is %d bytes; a %s file is at most %d", len(data), f.Noun, f.MaxSize)}}
	}
	// Editors on Windows may start a UTF-8 file with a byte order mark,
	// which the YAML parser would take as part of the first key.
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	body, prob := f.parseDocument(data)
	if prob != nil {
		prob.File = file
		return nil, Problems{*prob}
	}
	var raw any
	if err := yaml.NodeToValue(body, &raw); err != nil {
		return nil, Problems{yamlProblem(file, err)}
	}
	return &Document{File: file, Body: body, Value: JSONValue(raw), loc: newLocator(body)}, nil
}

// ReadFile reads the file at path, at most f.MaxSize bytes and one more
// (so that Read can say it is too big); it refuses what is not a regular
// file, since a FIFO or a device would block or never end.
func (f Format) ReadFile(path string) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the file: %w", err)
	}
	defer fh.Close()
	if info, err := fh.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(fh, int64(f.MaxSize)+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read the file: %w", err)
	}
	return data, nil
}

// Decode fills v, a Go value with yaml (or json) tags, from the document.
// Call it after the schema accepted the document: its error is then rare
// (a number too big for its Go type), and is Problems.
func (d *Document) Decode(v any) error {
	if err := yaml.NodeToValue(d.Body, v); err != nil {
		return Problems{yamlProblem(d.File, err)}
	}
	return nil
}

// Problems places issues in the file: each gets the line and column of
// its path. They come back sorted by place, without duplicates, at most
// maxProblems and a line saying how many more there were.
func (d *Document) Problems(issues []Issue) Problems {
	ps := make(Problems, 0, len(issues))
	for _, is := range issues {
		line, col := d.loc.pos(is.Path, is.Key)
		ps = append(ps, Problem{File: d.File, Line: line, Column: col, Message: is.Msg})
	}
	slices.SortStableFunc(ps, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column), strings.Compare(a.Message, b.Message))
	})
	ps = slices.CompactFunc(ps, func(a, b Problem) bool { return a == b })
	if len(ps) > maxProblems {
		more := len(ps) - maxProblems
		ps = append(ps[:maxProblems], Problem{File: d.File, Message: fmt.Sprintf("... and %d more problems", more)})
	}
	return ps
}

// Pos returns the line and column where path is written (the deepest
// node found along it, or its key when key is set), 0 when unknown.
func (d *Document) Pos(path []string, key bool) (line, col int) {
	return d.loc.pos(path, key)
}

// parseDocument parses data and returns the body of its only document.
func (f Format) parseDocument(data []byte) (ast.Node, *Problem) {
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
		return nil, &Problem{Message: fmt.Sprintf("the file is empty: a %s needs at least %s", f.Noun, f.Needs)}
	}
	if len(docs) > 1 {
		line, col := nodePos(docs[1].Body)
		return nil, &Problem{Line: line, Column: col,
			Message: fmt.Sprintf("a file holds one %s, but a second YAML document starts here (after ---); move it to a file of its own", f.Noun)}
	}
	body := docs[0].Body
	if n := expandedSize(body, MaxExpandedNodes); n > MaxExpandedNodes {
		at := body
		if aliases := ast.Filter(ast.AliasType, body); len(aliases) > 0 {
			at = aliases[0]
		}
		line, col := nodePos(at)
		return nil, &Problem{Line: line, Column: col,
			Message: fmt.Sprintf("the file holds more than %d values, counting what its aliases repeat; a %s needs far fewer", MaxExpandedNodes, f.Noun)}
	}
	return body, nil
}

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

var yamlPosRe = regexp.MustCompile(`\[(\d+):\d+\]`) // go-yaml's "[line:col]" in a message

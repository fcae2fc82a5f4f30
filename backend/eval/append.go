package eval

import (
	"bytes"
	"fmt"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

// Editing a suite file for a person who keeps it by hand too: cases are
// added to it as text, so its comments, order and layout stay as written.
// The result is checked by the caller (Parse) before it is saved.

// AppendCases adds the cases of the suite text add (as FromTurn makes
// them, perhaps edited) at the end of the suite file text dst. A case id
// dst already has is a Conflict: the person renames one, nothing is lost.
func AppendCases(dst, add []byte) ([]byte, error) {
	// The new cases are read as values in their order and written anew:
	// go-yaml's nodes moved from one file to another lose the indentation
	// of their block scalars (a multi-line prompt).
	var addDoc yaml.MapSlice
	if err := yaml.UnmarshalWithOptions(add, &addDoc, yaml.UseOrderedMap()); err != nil {
		return nil, apperr.Wrap(err, apperr.Invalid, "The new case is not valid YAML: %s", firstLine(err))
	}
	var newCases []any
	for _, item := range addDoc {
		if item.Key == "cases" {
			newCases, _ = item.Value.([]any)
		}
	}
	if len(newCases) == 0 {
		return nil, apperr.New(apperr.Invalid, "The new text has no cases: list them under cases:.")
	}
	seqNode, err := yaml.ValueToNode(newCases, yaml.UseLiteralStyleIfMultiline(true))
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Invalid, "The new cases cannot be written: %s", firstLine(err))
	}
	seq, ok := seqNode.(*ast.SequenceNode)
	if !ok {
		return nil, apperr.New(apperr.Invalid, "The new text's cases are not a list.")
	}
	dstFile, err := parser.ParseBytes(dst, parser.ParseComments)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Invalid, "The suite file is not valid YAML (%s); mend it before adding to it.", firstLine(err))
	}
	have, err := caseIDs(dst)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Invalid, "The suite file's cases cannot be read (%s); mend it before adding to it.", firstLine(err))
	}
	adding, err := caseIDs(add)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Invalid, "The new cases cannot be read: %s", firstLine(err))
	}
	for id := range adding {
		if id != "" && have[id] {
			return nil, apperr.New(apperr.Conflict, "The suite already has a case %q: give the new one another id.", id)
		}
	}
	if _, err := casesPath.FilterFile(dstFile); err != nil {
		// No cases: yet (a suite being started): they are the new ones.
		out := append(bytes.TrimRight(dst, "\n"), "\ncases:\n"...)
		return append(append(out, indent(seq.String())...), '\n'), nil
	}
	if err := casesPath.MergeFromNode(dstFile, seq); err != nil {
		return nil, fmt.Errorf("adding the cases to the suite: %w", err)
	}
	return append(bytes.TrimRight([]byte(dstFile.String()), "\n"), '\n'), nil
}

var casesPath = mustPath("$.cases")

func mustPath(s string) *yaml.Path {
	p, err := yaml.PathString(s)
	if err != nil {
		panic(err)
	}
	return p
}

// caseIDs reads the ids of a suite text's cases.
func caseIDs(text []byte) (map[string]bool, error) {
	var s struct {
		Cases []struct {
			ID string `yaml:"id"`
		} `yaml:"cases"`
	}
	if err := yaml.Unmarshal(text, &s); err != nil {
		return nil, err
	}
	ids := map[string]bool{}
	for _, c := range s.Cases {
		ids[c.ID] = true
	}
	return ids, nil
}

// indent puts every line of s two spaces in.
func indent(s string) []byte {
	var b bytes.Buffer
	for _, line := range bytes.Split([]byte(s), []byte("\n")) {
		if len(line) > 0 {
			b.WriteString("  ")
			b.Write(line)
		}
		b.WriteByte('\n')
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

func firstLine(err error) string {
	s := err.Error()
	if i := bytes.IndexByte([]byte(s), '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

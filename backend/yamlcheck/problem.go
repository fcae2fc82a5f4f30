package yamlcheck

import (
	"strconv"
	"strings"
)

// Problem is one thing wrong with a file, with where it is when that is
// known (Line and Column are 1-based; 0 when unknown). Message says what
// was found and what was expected, and is safe to show a user.
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

// Problems is every problem found in a file, in file order; an error. Get
// them back with errors.As.
type Problems []Problem

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// Issue is a problem at a place in the file given as JSON Pointer tokens,
// before its line and column are known (Document.Problems finds them).
type Issue struct {
	Path []string
	Key  bool // point at the key of the last token, not its value
	Msg  string
}

// Where writes a path as a person would: phases[0].stages[1].writer.
// isList says which fields hold lists, whose number tokens are indexes
// (a mapping's key may be a number too).
func Where(path []string, isList func(field string) bool) string {
	var b strings.Builder
	for i, tok := range path {
		if i > 0 && isIndex(tok) && isList(path[i-1]) {
			b.WriteString("[" + tok + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

// At prefixes msg with the path it is about (Where), if any.
func At(path []string, msg string, isList func(field string) bool) string {
	if len(path) == 0 {
		return msg
	}
	return Where(path, isList) + ": " + msg
}

func isIndex(tok string) bool {
	_, err := strconv.Atoi(tok)
	return err == nil
}

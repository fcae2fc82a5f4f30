package cli

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// citationRE finds a citation as the model writes them: [3], or several
// in one pair of brackets, [1, 3].
var citationRE = regexp.MustCompile(`\[(\d{1,4}(?:\s*,\s*\d{1,4})*)\]`)

// citations are the numbers an answer cites ([n]), each once, in the
// order it first cites them. What only looks like one is left out: an
// index (rows[1]: a letter, digit or _ right before it), a Markdown link
// ([1](url)) or a link definition ([1]: url).
func citations(text string) []int {
	var out []int
	seen := map[int]bool{}
	for _, m := range citationRE.FindAllStringSubmatchIndex(text, -1) {
		if r, _ := utf8.DecodeLastRuneInString(text[:m[0]]); r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) {
			continue
		}
		if rest := text[m[1]:]; strings.HasPrefix(rest, "(") || strings.HasPrefix(rest, ":") {
			continue
		}
		for _, part := range strings.Split(text[m[2]:m[3]], ",") {
			n, err := strconv.Atoi(strings.TrimSpace(part))
			if err != nil || n < 1 || seen[n] {
				continue
			}
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// writeFootnotes prints, after an answer, a footnote for each citation
// in it: the source the turn was given under that number, or, when it
// was given none, that the citation is unverified. It prints nothing for
// a turn that was given no sources: its brackets are not citations.
func writeFootnotes(w io.Writer, answer string, sources []turn.Source) {
	if len(sources) == 0 {
		return
	}
	byN := map[int]turn.Source{}
	for _, s := range sources {
		byN[s.N] = s
	}
	cited := citations(answer)
	if len(cited) == 0 {
		return
	}
	fmt.Fprintln(w)
	for _, n := range cited {
		if s, ok := byN[n]; ok {
			fmt.Fprintf(w, "[%d] %s\n", n, export.SourceLine(s))
		} else {
			fmt.Fprintf(w, "[%d] %s\n", n, export.UnverifiedSource)
		}
	}
}

package cite

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentdeck/agentdeck/backend/turn"
)

// Citation is a number an answer cites, and the source given under it
// (nil: never given in the turn, so unverified).
type Citation struct {
	N      int          `json:"n"`
	Source *turn.Source `json:"source,omitempty"`
}

// Verified reports whether the turn gave a source under this number.
func (c Citation) Verified() bool { return c.Source != nil }

// Mark is one citation in an answer's text: answer[Start:End] is "[1]" or
// "[2, 3]", citing Ns.
type Mark struct {
	Start, End int
	Ns         []int
}

// citationRE is a bracket of numbers separated by commas: [1], [2, 3].
// "[1][2]" is two marks.
var citationRE = regexp.MustCompile(`\[(\d{1,4}(?:\s*,\s*\d{1,4})*)\]`)

// Marks finds the citations in an answer, in order. What only looks like
// one is left out: a Markdown link's text ([1](url)) or a link definition
// ([1]: url), an index (rows[1]: a letter, digit or _ right before it),
// and a bracket inside a code span or block.
func Marks(answer string) []Mark {
	var out []Mark
	code := codeRanges(answer)
	for _, m := range citationRE.FindAllStringSubmatchIndex(answer, -1) {
		if rest := answer[m[1]:]; strings.HasPrefix(rest, "(") || strings.HasPrefix(rest, ":") || inRanges(code, m[0]) {
			continue
		}
		if r, _ := utf8.DecodeLastRuneInString(answer[:m[0]]); r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) {
			continue
		}
		var ns []int
		for _, f := range strings.Split(answer[m[2]:m[3]], ",") {
			if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n > 0 {
				ns = append(ns, n)
			}
		}
		if len(ns) > 0 {
			out = append(out, Mark{Start: m[0], End: m[1], Ns: ns})
		}
	}
	return out
}

// Citations are the numbers an answer cites, each once, in the order first
// cited, with the source the turn gave under it (unverified when none).
func Citations(answer string, sources []turn.Source) []Citation {
	byN := make(map[int]*turn.Source, len(sources))
	for i := range sources {
		byN[sources[i].N] = &sources[i]
	}
	seen := map[int]bool{}
	var out []Citation
	for _, m := range Marks(answer) {
		for _, n := range m.Ns {
			if !seen[n] {
				seen[n] = true
				out = append(out, Citation{N: n, Source: byN[n]})
			}
		}
	}
	return out
}

// codeRanges are the byte ranges of code spans and fenced blocks.
func codeRanges(s string) [][2]int {
	var out [][2]int
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		run := 1
		for i+run < len(s) && s[i+run] == '`' {
			run++
		}
		fence := s[i : i+run]
		end := strings.Index(s[i+run:], fence)
		if end < 0 {
			return append(out, [2]int{i, len(s)})
		}
		stop := i + run + end + run
		out = append(out, [2]int{i, stop})
		i = stop
	}
	return out
}

func inRanges(rs [][2]int, at int) bool {
	for _, r := range rs {
		if at >= r[0] && at < r[1] {
			return true
		}
	}
	return false
}

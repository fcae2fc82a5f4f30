package timeline

import (
	"strings"
	"unicode"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// WordDiff returns the ops that turn a into b, word by word: a word is a
// run of letters and digits, a run of white space, or any other single
// character (a CJK ideograph, kana, a punctuation mark, an emoji), so no
// op ever splits a character or a word. Changes parted only by white
// space are shown as one.
//
// The diff itself is go-diff's (Myers, with its speedups), run over the
// words rather than the characters: each distinct word is coded as one
// rune, the way go-diff diffs lines, and decoded after.
func WordDiff(a, b string) []TextOp {
	var words []string
	index := map[string]int{}
	code := func(s string) []rune {
		var out []rune
		for _, w := range splitWords(s) {
			i, ok := index[w]
			if !ok {
				i = len(words)
				index[w] = i
				words = append(words, w)
			}
			out = append(out, indexRune(i))
		}
		return out
	}
	ra, rb := code(a), code(b)
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0 // the whole diff, however long it takes: texts are small
	diffs := dmp.DiffMainRunes(ra, rb, false)
	ops := make([]TextOp, 0, len(diffs))
	for _, d := range diffs {
		var text strings.Builder
		for _, r := range d.Text {
			text.WriteString(words[runeIndex(r)])
		}
		if text.Len() == 0 {
			continue
		}
		op := "equal"
		switch d.Type {
		case diffmatchpatch.DiffInsert:
			op = "insert"
		case diffmatchpatch.DiffDelete:
			op = "delete"
		}
		ops = append(ops, TextOp{Op: op, Text: text.String()})
	}
	return joinChanges(ops)
}

// joinChanges makes a diff read as people write one: white space alone
// between two changes joins them ("[-has one line-]{+is empty+}", not
// "[-has one-]{+is+} [-line-]{+empty+}"), and each run of changes is one
// delete then one insert.
func joinChanges(ops []TextOp) []TextOp {
	var out []TextOp
	var del, ins strings.Builder
	flush := func() {
		if del.Len() > 0 {
			out = append(out, TextOp{Op: "delete", Text: del.String()})
		}
		if ins.Len() > 0 {
			out = append(out, TextOp{Op: "insert", Text: ins.String()})
		}
		del.Reset()
		ins.Reset()
	}
	for i, o := range ops {
		between := i > 0 && i < len(ops)-1 && ops[i-1].Op != "equal" && ops[i+1].Op != "equal"
		switch {
		case o.Op == "delete":
			del.WriteString(o.Text)
		case o.Op == "insert":
			ins.WriteString(o.Text)
		case between && strings.TrimSpace(o.Text) == "":
			del.WriteString(o.Text)
			ins.WriteString(o.Text)
		default:
			flush()
			out = append(out, o)
		}
	}
	flush()
	return out
}

// indexRune codes a word's index as a rune that survives go-diff's
// string conversions: the index itself, skipping the surrogates, which
// are not runes. runeIndex decodes it.
func indexRune(i int) rune {
	if i >= 0xD800 {
		i += 0xE000 - 0xD800
	}
	return rune(i)
}

func runeIndex(r rune) int {
	if r >= 0xE000 {
		r -= 0xE000 - 0xD800
	}
	return int(r)
}

// splitWords cuts s into words (see WordDiff); joined they are s.
func splitWords(s string) []string {
	var out []string
	start, class := 0, -1
	for i, r := range s {
		c := charClass(r)
		if i > start && (c != class || c == classOne) {
			out = append(out, s[start:i])
			start = i
		}
		class = c
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

const (
	classWord = iota
	classSpace
	classOne // a character that is a word by itself
)

func charClass(r rune) int {
	switch {
	case unicode.IsSpace(r):
		return classSpace
	case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana):
		return classOne
	case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '_':
		return classWord
	default:
		return classOne
	}
}

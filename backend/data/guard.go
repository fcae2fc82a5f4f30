package data

import (
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

// forbidden are the words that may not appear outside string literals,
// quoted identifiers and comments. Together with "starts with SELECT or
// WITH" and "one statement" they leave nothing SQLite can write with.
var forbidden = map[string]bool{
	"ATTACH": true, "DETACH": true, "PRAGMA": true, "INSERT": true, "UPDATE": true, "DELETE": true,
	"CREATE": true, "DROP": true, "ALTER": true, "REPLACE": true, "VACUUM": true,
}

const readOnlyHint = "query_data is read-only and runs one SELECT (or WITH ... SELECT) statement; the attached data cannot be changed. Compute what you need in the SELECT, or in a WITH clause, instead."

type tokenKind int

const (
	tokWord   tokenKind = iota // keyword or bare identifier
	tokQuoted                  // string literal or quoted identifier
	tokSemi
	tokOpen // (
	tokOther
)

type token struct {
	kind tokenKind
	text string
	pos  int // byte offset in the SQL
}

// checkReadOnly is the first of the three read-only layers (see the package
// doc). It returns the one statement in q, without its trailing ';' and
// anything after it, or an *apperr.Error that tells the model what to fix.
//
// It lexes the way SQLite's tokenizer does where that matters: comments
// ("--" to the end of the line, "/*" to "*/" or the end), string literals
// in single quotes and quoted identifiers in double quotes or backquotes
// (the quote doubled inside), and identifiers in [...] (no escapes). Wherever it could disagree with SQLite
// it errs on the side of seeing more words: a number is only its digits,
// so "1DELETE" shows DELETE.
func checkReadOnly(q string) (string, error) {
	toks, err := lex(q)
	if err != nil {
		return "", err
	}
	if len(toks) == 0 || toks[0].kind == tokSemi {
		return "", apperr.New(apperr.Invalid, "The SQL is empty. Send one SELECT statement, for example SELECT * FROM sales LIMIT 10.")
	}
	if first := upperASCII(toks[0].text); toks[0].kind != tokWord || (first != "SELECT" && first != "WITH") {
		return "", apperr.New(apperr.Invalid, "The statement starts with %q. %s", clip(toks[0].text, 20), readOnlyHint)
	}
	end := len(q)
	for i, t := range toks {
		if t.kind == tokSemi {
			for _, after := range toks[i+1:] {
				if after.kind != tokSemi {
					return "", apperr.New(apperr.Invalid, "Send one statement per call: there is more SQL after the ';' at character %d.", t.pos+1)
				}
			}
			end = t.pos
			break
		}
		if t.kind != tokWord {
			continue
		}
		w := upperASCII(t.text)
		if !forbidden[w] {
			continue
		}
		if w == "REPLACE" && i+1 < len(toks) && toks[i+1].kind == tokOpen {
			continue // the string function replace(x, y, z)
		}
		return "", apperr.New(apperr.Invalid, "%s is not allowed (at character %d). %s", w, t.pos+1, readOnlyHint)
	}
	return q[:end], nil
}

// lex splits q into tokens, dropping white space and comments.
func lex(q string) ([]token, error) {
	// SQLite stops reading at a NUL; refuse it rather than reason about that.
	if i := strings.IndexByte(q, 0); i >= 0 {
		return nil, apperr.New(apperr.Invalid, "The SQL contains a NUL character at character %d; remove it.", i+1)
	}
	var toks []token
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == '-' && strings.HasPrefix(q[i:], "--"):
			if n := strings.IndexByte(q[i:], '\n'); n >= 0 {
				i += n + 1
			} else {
				i = len(q)
			}
		case c == '/' && strings.HasPrefix(q[i:], "/*"):
			if n := strings.Index(q[i+2:], "*/"); n >= 0 {
				i += 2 + n + 2
			} else {
				i = len(q)
			}
		case c == '\'' || c == '"' || c == '`':
			n := quotedLen(q[i:], c)
			if n < 0 {
				what := "string literal"
				if c != '\'' {
					what = "quoted identifier"
				}
				return nil, apperr.New(apperr.Invalid, "The SQL has an unterminated %s starting at character %d (%s...).", what, i+1, clip(q[i:], 20))
			}
			toks = append(toks, token{tokQuoted, q[i : i+n], i})
			i += n
		case c == '[':
			n := strings.IndexByte(q[i:], ']')
			if n < 0 {
				return nil, apperr.New(apperr.Invalid, "The SQL has an unterminated quoted identifier starting at character %d (%s...).", i+1, clip(q[i:], 20))
			}
			toks = append(toks, token{tokQuoted, q[i : i+n+1], i})
			i += n + 1
		case isWordStart(c):
			j := i + 1
			for j < len(q) && (isWordStart(q[j]) || isDigit(q[j]) || q[j] == '$') {
				j++
			}
			toks = append(toks, token{tokWord, q[i:j], i})
			i = j
		case isDigit(c):
			j := i + 1
			for j < len(q) && (isDigit(q[j]) || q[j] == '.') {
				j++
			}
			toks = append(toks, token{tokOther, q[i:j], i})
			i = j
		case c == ';':
			toks = append(toks, token{tokSemi, ";", i})
			i++
		case c == '(':
			toks = append(toks, token{tokOpen, "(", i})
			i++
		default:
			toks = append(toks, token{tokOther, q[i : i+1], i})
			i++
		}
	}
	return toks, nil
}

// quotedLen returns the length of the quoted token at the start of s
// (quote doubled inside), or -1 if it is not closed.
func quotedLen(s string, quote byte) int {
	for i := 1; i < len(s); i++ {
		if s[i] != quote {
			continue
		}
		if i+1 < len(s) && s[i+1] == quote {
			i++
			continue
		}
		return i + 1
	}
	return -1
}

// isWordStart matches SQLite's identifier characters, bytes of UTF-8
// sequences included, less the digits and '$' a word cannot start with.
func isWordStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

// upperASCII upper-cases ASCII letters only, as SQLite does for keywords
// (strings.ToUpper would turn "ſelect" into "SELECT").
func upperASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// clip shortens s to at most n runes for a message.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

package knowledge

import (
	"strings"
	"unicode/utf8"
)

// DefaultPassageRunes is about how long a passage is: long enough to hold
// a paragraph or a small table, short enough that a few fit a prompt.
const DefaultPassageRunes = 1200

// Split cuts extracted text into passages of at most about maxRunes
// characters. A passage never spans two pages or two headings; inside a
// block it breaks between paragraphs, then between lines, then between
// words, and only a single word longer than maxRunes is cut inside.
func Split(ex Extracted, maxRunes int) []Passage {
	var out []Passage
	for _, pg := range ex.Pages {
		var cur strings.Builder
		heading := ""
		flush := func() {
			if t := strings.TrimSpace(cur.String()); t != "" {
				out = append(out, Passage{Ord: len(out), Page: max(pg.Number, 1), Heading: heading, Text: t})
			}
			cur.Reset()
		}
		for _, b := range pg.Blocks {
			if b.Heading != heading {
				flush()
				heading = b.Heading
			}
			for _, piece := range pieces(strings.TrimSpace(b.Text), maxRunes) {
				if cur.Len() > 0 && utf8.RuneCountInString(cur.String())+2+utf8.RuneCountInString(piece) > maxRunes {
					flush()
				}
				if cur.Len() > 0 {
					cur.WriteString("\n\n")
				}
				cur.WriteString(piece)
			}
		}
		flush()
	}
	return out
}

// pieces cuts text into pieces of at most maxRunes, at the widest break
// that makes them fit: paragraphs, lines, words, runes.
func pieces(text string, maxRunes int) []string {
	if text == "" {
		return nil
	}
	if utf8.RuneCountInString(text) <= maxRunes {
		return []string{text}
	}
	for _, sep := range []string{"\n\n", "\n", " "} {
		parts := strings.Split(text, sep)
		if len(parts) == 1 {
			continue
		}
		var out []string
		var cur string
		for _, p := range parts {
			switch {
			case cur == "":
				cur = p
			case utf8.RuneCountInString(cur)+len(sep)+utf8.RuneCountInString(p) <= maxRunes:
				cur += sep + p
			default:
				out = append(out, pieces(cur, maxRunes)...)
				cur = p
			}
		}
		return append(out, pieces(cur, maxRunes)...)
	}
	var out []string
	r := []rune(text)
	for len(r) > maxRunes {
		out = append(out, string(r[:maxRunes]))
		r = r[maxRunes:]
	}
	return append(out, string(r))
}

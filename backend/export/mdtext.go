package export

import (
	"fmt"
	"strings"
	"time"
)

// Markdown text: the repairs that keep one message from swallowing the
// rest of a transcript, and the escaping of what Agentdeck writes around
// it (see writeMarkdown).

// mdText writes message text as Markdown, repaired so it ends every block
// it opens (see writeMarkdown). It returns the opening line of a code
// fence the text left open, "" for none.
func mdText(b *strings.Builder, text string) (openFence string) {
	text = strings.TrimRight(text, " \t\r\n")
	if text == "" {
		return ""
	}
	out, open := mdRepairOpen(text)
	b.WriteString(out)
	b.WriteString("\n\n")
	return open
}

// mdRepair closes a code fence left open at the end of text and escapes the
// "<" of an HTML block that has no end, the two constructs that would
// otherwise run on through everything after the message.
func mdRepair(text string) string {
	out, _ := mdRepairOpen(text)
	return out
}

// mdOpensFence reports whether text starts with a code fence.
func mdOpensFence(text string) bool {
	return strings.HasPrefix(text, "```") || strings.HasPrefix(text, "~~~")
}

// mdRepairOpen is mdRepair, and the opening line of the fence it closed
// ("" for none), for the text that continues it.
func mdRepairOpen(text string) (string, string) {
	lines := strings.Split(text, "\n")
	lower := mdASCIILower(text) // same length as text, unlike strings.ToLower
	var fenceChar byte
	fenceLen, off, opener := 0, 0, ""
	for i, line := range lines {
		start := off
		off += len(line) + 1
		indent := len(line) - len(strings.TrimLeft(line, " "))
		if indent > 3 {
			continue
		}
		rest := line[indent:]
		if fenceLen > 0 {
			if n := mdRun(rest, fenceChar); n >= fenceLen && strings.TrimSpace(rest[n:]) == "" {
				fenceLen = 0
			}
			continue
		}
		if mdOpensFence(rest) {
			c := rest[0]
			n := mdRun(rest, c)
			if c == '`' && strings.Contains(rest[n:], "`") {
				continue // not a fence: a backtick in a backtick fence's info string
			}
			fenceChar, fenceLen, opener = c, n, strings.TrimRight(rest, " \t\r")
			continue
		}
		if end, ok := mdHTMLBlockEnd(rest); ok && !strings.Contains(lower[start:], end) {
			lines[i] = line[:indent] + `\` + rest
		}
	}
	out := strings.Join(lines, "\n")
	if fenceLen == 0 {
		return out, ""
	}
	return out + "\n" + strings.Repeat(string(fenceChar), fenceLen), opener
}

// mdHTMLBlockEnd reports whether line starts an HTML block that ends only
// at a marker rather than at a blank line (CommonMark kinds 1 to 5), and
// that marker, lowercased.
func mdHTMLBlockEnd(line string) (string, bool) {
	l := strings.ToLower(line)
	for _, tag := range []string{"pre", "script", "style", "textarea"} {
		if after, ok := strings.CutPrefix(l, "<"+tag); ok && (after == "" || strings.ContainsAny(after[:1], " \t>")) {
			return "</" + tag + ">", true
		}
	}
	switch {
	case strings.HasPrefix(l, "<!--"):
		return "-->", true
	case strings.HasPrefix(l, "<?"):
		return "?>", true
	case strings.HasPrefix(l, "<![cdata["):
		return "]]>", true
	case len(l) > 2 && strings.HasPrefix(l, "<!") && l[2] >= 'a' && l[2] <= 'z':
		return ">", true
	}
	return "", false
}

// mdCodeBlock writes content in a fenced code block whose fence is longer
// than any backtick run in it, so no line of content can close it; indent
// puts the block inside a list item.
func mdCodeBlock(b *strings.Builder, indent, lang, content string) {
	content = strings.TrimRight(content, "\n")
	fence := strings.Repeat("`", max(3, mdLongestRun(content, '`')+1))
	fmt.Fprintf(b, "%s%s%s\n", indent, fence, lang)
	for _, line := range strings.Split(content, "\n") {
		if line == "" {
			b.WriteString("\n")
			continue
		}
		b.WriteString(indent + line + "\n")
	}
	fmt.Fprintf(b, "%s%s\n\n", indent, fence)
}

// mdCode writes s as inline code, on one line, with a backtick string
// longer than any in s.
func mdCode(s string) string {
	s = mdOneLine(s)
	if s == "" {
		return "``"
	}
	fence := strings.Repeat("`", mdLongestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mdEscape makes s plain text on one line: every character Markdown could
// read as markup is backslash-escaped.
func mdEscape(s string) string {
	s = mdOneLine(s)
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_[]<>#|~&!", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// mdCell is a table cell: escaped, and never empty.
func mdCell(s string) string {
	if strings.TrimSpace(s) == "" {
		return "—"
	}
	return mdEscape(s)
}

func mdOneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func mdASCIILower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// mdRun counts the c characters at the start of s.
func mdRun(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// mdLongestRun is the length of the longest run of c in s.
func mdLongestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

func mdTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

func mdDuration(ms int64) string {
	switch {
	case ms <= 0:
		return "—"
	case ms < 1000:
		return fmt.Sprintf("%d ms", ms)
	case ms < 60_000:
		return fmt.Sprintf("%.1f s", float64(ms)/1000)
	}
	return (time.Duration(ms) * time.Millisecond).Round(time.Second).String()
}

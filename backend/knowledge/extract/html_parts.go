package extract

import (
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// skipped is true for an element that is not the page's text.
func skipped(n *html.Node) bool {
	if dropped[n.DataAtom] {
		return true
	}
	for _, a := range n.Attr {
		if a.Key == "hidden" || (a.Key == "aria-hidden" && strings.EqualFold(a.Val, "true")) {
			return true
		}
	}
	return false
}

// headingLevel is 1–6 for h1–h6, 0 for any other element.
func headingLevel(a atom.Atom) int {
	switch a {
	case atom.H1:
		return 1
	case atom.H2:
		return 2
	case atom.H3:
		return 3
	case atom.H4:
		return 4
	case atom.H5:
		return 5
	case atom.H6:
		return 6
	}
	return 0
}

// hasBlock is true when an element holds a block element: a link around
// a card of paragraphs is walked as a container, not as one link.
func hasBlock(n *html.Node) bool {
	var has func(*html.Node, int) bool
	has = func(p *html.Node, depth int) bool {
		for ch := p.FirstChild; ch != nil && depth < maxHTMLDepth; ch = ch.NextSibling {
			if ch.Type == html.ElementNode && (blockish[ch.DataAtom] || has(ch, depth+1)) {
				return true
			}
		}
		return false
	}
	return has(n, 0)
}

// find is the first element a below n, or nil.
func find(n *html.Node, a atom.Atom) *html.Node {
	var f func(*html.Node, int) *html.Node
	f = func(p *html.Node, depth int) *html.Node {
		for ch := p.FirstChild; ch != nil && depth < maxHTMLDepth; ch = ch.NextSibling {
			if ch.Type == html.ElementNode && ch.DataAtom == a {
				return ch
			}
			if got := f(ch, depth+1); got != nil {
				return got
			}
		}
		return nil
	}
	return f(n, 0)
}

// textOf is all the text below n, as written, but that of dropped
// elements.
func textOf(n *html.Node) string {
	var b strings.Builder
	var f func(*html.Node, int)
	f = func(p *html.Node, depth int) {
		for ch := p.FirstChild; ch != nil && depth < maxHTMLDepth; ch = ch.NextSibling {
			switch ch.Type {
			case html.TextNode:
				b.WriteString(ch.Data)
			case html.ElementNode:
				if skipped(ch) {
					continue
				}
				if ch.DataAtom == atom.Br {
					b.WriteString("\n")
				}
				f(ch, depth+1)
			}
		}
	}
	f(n, 0)
	return b.String()
}

// fenced renders pre as a fenced code block, its text as written, its
// language from a "language-x" or "lang-x" class on it or its code.
func fenced(n *html.Node) string {
	code := strings.TrimPrefix(textOf(n), "\n")
	code = strings.TrimRight(code, " \t\n")
	if strings.TrimSpace(code) == "" {
		return ""
	}
	lang := language(n)
	if c := find(n, atom.Code); lang == "" && c != nil {
		lang = language(c)
	}
	fence := "```"
	for strings.Contains(code, fence) {
		fence += "`"
	}
	return fence + lang + "\n" + code + "\n" + fence
}

func language(n *html.Node) string {
	for _, c := range strings.Fields(attr(n, "class")) {
		for _, p := range []string{"language-", "lang-"} {
			if l, ok := strings.CutPrefix(c, p); ok {
				return l
			}
		}
	}
	return ""
}

// image is an image's alt text as Markdown, "" when it has none.
func image(n *html.Node) string {
	alt := strings.Join(strings.Fields(attr(n, "alt")), " ")
	if alt == "" {
		return ""
	}
	if src := linkTarget(attr(n, "src")); src != "" && !strings.HasPrefix(src, "mailto:") {
		return "![" + alt + "](" + src + ")"
	}
	return alt
}

// linkTarget is href when it is an absolute http, https or mailto
// address, "" otherwise (a relative link means nothing out of its page).
func linkTarget(href string) string {
	u, err := url.Parse(strings.TrimSpace(href))
	if err != nil || u.Host == "" && u.Scheme != "mailto" {
		return ""
	}
	switch u.Scheme {
	case "http", "https", "mailto":
		return strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29").Replace(u.String())
	}
	return ""
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// collapse turns each run of white space into one space, as a browser
// shows it.
func collapse(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// prefixLines puts prefix before each line of s.
func prefixLines(s, prefix string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(prefix+l, " ")
	}
	return strings.Join(lines, "\n")
}

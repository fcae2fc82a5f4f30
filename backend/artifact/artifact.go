package artifact

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/agentdeck/agentdeck/backend/turn"
)

// Limits on an artifact.
const (
	// MaxContent is the most bytes an artifact's content may hold.
	MaxContent = 256 << 10
	// MaxTitle is the most characters of a title kept.
	MaxTitle = 200
	// maxKey is the most characters of a key.
	maxKey = 64
)

// Default titles of an artifact whose content names none.
const (
	DefaultHTMLTitle = "HTML page"
	DefaultSVGTitle  = "SVG image"
)

// Check reports whether content can be shown as an artifact of kind: the
// error says what to change, in words for the model that sent it.
func Check(kind, content string) error {
	switch kind {
	case turn.ArtifactHTML, turn.ArtifactSVG:
	default:
		return fmt.Errorf("kind must be %q or %q, not %q", turn.ArtifactHTML, turn.ArtifactSVG, kind)
	}
	if strings.TrimSpace(content) == "" {
		return fmt.Errorf("content is empty: send the whole %s as content", noun(kind))
	}
	if len(content) > MaxContent {
		return fmt.Errorf("content is %d bytes; an artifact holds at most %d bytes (%d KiB): make the %s smaller (less inline data, no embedded images or fonts)",
			len(content), MaxContent, MaxContent>>10, noun(kind))
	}
	if !utf8.ValidString(content) {
		return errors.New("content is not valid UTF-8 text")
	}
	if kind == turn.ArtifactSVG {
		return checkSVG(content)
	}
	return nil
}

func noun(kind string) string {
	if kind == turn.ArtifactSVG {
		return "SVG image"
	}
	return "HTML page"
}

// checkSVG requires well-formed XML with one root element, <svg>.
func checkSVG(content string) error {
	d := xml.NewDecoder(strings.NewReader(content))
	root := ""
	depth := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return fmt.Errorf("the SVG is not well-formed XML: line %d: %s; send one <svg> element as well-formed XML (escape & and <, use numeric entities such as &#160; instead of HTML ones such as &nbsp;)", se.Line, se.Msg)
			}
			return fmt.Errorf("the SVG is not well-formed XML: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				if root != "" {
					return fmt.Errorf("the SVG has more than one root element (<%s> after <%s>); put everything inside one <svg> element", t.Name.Local, root)
				}
				root = t.Name.Local
				if root != "svg" {
					return fmt.Errorf("the root element is <%s>, not <svg>; send an <svg> element as content, or use kind %q for an HTML page", root, turn.ArtifactHTML)
				}
			}
			depth++
		case xml.EndElement:
			depth--
		case xml.CharData:
			if depth == 0 && len(bytes.TrimSpace(t)) > 0 {
				return errors.New("the SVG has text outside its <svg> element; send the <svg> element alone")
			}
		}
	}
	if root == "" {
		return errors.New("the content has no <svg> element; send an <svg> element as content")
	}
	return nil
}

// TitleOf is the title content names: an HTML page's <title>, an SVG's
// <title> child of its root; "" when it names none.
func TitleOf(kind, content string) string {
	if kind == turn.ArtifactSVG {
		return svgTitle(content)
	}
	return htmlTitle(content)
}

// DefaultTitle is the title of an artifact of kind that names none.
func DefaultTitle(kind string) string {
	if kind == turn.ArtifactSVG {
		return DefaultSVGTitle
	}
	return DefaultHTMLTitle
}

func htmlTitle(content string) string {
	doc, err := html.Parse(strings.NewReader(content))
	if err != nil {
		return ""
	}
	for n := range doc.Descendants() {
		if n.Type == html.ElementNode && n.DataAtom == atom.Title {
			var b strings.Builder
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.TextNode {
					b.WriteString(c.Data)
				}
			}
			return cleanTitle(b.String())
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Body {
			return "" // a <title> belongs to the head
		}
	}
	return ""
}

func svgTitle(content string) string {
	d := xml.NewDecoder(strings.NewReader(content))
	depth := 0
	for {
		tok, err := d.Token()
		if err != nil {
			return ""
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 2 && t.Name.Local == "title" {
				var s string
				if d.DecodeElement(&s, &t) != nil {
					return ""
				}
				return cleanTitle(s)
			}
		case xml.EndElement:
			depth--
		}
	}
}

// cleanTitle makes text one line of at most MaxTitle characters.
func cleanTitle(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > MaxTitle {
		s = strings.TrimSpace(string(r[:MaxTitle-1])) + "…"
	}
	return s
}

// KeyOf is the key of an artifact: key made into an identifier (lower
// case, words joined by "-"), else title made into one, else kind. "Sales
// chart", "sales-chart" and "SALES_CHART" are one key.
func KeyOf(key, title, kind string) string {
	if k := slug(key); k != "" {
		return k
	}
	if k := slug(title); k != "" {
		return k
	}
	return kind
}

func slug(s string) string {
	var b strings.Builder
	dash := false
	n := 0
	for _, r := range strings.ToLower(s) {
		if n == maxKey {
			break
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
				n++
			}
			b.WriteRune(r)
			n++
			dash = false
			continue
		}
		dash = true
	}
	return strings.TrimRight(b.String(), "-")
}

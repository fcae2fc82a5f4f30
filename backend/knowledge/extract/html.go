package extract

import (
	"bytes"
	"io"
	"mime"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/knowledge"
)

// HTMLBlocks reads an HTML document (UTF-8; a caller with a Content-Type
// decodes first, with golang.org/x/net/html/charset.NewReader) into
// Markdown-ish blocks under their heading path (h1–h6, " › " between),
// and returns its title (<title>, else the first h1).
//
// What is kept: paragraphs, lists ("- " and "1. ", nested by indent),
// tables as Markdown rows with a header line after the first row, pre as a
// fenced code block (its language from a "language-x" class), quotes as
// "> " lines, emphasis, inline code, links to absolute http(s) and mailto
// addresses as [text](url) (others keep their text), images with alt text
// as ![alt](src). What is dropped: script, style, noscript, template,
// nav, aside, footer, form controls, iframe, svg, canvas, anything with
// the hidden attribute or aria-hidden="true", and the head but its title.
// No Markdown character is escaped: the text is for reading and search,
// not for a round trip. A page with more than 512 elements open at once
// is refused (golang.org/x/net/html's limit).
func HTMLBlocks(r io.Reader) (blocks []knowledge.Block, title string, err error) {
	mb, title, err := htmlBlocks(r)
	if err != nil {
		return nil, "", err
	}
	for _, b := range mb {
		if b.level == 0 {
			blocks = append(blocks, knowledge.Block{Heading: b.path, Text: b.text})
		}
	}
	return blocks, title, nil
}

// HTMLToMarkdown reads an HTML document as HTMLBlocks does and writes it
// as one Markdown text: headings as "#" lines at their level, blocks
// between blank lines. It returns the title apart, not as a heading.
func HTMLToMarkdown(r io.Reader) (markdown, title string, err error) {
	mb, title, err := htmlBlocks(r)
	if err != nil {
		return "", "", err
	}
	var out strings.Builder
	for _, b := range mb {
		if out.Len() > 0 {
			out.WriteString("\n\n")
		}
		if b.level > 0 {
			out.WriteString(strings.Repeat("#", b.level) + " ")
		}
		out.WriteString(b.text)
	}
	return out.String(), title, nil
}

// readHTML reads an HTML file, decoded from the charset it names (a byte
// order mark, or a meta tag in its first KiB); one that names none must
// be UTF-8.
func readHTML(name string, b []byte) (knowledge.Extracted, error) {
	enc, encName, certain := charset.DetermineEncoding(b, "")
	if !certain { // no byte order mark
		enc, encName = nil, "utf-8"
		if label := metaCharset(b); label != "" {
			if enc, encName = charset.Lookup(label); enc == nil {
				return knowledge.Extracted{}, apperr.New(apperr.Invalid, "%s names a charset this app does not know (%q). Save it as UTF-8 and add it again.", name, label)
			}
		}
	}
	if encName == "utf-8" {
		s, err := utf8Text(name, b)
		if err != nil {
			return knowledge.Extracted{}, err
		}
		b = []byte(s)
	} else {
		dec, err := io.ReadAll(enc.NewDecoder().Reader(bytes.NewReader(b)))
		if err != nil {
			return knowledge.Extracted{}, apperr.New(apperr.Invalid, "%s is not valid %s text, the charset it names. Save it as UTF-8 and add it again.", name, encName)
		}
		b = bytes.TrimPrefix(dec, []byte("\uFEFF"))
	}
	blocks, title, err := HTMLBlocks(bytes.NewReader(b))
	if err != nil {
		return knowledge.Extracted{}, apperr.Wrap(err, apperr.Invalid, "%s cannot be read as HTML (%v). Check the file and add it again.", name, err)
	}
	return knowledge.Extracted{
		Format: knowledge.FormatHTML,
		Title:  title,
		Pages:  []knowledge.Page{{Number: 1, Blocks: blocks}},
	}, nil
}

// metaCharset is the charset a meta tag in the file's first KiB names
// (<meta charset> or <meta http-equiv="Content-Type" content>), "" when
// none does.
func metaCharset(b []byte) string {
	z := html.NewTokenizer(bytes.NewReader(b[:min(len(b), 1024)]))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			tag, more := z.TagName()
			if string(tag) != "meta" {
				continue
			}
			var content string
			for more {
				var k, v []byte
				k, v, more = z.TagAttr()
				switch string(k) {
				case "charset":
					return strings.TrimSpace(string(v))
				case "content":
					content = string(v)
				}
			}
			if _, params, err := mime.ParseMediaType(content); err == nil && params["charset"] != "" {
				return params["charset"]
			}
		}
	}
}

// mdBlock is one block of a page: a heading (level 1–6) or a block of
// text (level 0) under the heading path.
type mdBlock struct {
	level int
	path  string
	text  string
}

// htmlBlocks parses r and converts its tree.
func htmlBlocks(r io.Reader) ([]mdBlock, string, error) {
	doc, err := html.Parse(r)
	if err != nil {
		return nil, "", err
	}
	c := &converter{}
	c.walk(doc, 0)
	c.flush()
	title := c.title
	if title == "" {
		title = c.firstH1
	}
	return c.out, title, nil
}

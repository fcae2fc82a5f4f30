package extract

import (
	"bytes"
	"io"
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
// order mark or a meta tag; UTF-8 when it names none).
func readHTML(name string, b []byte) (knowledge.Extracted, error) {
	enc, encName, _ := charset.DetermineEncoding(b, "text/html")
	if !bytes.HasPrefix(b, utf8BOM) && encName == "windows-1252" && !declaresCharset(b) {
		// DetermineEncoding guesses Windows-1252 when the file names no
		// charset; a file that names none is taken as UTF-8, and refused
		// when it is not.
		s, err := utf8Text(name, b)
		if err != nil {
			return knowledge.Extracted{}, err
		}
		b = []byte(s)
	} else if encName != "utf-8" {
		dec, err := io.ReadAll(enc.NewDecoder().Reader(bytes.NewReader(b)))
		if err != nil {
			return knowledge.Extracted{}, apperr.New(apperr.Invalid, "%s is not valid %s text, the charset it names. Save it as UTF-8 and add it again.", name, encName)
		}
		b = dec
	}
	blocks, title, err := HTMLBlocks(bytes.NewReader(bytes.TrimPrefix(b, utf8BOM)))
	if err != nil {
		return knowledge.Extracted{}, apperr.Wrap(err, apperr.Invalid, "%s cannot be read as HTML (%v). Check the file and add it again.", name, err)
	}
	return knowledge.Extracted{
		Format: knowledge.FormatHTML,
		Title:  title,
		Pages:  []knowledge.Page{{Number: 1, Blocks: blocks}},
	}, nil
}

// declaresCharset is true when an HTML file's first KiB names a charset.
func declaresCharset(b []byte) bool {
	return bytes.Contains(bytes.ToLower(b[:min(len(b), 1024)]), []byte("charset"))
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

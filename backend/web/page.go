package web

import (
	"bytes"
	"net/url"
	"strings"
	"unicode/utf8"

	readability "codeberg.org/readeck/go-readability/v2"
	"golang.org/x/net/html"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/knowledge"
)

// Page is a web page's main text as read.
type Page struct {
	// URL is where it was read from, after redirects.
	URL   string
	Title string
	// Blocks are its main text in reading order, under their headings.
	Blocks []knowledge.Block
}

// Markdown is the page as one Markdown text, its title first.
func (p Page) Markdown() string { return Markdown(p.Title, p.Blocks) }

// Document is the page as a document of place, with its passages: what
// adding a page by its URL stores. Its Version and Size are of its
// Markdown, the text kept: the same article read again is the same
// document, whatever changed around it on the page.
func (p Page) Document(place knowledge.Place) (knowledge.Document, []knowledge.Passage) {
	md := p.Markdown()
	name := p.Title
	if name == "" {
		name = p.URL
	}
	d := knowledge.Document{
		SessionID: place.SessionID, ProjectID: place.ProjectID,
		Name: name, Format: knowledge.FormatWeb, URL: p.URL,
		Version: knowledge.VersionOf([]byte(md)), Size: int64(len(md)), Pages: 1,
	}
	ex := knowledge.Extracted{Format: knowledge.FormatWeb, Title: p.Title, Pages: []knowledge.Page{{Number: 1, Blocks: p.Blocks}}}
	return d, knowledge.Split(ex, knowledge.DefaultPassageRunes)
}

// readPage finds a page's main text: readability's article for HTML (the
// page's body, navigation and scripts dropped, when readability finds no
// article), paragraphs for plain text.
func readPage(body []byte, u *url.URL, media string) (Page, error) {
	p := Page{URL: u.String()}
	if media == "text/plain" {
		for _, para := range strings.Split(strings.ReplaceAll(string(body), "\r\n", "\n"), "\n\n") {
			if t := strings.TrimSpace(para); t != "" {
				p.Blocks = append(p.Blocks, knowledge.Block{Text: t})
			}
		}
	} else {
		doc, err := html.Parse(bytes.NewReader(body))
		if err != nil {
			return Page{}, apperr.Wrap(err, apperr.Invalid, "%s is not readable HTML.", u.Redacted())
		}
		art, err := readability.FromDocument(doc, u)
		if err == nil && art.Node != nil {
			p.Title = oneLine(art.Title())
			p.Blocks = blocksOf(art.Node)
		}
		if len(p.Blocks) == 0 {
			// readability changes the tree it reads: parse again.
			doc, _ = html.Parse(bytes.NewReader(body))
			p.Blocks = blocksOf(doc)
			if p.Title == "" {
				p.Title = oneLine(titleOf(doc))
			}
		}
	}
	if len(p.Blocks) == 0 {
		return Page{}, apperr.New(apperr.Invalid, "%s has no text to read (a page drawn by scripts shows nothing without a browser).", u.Redacted())
	}
	return p, nil
}

// titleOf is the text of a document's <title>.
func titleOf(n *html.Node) string {
	if n.Type == html.ElementNode && n.Data == "title" {
		return textOf(n)
	}
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		if t := titleOf(ch); t != "" {
			return t
		}
	}
	return ""
}

// clip cuts text to at most n runes, at a line break when one is near;
// it reports whether it cut.
func clip(text string, n int) (string, bool) {
	if utf8.RuneCountInString(text) <= n {
		return text, false
	}
	r := []rune(text)[:n]
	cut := string(r)
	if i := strings.LastIndex(cut, "\n"); i > len(cut)*3/4 {
		cut = cut[:i]
	}
	return strings.TrimSpace(cut), true
}

// Package knowledge is what a document is to Agentdeck: a file (PDF,
// DOCX, Markdown, HTML, plain text) or a web page whose text, cut into
// passages that keep their page and heading, the model searches and
// cites. This package holds the domain types and the rules that need no
// database and no file format; extract reads the formats, the store keeps
// documents and passages (in the main SQLite file, so a project's
// documents serve all its sessions), and the search_knowledge tool gives
// the model passages numbered for citing ([n]).
//
// The rules:
//   - A document belongs to one session or one project, never both. A
//     session searches its own documents and its project's.
//   - A document's Version is the SHA-256 of its bytes: adding the same
//     bytes twice to one place is refused; a changed file is a new
//     document.
//   - A passage is a piece of one page under one heading: it never spans
//     two pages, so a citation names one page.
//   - What a turn was given (turn.Source) is a copy, stored with the turn:
//     an old turn shows what the model saw after the document changed or
//     was removed.
//   - Removing a document removes its passages, their index entries and
//     their embeddings from the file (the store's secure delete).
package knowledge

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// DocFormat is a document's format.
type DocFormat string

// The formats a document may have.
const (
	FormatPDF      DocFormat = "pdf"
	FormatDOCX     DocFormat = "docx"
	FormatMarkdown DocFormat = "markdown"
	FormatHTML     DocFormat = "html"
	FormatText     DocFormat = "text"
	FormatWeb      DocFormat = "web" // a page fetched by URL
)

// Document is one document of a session or a project.
type Document struct {
	ID string `json:"id"`
	// SessionID or ProjectID is where it belongs: exactly one is set.
	SessionID string    `json:"session_id,omitempty"`
	ProjectID string    `json:"project_id,omitempty"`
	Name      string    `json:"name"`
	Format    DocFormat `json:"format"`
	// URL is where a web page was read from ("" for a file).
	URL string `json:"url,omitempty"`
	// Version is the SHA-256 of the document's bytes, in hex.
	Version string `json:"version"`
	Size    int64  `json:"size"`
	// Pages is the number of pages (1 for a format without pages).
	Pages    int `json:"pages"`
	Passages int `json:"passages"`
	// Note says what a person should know about the text: "scanned: no
	// text layer on pages 1–3", "" when nothing.
	Note string `json:"note,omitempty"`
	// EmbedModel is the model its passages' embeddings came from, "" when
	// it has none (its search is lexical only).
	EmbedModel string    `json:"embed_model,omitempty"`
	CreatedAt  time.Time `json:"created_at"`
}

// Passage is a piece of a document's text: one page, one heading.
type Passage struct {
	ID         int64  `json:"id"`
	DocumentID string `json:"document_id"`
	// Ord is its place in the document, from 0.
	Ord int `json:"ord"`
	// Page is its page, from 1 (1 for a format without pages).
	Page int `json:"page"`
	// Heading is the nearest heading above it ("" when none), its path
	// joined by " › " ("Results › Revenue").
	Heading string `json:"heading,omitempty"`
	Text    string `json:"text"`
}

// Hit is a passage a search found, with its document's name and version.
type Hit struct {
	Passage
	Document string    `json:"document"`
	Version  string    `json:"version"`
	Format   DocFormat `json:"format"`
	URL      string    `json:"url,omitempty"`
	// Score orders hits, higher first; its scale depends on Mode.
	Score float64 `json:"score"`
}

// Mode is how a search ranked its hits.
type Mode string

const (
	// Lexical: full-text search (SQLite FTS5, BM25) alone.
	Lexical Mode = "lexical"
	// Hybrid: full-text search and embeddings, fused by rank.
	Hybrid Mode = "hybrid"
)

// Place is where documents are, and where a search looks: a session (its
// own documents and its project's) or a project.
type Place struct {
	SessionID string `json:"session_id,omitempty"`
	ProjectID string `json:"project_id,omitempty"`
}

// VersionOf is the version of a document with these bytes.
func VersionOf(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Extracted is a file's text as package extract reads it, before it is
// cut into passages (Split).
type Extracted struct {
	Format DocFormat
	// Title is the document's own title, when it names one.
	Title string
	// Pages are its pages in order, numbered from 1; a format without
	// pages has one.
	Pages []Page
	// Note is what a person should know about the text (Document.Note).
	Note string
}

// Page is one page's text, as blocks in reading order.
type Page struct {
	Number int
	Blocks []Block
}

// Block is a run of text under one heading: a paragraph, a list, a table
// as Markdown.
type Block struct {
	// Heading is the heading path above the block ("Results › Revenue").
	Heading string
	Text    string
}

package turn

// Source is one passage of a document, or one web page, as a turn's model
// was given it, under the number its answer cites it by: a copy, so the
// turn shows what the model saw after the document changed or was
// removed.
type Source struct {
	// N is the number the answer cites ([n]), from 1, unique in the turn.
	N int `json:"n"`
	// Kind is "passage" (of a document) or "page" (a web page).
	Kind string `json:"kind"`
	// DocumentID, PassageID and Version name the passage in the store as
	// it was (the document may since have changed or gone).
	DocumentID string `json:"document_id,omitempty"`
	PassageID  int64  `json:"passage_id,omitempty"`
	Version    string `json:"version,omitempty"`
	// Document is the document's name (a page's title for a web page).
	Document string `json:"document"`
	Page     int    `json:"page,omitempty"`
	Heading  string `json:"heading,omitempty"`
	URL      string `json:"url,omitempty"`
	Text     string `json:"text"`
}

// The kinds of Source.
const (
	SourcePassage = "passage"
	SourcePage    = "page"
)

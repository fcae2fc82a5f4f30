package store

import (
	"encoding/json"
	"io"
)

// writeJSON writes the lossless document, indented for people who open it.
// HTML characters are left as they are: the file is not for a browser, and
// raw JSON values (event data, results) keep their stored bytes either way.
func writeJSON(w io.Writer, doc *exportDoc) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

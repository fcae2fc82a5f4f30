package export

import (
	"encoding/json"
	"io"
)

// Encode writes the lossless document, indented for people who open it.
// HTML characters are left as they are: the file is not for a browser, and
// raw JSON values (event data, results) keep their stored bytes either way.
func Encode(w io.Writer, doc *Document) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

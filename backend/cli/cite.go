package cli

import (
	"fmt"
	"io"

	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/knowledge/cite"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// writeFootnotes prints, after an answer, a footnote for each citation
// in it: the source the turn was given under that number, or, when it
// was given none, that the citation is unverified. It prints nothing for
// a turn that was given no sources: its brackets are not citations.
func writeFootnotes(w io.Writer, answer string, sources []turn.Source) {
	if len(sources) == 0 {
		return
	}
	cited := cite.Citations(answer, sources)
	if len(cited) == 0 {
		return
	}
	fmt.Fprintln(w)
	for _, c := range cited {
		if c.Verified() {
			fmt.Fprintf(w, "[%d] %s\n", c.N, export.SourceLine(*c.Source))
		} else {
			fmt.Fprintf(w, "[%d] %s\n", c.N, export.UnverifiedSource)
		}
	}
}

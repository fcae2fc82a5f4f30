package export

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentdeck/agentdeck/backend/turn"
)

// UnverifiedSource is what a footnote says of a citation ([n]) to a
// source the turn was never given: the model made it up, or miscounted.
const UnverifiedSource = "(no such source was given; unverified)"

// sourceWords is how many words of a passage a footnote quotes.
const sourceWords = 12

// SourceLine is how a source reads as a footnote, after its number, in
// the terminal and in a Markdown transcript: its document (a web page's
// title), its page or address, and the first words of the passage:
//
//	report.pdf, p. 3 — "first words of the passage…"
//
// It is plain text on one line.
func SourceLine(s turn.Source) string {
	var b strings.Builder
	b.WriteString(strings.Join(strings.Fields(s.Document), " "))
	if b.Len() == 0 {
		b.WriteString("(untitled)")
	}
	switch {
	case s.Page > 0 && s.Kind != turn.SourcePage:
		fmt.Fprintf(&b, ", p. %d", s.Page)
	case s.URL != "":
		b.WriteString(", " + s.URL)
	}
	if q := Quote(s.Text); q != "" {
		b.WriteString(" — " + q)
	}
	return b.String()
}

// Quote is the first words of a passage in quotation marks, on one line,
// "…" where it was cut; "" for a passage with no words.
func Quote(text string) string {
	words := strings.Fields(text)
	if len(words) == 0 {
		return ""
	}
	quote := strings.Join(words[:min(len(words), sourceWords)], " ")
	if len(words) > sourceWords {
		quote += "…"
	}
	return `"` + quote + `"`
}

// Sources are the sources a turn's events say it was given to cite
// (sources events), in order.
func Sources(events []turn.Event) []turn.Source {
	var out []turn.Source
	for _, e := range events {
		if e.Type != turn.EventSources {
			continue
		}
		var d turn.SourcesData
		if json.Unmarshal(e.Data, &d) == nil {
			out = append(out, d.Sources...)
		}
	}
	return out
}

// mdDocuments lists the session's documents under the transcript's
// header: their text is in the JSON export.
func mdDocuments(b *strings.Builder, docs []KnowledgeDocument) {
	if len(docs) == 0 {
		return
	}
	b.WriteString("## Documents\n\n")
	for _, d := range docs {
		fmt.Fprintf(b, "- %s (%s", mdEscape(d.Name), mdEscape(d.Format))
		if d.Pages > 1 {
			fmt.Fprintf(b, ", %d pages", d.Pages)
		}
		b.WriteString(")")
		if d.URL != "" {
			fmt.Fprintf(b, " — %s", mdEscape(d.URL))
		}
		if d.Note != "" {
			fmt.Fprintf(b, " — _%s_", mdEscape(d.Note))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// mdSources writes the sources a turn was given to cite as footnotes,
// numbered as its answer cites them; suffix as for mdPlan.
func mdSources(b *strings.Builder, events []turn.Event, suffix string) {
	sources := Sources(events)
	if len(sources) == 0 {
		return
	}
	fmt.Fprintf(b, "#### Sources%s\n\n", suffix)
	for _, s := range sources {
		fmt.Fprintf(b, "- \\[%d\\] %s\n", s.N, mdEscape(SourceLine(s)))
	}
	b.WriteString("\n")
}

package export

import (
	"fmt"
	"strings"

	"github.com/agentdeck/agentdeck/backend/turn"
)

// mdReviews writes a person's reviews of a turn and its steps (version
// 11) as a table: what was reviewed, the thumb, the score, the labels and
// the note, each escaped as text.
func mdReviews(b *strings.Builder, reviews []turn.Review, suffix string) {
	if len(reviews) == 0 {
		return
	}
	fmt.Fprintf(b, "#### Review%s\n\n", suffix)
	b.WriteString("| Of | Rating | Score | Labels | Note |\n")
	b.WriteString("| --- | --- | --- | --- | --- |\n")
	for _, r := range reviews {
		of := "the turn"
		if r.Step != "" {
			of = r.Step
		}
		score := "—"
		if r.Score > 0 {
			score = fmt.Sprintf("%d/5", r.Score)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", mdCell(of), mdThumb(r.Thumb), score, mdCell(strings.Join(r.Labels, ", ")), mdCell(mdOneLine(r.Note)))
	}
	b.WriteString("\n")
}

func mdThumb(t int) string {
	switch t {
	case 1:
		return "👍 good"
	case -1:
		return "👎 bad"
	}
	return "—"
}

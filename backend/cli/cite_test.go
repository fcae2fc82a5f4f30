package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/turn"
)

// The human printer ends an answer with its citations as footnotes: the
// source of each number the turn was given, a citation to a number it was
// never given marked unverified, sources not cited left out.
func TestHumanPrinterFootnotes(t *testing.T) {
	t.Parallel()
	sources := []turn.Source{
		{N: 1, Kind: turn.SourcePassage, Document: "report.pdf", Page: 3, Text: "Revenue rose by a third in the second quarter."},
		{N: 2, Kind: turn.SourcePassage, Document: "notes.md", Page: 1, Text: "Not cited."},
		{N: 3, Kind: turn.SourcePage, Document: "Quinces", URL: "https://example.com/q", Text: "Quinces need frost."},
	}
	emit := func(p *humanPrinter, typ turn.EventType, stage string, data any) {
		raw, _ := json.Marshal(data)
		if err := p.Emit(turn.Event{Type: typ, StageID: stage, Data: raw}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name     string
		sources  []turn.Source
		streamed bool
		want     string
	}{
		{"streamed", sources, true, "Revenue rose [1]; quinces [3], pears [7].\n\n" +
			"[1] report.pdf, p. 3 — \"Revenue rose by a third in the second quarter.\"\n" +
			"[3] Quinces, https://example.com/q — \"Quinces need frost.\"\n" +
			"[7] (no such source was given; unverified)\n"},
		{"printed at the end", sources[:1], false, "Revenue rose [1]; quinces [3], pears [7].\n\n" +
			"[1] report.pdf, p. 3 — \"Revenue rose by a third in the second quarter.\"\n" +
			"[3] (no such source was given; unverified)\n" +
			"[7] (no such source was given; unverified)\n"},
		{"given no sources: no footnotes", nil, true, "Revenue rose [1]; quinces [3], pears [7].\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			p := &humanPrinter{out: &out, err: &errb}
			answer := "Revenue rose [1]; quinces [3], pears [7]."
			emit(p, turn.EventStageStart, "s1", turn.StageStartData{StageID: "s1", Stage: "chat", Final: tt.streamed})
			if tt.sources != nil {
				emit(p, turn.EventSources, "s1", turn.SourcesData{CallID: "c1", Sources: tt.sources})
			}
			for _, w := range strings.SplitAfter(answer, " ") {
				emit(p, turn.EventToken, "s1", turn.TokenData{Text: w})
			}
			emit(p, turn.EventTurnCompleted, "", turn.TurnCompletedData{Result: turn.Result{OK: true, FinalText: answer, FinalStageID: "s1"}})
			if out.String() != tt.want {
				t.Fatalf("stdout\n%s\nwant\n%s", out.String(), tt.want)
			}
		})
	}
}

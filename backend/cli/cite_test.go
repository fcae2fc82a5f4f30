package cli

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/turn"
)

func TestCitations(t *testing.T) {
	tests := []struct {
		text string
		want []int
	}{
		{"Revenue rose [1].", []int{1}},
		{"[2] first, then [1], then [2] again", []int{2, 1}},
		{"both [1, 3] and [3,4]", []int{1, 3, 4}},
		{"side by side [1][2]", []int{1, 2}},
		{"[12] twelve", []int{12}},
		{"rows[1] and data_[2] and x2[3] are indexes", nil},
		{"a [link](https://x.org) and [1](https://y.org)", nil},
		{"[1]: https://example.com is a link definition", nil},
		{"[0] is no source, nor [x], [], [1 2] or [-1]", nil},
		{"(see [5])", []int{5}},
		{"no citation", nil},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			if got := citations(tt.text); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("citations(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

// The human printer ends an answer with its citations as footnotes: the
// source of each number the turn was given, a citation to a number it was
// never given marked unverified, sources not cited left out.
func TestHumanPrinterFootnotes(t *testing.T) {
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

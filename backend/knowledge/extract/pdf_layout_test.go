package extract

import (
	"reflect"
	"testing"

	"github.com/agentdeck/agentdeck/backend/knowledge"
)

// at is a run of text at (left, baseline) in a font of size pt, about as
// wide as its text.
func at(text string, left, baseline, size float64) run {
	return run{text: text, left: left, right: left + 0.5*size*float64(len(text)), bottom: baseline, top: baseline + 0.7*size, size: size}
}

func TestLayout(t *testing.T) {
	tests := []struct {
		name  string
		pages [][]run
		want  []knowledge.Page
	}{
		{"a paragraph's lines join; a gap starts a block",
			[][]run{{at("One line of text and", 30, 700, 11), at("the next line.", 30, 685, 11), at("A new paragraph.", 30, 650, 11)}},
			[]knowledge.Page{{Number: 1, Blocks: []knowledge.Block{
				{Text: "One line of text and the next line."}, {Text: "A new paragraph."}}}}},
		{"a hyphen at a line's end joins the next without a space",
			[][]run{{at("a well-", 30, 700, 11), at("known river", 30, 685, 11)}},
			[]knowledge.Page{{Number: 1, Blocks: []knowledge.Block{{Text: "a well-known river"}}}}},
		{"runs of one line: in a word, between words, in cells",
			[][]run{{at("B", 30, 700, 11), run{text: "old start ", left: 35.5, right: 90, bottom: 700, top: 707.7, size: 11},
				at("then", 90, 700, 11), at("far", 300, 700, 11)}},
			[]knowledge.Page{{Number: 1, Blocks: []knowledge.Block{{Text: "Bold start then | far"}}}}},
		{"a table is its own block, its rows kept together",
			[][]run{{at("Before the table.", 30, 720, 11),
				at("Reach", 30, 690, 11), at("Trout", 200, 690, 11),
				at("Upper", 30, 670, 11), at("31", 200, 670, 11),
				at("Lower", 30, 650, 11), at("19", 200, 650, 11),
				at("After the table.", 30, 630, 11)}},
			[]knowledge.Page{{Number: 1, Blocks: []knowledge.Block{
				{Text: "Before the table."}, {Text: "Reach | Trout\nUpper | 31\nLower | 19"}, {Text: "After the table."}}}}},
		{"headings nest by size and run on across pages",
			[][]run{
				{at("Report", 30, 780, 24), at("Body text under the title.", 30, 740, 11),
					at("Part one", 30, 700, 16), at("Body of part one.", 30, 670, 11),
					at("Detail", 30, 640, 13), at("Body of the detail.", 30, 610, 11)},
				{at("More of the detail.", 30, 780, 11), at("Part two", 30, 740, 16), at("Body of part two, long enough to be the body.", 30, 700, 11)},
				{},
			},
			[]knowledge.Page{
				{Number: 1, Blocks: []knowledge.Block{
					{Heading: "Report", Text: "Body text under the title."},
					{Heading: "Report › Part one", Text: "Body of part one."},
					{Heading: "Report › Part one › Detail", Text: "Body of the detail."}}},
				{Number: 2, Blocks: []knowledge.Block{
					{Heading: "Report › Part one › Detail", Text: "More of the detail."},
					{Heading: "Report › Part two", Text: "Body of part two, long enough to be the body."}}},
				{Number: 3},
			}},
		{"a large line that is long, or has no letter, is not a heading",
			[][]run{{at("2026", 30, 780, 20), at("Some body text that sets the body size.", 30, 740, 11)}},
			[]knowledge.Page{{Number: 1, Blocks: []knowledge.Block{{Text: "2026"}, {Text: "Some body text that sets the body size."}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var pageLines [][]line
			for _, runs := range tt.pages {
				pageLines = append(pageLines, lines(runs))
			}
			if got := layout(pageLines); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("layout =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func TestPagesNote(t *testing.T) {
	tests := []struct {
		empty []int
		want  string
	}{
		{nil, ""},
		{[]int{2}, "page 2 has no text layer (scanned?)"},
		{[]int{3, 4}, "pages 3–4 have no text layer (scanned?)"},
		{[]int{1, 3, 4, 5, 9}, "pages 1, 3–5, 9 have no text layer (scanned?)"},
	}
	for _, tt := range tests {
		if got := pagesNote(tt.empty); got != tt.want {
			t.Errorf("pagesNote(%v) = %q, want %q", tt.empty, got, tt.want)
		}
	}
}

package knowledge

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSplit(t *testing.T) {
	long := strings.Repeat("word ", 100) // 500 runes
	ex := Extracted{Pages: []Page{
		{Number: 1, Blocks: []Block{{Heading: "Intro", Text: "First."}, {Heading: "Intro", Text: "Second."}, {Heading: "Results", Text: long}}},
		{Number: 2, Blocks: []Block{{Heading: "Results", Text: "On page two."}, {Text: ""}}},
	}}
	ps := Split(ex, 120)
	if ps[0].Text != "First.\n\nSecond." || ps[0].Heading != "Intro" || ps[0].Page != 1 {
		t.Fatalf("first passage = %+v", ps[0])
	}
	last := ps[len(ps)-1]
	if last.Text != "On page two." || last.Page != 2 || last.Heading != "Results" {
		t.Fatalf("a passage spans pages: %+v", last)
	}
	for i, p := range ps {
		if p.Ord != i {
			t.Fatalf("passage %d has ord %d", i, p.Ord)
		}
		if n := utf8.RuneCountInString(p.Text); n > 120 {
			t.Fatalf("passage %d has %d runes, more than 120", i, n)
		}
	}
	var results strings.Builder
	for _, p := range ps[1 : len(ps)-1] {
		if p.Heading != "Results" || p.Page != 1 {
			t.Fatalf("passage %+v", p)
		}
		results.WriteString(p.Text + " ")
	}
	if got := strings.Join(strings.Fields(results.String()), " "); got != strings.TrimSpace(long) {
		t.Fatal("the long block lost or changed words when it was cut")
	}
	if one := Split(Extracted{Pages: []Page{{Number: 1, Blocks: []Block{{Text: strings.Repeat("é", 250)}}}}}, 100); len(one) != 3 {
		t.Fatalf("a word longer than a passage: %d passages, want 3", len(one))
	}
}

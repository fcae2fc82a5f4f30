package extract

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/knowledge"
)

// blocks lists an extraction's blocks as "p<page> [heading] text", one
// string each, for comparing whole documents at a glance.
func blocks(ex knowledge.Extracted) []string {
	var out []string
	for _, p := range ex.Pages {
		for _, b := range p.Blocks {
			out = append(out, fmt.Sprintf("p%d [%s] %s", p.Number, b.Heading, b.Text))
		}
	}
	return out
}

func readFile(t *testing.T, name string) knowledge.Extracted {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	ex, err := Read(context.Background(), name, b)
	if err != nil {
		t.Fatalf("Read(%s): %v", name, err)
	}
	return ex
}

func TestReadFiles(t *testing.T) {
	for _, tc := range []struct {
		file   string
		format knowledge.DocFormat
		title  string
		pages  int
		want   []string
	}{
		{"report.docx", knowledge.FormatDOCX, "Quarterly Report", 3, []string{
			"p1 [Quarterly Report › Introduction] This report covers the third quarter. Sales grew in every region.",
			"p1 [Quarterly Report › Introduction › Scope] It covers three product lines:",
			"p1 [Quarterly Report › Introduction › Scope] - Lamps\n  - Desk lamps\n- Chairs",
			"p1 [Quarterly Report › Introduction › Scope] The steps we took:",
			"p1 [Quarterly Report › Introduction › Scope] 1. Count the stock\n2. Compare with the plan",
			"p2 [Quarterly Report › Results › Revenue] Revenue by region, in thousands of euros:",
			"p2 [Quarterly Report › Results › Revenue] | Region | Q2 | Q3 |\n| --- | --- | --- |\n| North | 120 | 135 |\n| South | 98 | 110 |\n| Total |  | 245 |",
			"p2 [Quarterly Report › Outlook] We expect growth to slow",
			"p3 [Quarterly Report › Outlook] in the fourth quarter.",
			"p3 [Quarterly Report › Outlook] Prices stay as they are.",
		}},
		{"page.html", knowledge.FormatHTML, "Lamp care guide", 1, []string{
			"p1 [Lamp care] Clean a lamp once a *month* with a **dry** cloth. See the [manual](https://example.com/manual) for details.",
			"p1 [Lamp care › Bulbs] Use LED bulbs of at most 9 W.",
			"p1 [Lamp care › Bulbs] - E27 fitting\n- Warm white\n  - 2700 K",
			"p1 [Lamp care › Bulbs › Prices] Bulb prices\n\n| Bulb | Price |\n| --- | --- |\n| LED 9 W | 4.50 € |\n| Ask in store for packs \\| bundles |  |",
			"p1 [Lamp care › Wiring] 3. Switch off the power.\n4. Check the cable.",
			"p1 [Lamp care › Wiring] ```sh\nlamp --check\n# not a heading\nlamp --on\n```",
			"p1 [Lamp care › Wiring] > Never open a lamp that is plugged in.",
		}},
		{"guide.md", knowledge.FormatMarkdown, "Chair guide", 1, []string{
			"p1 [Chairs] Sit up straight.\nA good chair helps.",
			"p1 [Chairs › Setting up] 1. Raise the seat.\n2. Tilt the back.\n   - not too far",
			"p1 [Chairs › Setting up] ```python\n# a comment, not a heading\nprint(\"chair\")\n\nprint(\"still code\")\n```",
			"p1 [Chairs › Care] | Part | Clean with |\n| ---- | ---------- |\n| Seat | brush      |",
			"p1 [Chairs › Care] > Never stand on a chair.",
			"p1 [Fabric] Vacuum it.",
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			ex := readFile(t, tc.file)
			if ex.Format != tc.format || ex.Title != tc.title || len(ex.Pages) != tc.pages {
				t.Errorf("format %q title %q pages %d, want %q %q %d", ex.Format, ex.Title, len(ex.Pages), tc.format, tc.title, tc.pages)
			}
			for i, p := range ex.Pages {
				if p.Number != i+1 {
					t.Errorf("page %d is numbered %d", i+1, p.Number)
				}
			}
			if got := blocks(ex); !slices.Equal(got, tc.want) {
				for i := range max(len(got), len(tc.want)) {
					if i >= len(got) || i >= len(tc.want) || got[i] != tc.want[i] {
						t.Fatalf("block %d differs; got:\n%s\nwant:\n%s", i, strings.Join(got, "\n·\n"), strings.Join(tc.want, "\n·\n"))
					}
				}
			}
		})
	}
}

// TestPassagesKeepTheirHeadingAndPage cuts the test files into passages
// small enough that every block is its own, and checks each passage
// against the block it came from.
func TestPassagesKeepTheirHeadingAndPage(t *testing.T) {
	for _, file := range []string{"report.docx", "page.html", "guide.md"} {
		t.Run(file, func(t *testing.T) {
			ex := readFile(t, file)
			ps := knowledge.Split(ex, 40)
			for _, p := range ps {
				var under []string // the page's blocks under the passage's heading
				for _, b := range ex.Pages[p.Page-1].Blocks {
					if b.Heading == p.Heading {
						under = append(under, b.Text)
					}
				}
				if !strings.Contains(strings.Join(under, "\n\n"), p.Text) {
					t.Errorf("passage %+v is not in a block of page %d under its heading", p, p.Page)
				}
			}
		})
	}
	ps := knowledge.Split(readFile(t, "report.docx"), knowledge.DefaultPassageRunes)
	var table, outlook *knowledge.Passage
	for i, p := range ps {
		if strings.Contains(p.Text, "| North | 120 | 135 |") {
			table = &ps[i]
		}
		if strings.Contains(p.Text, "in the fourth quarter.") {
			outlook = &ps[i]
		}
	}
	if table == nil || table.Page != 2 || table.Heading != "Quarterly Report › Results › Revenue" {
		t.Errorf("the table's passage is %+v, want page 2 under Revenue", table)
	}
	if outlook == nil || outlook.Page != 3 || outlook.Heading != "Quarterly Report › Outlook" || strings.Contains(outlook.Text, "slow") {
		t.Errorf("the passage after the rendered page break is %+v, want page 3 under Outlook, without page 2's words", outlook)
	}
}

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		name, head string
		want       knowledge.DocFormat
		ok         bool
	}{
		{"a.pdf", "", knowledge.FormatPDF, true},
		{"scan", "%PDF-1.7", knowledge.FormatPDF, true},
		{"Report.DOCX", "PK\x03\x04", knowledge.FormatDOCX, true},
		{"notes.md", "", knowledge.FormatMarkdown, true},
		{"notes.markdown", "", knowledge.FormatMarkdown, true},
		{"page.htm", "", knowledge.FormatHTML, true},
		{"saved", "\xEF\xBB\xBF  <!DOCTYPE html><html>", knowledge.FormatHTML, true},
		{"saved", "<HTML><body>", knowledge.FormatHTML, true},
		{"notes.txt", "", knowledge.FormatText, true},
		{"data.csv", "a,b\n", "", false},
		{"book.xlsx", "PK\x03\x04", "", false},
		{"photo.png", "\x89PNG", "", false},
		{"README", "plain words", "", false},
	} {
		got, ok := Detect(tc.name, []byte(tc.head))
		if got != tc.want || ok != tc.ok {
			t.Errorf("Detect(%q, %q) = %q, %v; want %q, %v", tc.name, tc.head, got, ok, tc.want, tc.ok)
		}
	}
}

// refused checks that err is an apperr.Invalid whose message names the
// file and holds each of words.
func refused(t *testing.T, err error, name string, words ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s was read, want it refused", name)
	}
	msg := apperr.MessageOf(err)
	if apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(msg, name) {
		t.Fatalf("%s: got %v (%s), want an invalid error naming the file", name, err, apperr.CodeOf(err))
	}
	for _, w := range words {
		if !strings.Contains(msg, w) {
			t.Errorf("%s: message %q does not say %q", name, msg, w)
		}
	}
}

func TestReadRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		words      []string
	}{
		{"table.csv", "a,b\n1,2\n", []string{"cannot be read as a document"}},
		{"empty.txt", "", []string{"no text"}},
		{"blank.md", "\n\n   \n", []string{"no text"}},
		{"nothing.html", "<html><head><script>x()</script></head><body><nav>menu</nav></body></html>", []string{"no text"}},
	} {
		_, err := Read(context.Background(), tc.name, []byte(tc.body))
		refused(t, err, tc.name, tc.words...)
	}
}

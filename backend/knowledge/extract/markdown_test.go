package extract

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMarkdownBlocks(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
		title     string
	}{
		{
			name: "levels skipped and climbed back",
			src:  "# A\n\n### C\n\ntext c\n\n## B\n\ntext b\n",
			want: []string{"[A › C] text c", "[A › B] text b"}, title: "A",
		},
		{
			name: "a rule is not a setext heading after a blank line",
			src:  "# A\n\npara\n\n---\n\nafter\n",
			want: []string{"[A] para", "[A] ---", "[A] after"}, title: "A",
		},
		{
			name: "a hash in a tilde fence and in indented code is code",
			src:  "# A\n\n~~~~\n# no\n~~~\nstill\n~~~~\n\n    # nor this\n\nend\n",
			want: []string{"[A] ~~~~\n# no\n~~~\nstill\n~~~~", "[A] # nor this", "[A] end"}, title: "A",
		},
		{
			name: "a heading in a list or a quote is text",
			src:  "# A\n\n- # item\n\n> # quoted\n",
			want: []string{"[A] - # item", "[A] > # quoted"}, title: "A",
		},
		{
			name: "heading text without its marks",
			src:  "## The *new* [plan](http://x) `v2` ##\n\nbody\n",
			want: []string{"[The new plan v2] body"},
		},
		{
			name: "text before any heading",
			src:  "intro\n\n# A\n",
			want: []string{"[] intro"}, title: "A",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bs, title := markdownBlocks([]byte(tc.src))
			var got []string
			for _, b := range bs {
				got = append(got, "["+b.Heading+"] "+b.Text)
			}
			if !slices.Equal(got, tc.want) || title != tc.title {
				t.Errorf("blocks %q title %q, want %q %q", got, title, tc.want, tc.title)
			}
		})
	}
}

func TestFrontMatter(t *testing.T) {
	body, title := frontMatter("---\ntitle: \"Plan\"\ntags: [a]\n---\n# H\n")
	if body != "# H\n" || title != "Plan" {
		t.Fatalf("body %q title %q", body, title)
	}
	if body, title := frontMatter("---\nno end\n"); body != "---\nno end\n" || title != "" {
		t.Fatalf("an unclosed front matter was cut: %q %q", body, title)
	}
}

// FuzzMarkdownBlocks: any input is read without a panic, and every block
// is the source itself, as written.
func FuzzMarkdownBlocks(f *testing.F) {
	for _, s := range []string{"# A\n\ntext", "A\n===\n\n```\n# x\n", "- a\n  - b\n\n> q", "| a |\n|---|\n| b |", "    code\n\n***\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if !utf8.ValidString(src) {
			return
		}
		bs, _ := markdownBlocks([]byte(src))
		for _, b := range bs {
			if !strings.Contains(src, b.Text) || strings.TrimSpace(b.Text) == "" {
				t.Fatalf("block %q is not a piece of the source", b.Text)
			}
			if strings.Contains(b.Heading, "\n") {
				t.Fatalf("heading path %q spans lines", b.Heading)
			}
		}
	})
}

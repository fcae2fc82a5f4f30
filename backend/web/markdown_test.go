package web

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func TestBlocksOf(t *testing.T) {
	cases := []struct {
		name, html, want string
	}{
		{"nested lists keep their indent", `<ol><li>one<ul><li>a</li><li>b</li></ul></li><li>two</li></ol>`,
			"1. one\n  - a\n  - b\n2. two"},
		{"code keeps its lines", "<pre><code>if x {\n    return\n}</code></pre>", "```\nif x {\n    return\n}\n```"},
		{"a quote", `<blockquote><p>To be.</p><p>Or not.</p></blockquote>`, "> To be.\n>\n> Or not."},
		{"line breaks and spaces", "<p>a  \n b<br>c</p>", "a b\nc"},
		{"pipes in cells", `<table><tr><td>a|b</td></tr></table>`, "| a\\|b |\n| --- |"},
		{"a link to itself is its text", `<p><a href="https://x.org">https://x.org</a> and <a href="/rel">rel</a></p>`, "https://x.org and rel"},
		{"clutter dropped", `<div>kept<script>no</script><form>no</form><img alt="no"></div>`, "kept"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc, err := html.Parse(strings.NewReader(c.html))
			if err != nil {
				t.Fatal(err)
			}
			bs := blocksOf(doc)
			var got []string
			for _, b := range bs {
				got = append(got, b.Text)
			}
			if s := strings.Join(got, "\n\n"); s != c.want {
				t.Fatalf("got\n%s\nwant\n%s", s, c.want)
			}
		})
	}
}

// Headings nest: a level replaces its equals and clears the deeper ones.
func TestHeadingPaths(t *testing.T) {
	doc, _ := html.Parse(strings.NewReader(`<h2>A</h2><h3>B</h3><p>1</p><h3>C</h3><p>2</p><h2>D</h2><p>3</p>`))
	var got []string
	for _, b := range blocksOf(doc) {
		got = append(got, b.Heading+"="+b.Text)
	}
	if s := strings.Join(got, "; "); s != "A › B=1; A › C=2; D=3" {
		t.Fatalf("headings %s", s)
	}
	md := Markdown("T", blocksOf(doc))
	if want := "# T\n\n## A\n\n### B\n\n1\n\n### C\n\n2\n\n## D\n\n3"; md != want {
		t.Fatalf("markdown\n%s\nwant\n%s", md, want)
	}
}

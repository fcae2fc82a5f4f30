package web

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// A page reads as an HTML document does (extract.HTMLBlocks, tested
// there): the clutter around the text is dropped.
func TestBlocksOf(t *testing.T) {
	doc, err := html.Parse(strings.NewReader(`<div>kept<script>no</script><form>no</form><nav>no</nav></div><p>and <a href="https://x.org">this</a></p>`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range blocksOf(doc) {
		got = append(got, b.Text)
	}
	if s := strings.Join(got, "\n\n"); s != "kept\n\nand [this](https://x.org)" {
		t.Fatalf("got %q", s)
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

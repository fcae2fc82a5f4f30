package extract

import (
	"context"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
)

func TestHTMLBlocks(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{
			name: "dropped elements",
			src:  `<body><header><h1>T</h1></header><nav>menu</nav><aside>ad</aside><p>kept<script>x()</script><span aria-hidden="true">icon</span></p><form><p>field</p></form><template><p>t</p></template><noscript>js</noscript><footer>foot</footer></body>`,
			want: []string{"[T] kept"},
		},
		{
			name: "links: absolute kept, relative and javascript as text",
			src:  `<p><a href="https://a.example/x y">one</a> <a href="/rel">two</a> <a href="javascript:alert(1)">three</a> <a href="mailto:a@b.c">mail</a></p>`,
			want: []string{"[] [one](https://a.example/x%20y) two three [mail](mailto:a@b.c)"},
		},
		{
			name: "a link around blocks is walked as a container",
			src:  `<a href="https://x.example"><div><h2>Card</h2><p>body</p></div></a>`,
			want: []string{"[Card] body"},
		},
		{
			name: "images by their alt text",
			src:  `<p><img src="https://x.example/a.png" alt="A chart"> <img src="b.png" alt="local"> <img src="c.png"></p>`,
			want: []string{"[] ![A chart](https://x.example/a.png) local"},
		},
		{
			name: "line breaks and spaces",
			src:  "<p>one<br>two   three\n four</p><div>loose text<p>para</p>tail</div>",
			want: []string{"[] one\ntwo three four", "[] loose text", "[] para", "[] tail"},
		},
		{
			name: "a list item with paragraphs and an ordered list's start",
			src:  `<ol start="7"><li><p>first</p><p>more</p></li><li>second</li></ol>`,
			want: []string{"[] 7. first\n   more\n8. second"},
		},
		{
			name: "table rows without a thead, a ragged row, an empty row",
			src:  `<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr><tr><td> </td></tr></table>`,
			want: []string{"[] | a | b |\n| --- | --- |\n| c |  |"},
		},
		{
			name: "a heading inside a list item is bold text",
			src:  `<h2>S</h2><ul><li><h3>Inner</h3>text</li></ul>`,
			want: []string{"[S] - **Inner**\n  text"},
		},
		{
			name: "a heading path holds plain text, no links or hidden marks",
			src:  `<h2><a href="https://x.example/#s">The <em>new</em> plan</a><span hidden>¶</span></h2><p>body</p>`,
			want: []string{"[The new plan] body"},
		},
		{
			name: "a fence longer than the code's",
			src:  "<pre>a ``` b</pre>",
			want: []string{"[] ````\na ``` b\n````"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bs, _, err := HTMLBlocks(strings.NewReader(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, b := range bs {
				got = append(got, "["+b.Heading+"] "+b.Text)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("blocks %q, want %q", got, tc.want)
			}
		})
	}
}

func TestHTMLToMarkdown(t *testing.T) {
	md, title, err := HTMLToMarkdown(strings.NewReader(`<html><head><title> The  page </title></head><body><h1>Top</h1><p>a</p><h3>Deep</h3><ul><li>x</li></ul></body></html>`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "# Top\n\na\n\n### Deep\n\n- x"; md != want || title != "The page" {
		t.Fatalf("markdown %q title %q, want %q %q", md, title, want, "The page")
	}
	if _, title, _ := HTMLToMarkdown(strings.NewReader(`<h1>Only</h1><p>x</p>`)); title != "Only" {
		t.Fatalf("the title of a page without <title> is %q, want its first h1", title)
	}
}

// TestHTMLDeepNesting: a page nested as deep as the parser allows is
// read whole; one deeper is refused, not a stack overflow.
func TestHTMLDeepNesting(t *testing.T) {
	nest := func(n int) string {
		return "<p>top</p>" + strings.Repeat("<div><span>", n) + "deep" + strings.Repeat("</span></div>", n) + "<p>end</p>"
	}
	ex, err := Read(context.Background(), "deep.html", []byte(nest(250)))
	if err != nil {
		t.Fatal(err)
	}
	if got := blocks(ex); !slices.Equal(got, []string{"p1 [] top", "p1 [] deep", "p1 [] end"}) {
		t.Fatalf("blocks %q", got)
	}
	_, err = Read(context.Background(), "deeper.html", []byte(nest(50_000)))
	refused(t, err, "deeper.html", "cannot be read as HTML")
}

func TestHTMLCharset(t *testing.T) {
	ex, err := Read(context.Background(), "latin.html", []byte(`<html><head><meta charset="iso-8859-1"></head><body><p>caf`+"\xE9"+`</p></body></html>`))
	if err != nil {
		t.Fatal(err)
	}
	if got := blocks(ex); !slices.Equal(got, []string{"p1 [] café"}) {
		t.Fatalf("blocks %q", got)
	}
	ex, err = Read(context.Background(), "bom.html", []byte("\xEF\xBB\xBF<p>caf\xC3\xA9</p>"))
	if err != nil || !slices.Equal(blocks(ex), []string{"p1 [] café"}) {
		t.Fatalf("blocks %q, %v", blocks(ex), err)
	}
	ex, err = Read(context.Background(), "equiv.html", []byte(`<meta http-equiv="Content-Type" content="text/html; charset=windows-1252"><p>`+"\x80 5"))
	if err != nil || !slices.Equal(blocks(ex), []string{"p1 [] € 5"}) {
		t.Fatalf("blocks %q, %v", blocks(ex), err)
	}
	u16 := []byte{0xFF, 0xFE}
	for _, r := range utf16.Encode([]rune("<p>grüße</p>")) {
		u16 = append(u16, byte(r), byte(r>>8))
	}
	ex, err = Read(context.Background(), "utf16.html", u16)
	if err != nil || !slices.Equal(blocks(ex), []string{"p1 [] grüße"}) {
		t.Fatalf("a UTF-16 page with a byte order mark: blocks %q, %v", blocks(ex), err)
	}
	// A UTF-8 page that says "charset" in its text is still UTF-8.
	ex, err = Read(context.Background(), "words.html", []byte("<p>The charset is UTF-8: café</p>"))
	if err != nil || !slices.Equal(blocks(ex), []string{"p1 [] The charset is UTF-8: café"}) {
		t.Fatalf("blocks %q, %v", blocks(ex), err)
	}
	_, err = Read(context.Background(), "undeclared.html", []byte("<p>caf\xE9</p>"))
	refused(t, err, "undeclared.html", "not UTF-8")
	_, err = Read(context.Background(), "klingon.html", []byte(`<meta charset="x-klingon"><p>x</p>`))
	refused(t, err, "klingon.html", "x-klingon")
}

// FuzzHTMLToMarkdown: any input is read without a panic, and reading it
// twice gives the same text.
func FuzzHTMLToMarkdown(f *testing.F) {
	for _, s := range []string{
		"<h1>a</h1><p>b</p>", "<table><tr><td colspan=3>x", "<ul><li><ol><li>y</ol>", "<pre><code class=language-go>x</code></pre>",
		"<a href=http://x><div>z</div></a>", "<blockquote><h2>q</h2></blockquote>", "<p>a<br>b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		md, title, err := HTMLToMarkdown(strings.NewReader(src))
		if err != nil {
			return
		}
		md2, title2, _ := HTMLToMarkdown(strings.NewReader(src))
		if md != md2 || title != title2 {
			t.Fatal("two reads of one page differ")
		}
		if _, _, err := HTMLBlocks(strings.NewReader(src)); err != nil {
			t.Fatalf("HTMLBlocks failed where HTMLToMarkdown did not: %v", err)
		}
	})
}

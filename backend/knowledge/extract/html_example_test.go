package extract_test

import (
	"fmt"
	"strings"

	"github.com/agentdeck/agentdeck/backend/knowledge/extract"
)

// fetch_url turns a page, after readability, into Markdown for the model.
func ExampleHTMLToMarkdown() {
	page := `<html><head><title>Lamps</title></head><body>
<nav>Home · Shop</nav>
<h1>Lamp care</h1><p>Clean it <em>monthly</em>. See the <a href="https://example.com/m">manual</a>.</p>
<h2>Prices</h2><table><tr><th>Bulb</th><th>Price</th></tr><tr><td>LED</td><td>4.50</td></tr></table>
</body></html>`
	md, title, err := extract.HTMLToMarkdown(strings.NewReader(page))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(title)
	fmt.Println(md)
	// Output:
	// Lamps
	// # Lamp care
	//
	// Clean it *monthly*. See the [manual](https://example.com/m).
	//
	// ## Prices
	//
	// | Bulb | Price |
	// | --- | --- |
	// | LED | 4.50 |
}

// A document's passages keep the heading path above them.
func ExampleHTMLBlocks() {
	blocks, _, _ := extract.HTMLBlocks(strings.NewReader(`<h1>Guide</h1><h2>Setup</h2><p>Plug it in.</p>`))
	for _, b := range blocks {
		fmt.Printf("%s: %s\n", b.Heading, b.Text)
	}
	// Output:
	// Guide › Setup: Plug it in.
}

package extract

import (
	"slices"
	"strings"
)

// markdownTable renders rows as Markdown table rows, the first as the
// header, short rows padded so every row has as many cells as the widest;
// a cell's text is put on one line and its pipes escaped.
func markdownTable(rows [][]string) string {
	width := 0
	var kept [][]string
	for _, r := range rows {
		if strings.TrimSpace(strings.Join(r, "")) == "" {
			continue
		}
		kept = append(kept, r)
		width = max(width, len(r))
	}
	if len(kept) == 0 {
		return ""
	}
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for i := range width {
			c := ""
			if i < len(cells) {
				c = cell(cells[i])
			}
			b.WriteString(" " + c + " |")
		}
		b.WriteString("\n")
	}
	line(kept[0])
	line(slices.Repeat([]string{"---"}, width))
	for _, r := range kept[1:] {
		line(r)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// cell is a table cell's text on one line, its pipes escaped.
func cell(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
}

package peer

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
)

// paintAsk is what bench/ui/mermaid.mjs sends for figure 7c: "paint
// mermaid R" or "paint code R", R the round (so each round's diagram is
// new to the page's cache of drawn diagrams).
var paintAsk = regexp.MustCompile(`paint (mermaid|code) (\d+)`)

// paintNodes is the size of figure 7c's diagram, and of its floor, a plain
// code block of as many lines.
const paintNodes = 200

// paintReply answers a paint request at once (not paced): a 200-node
// Mermaid flowchart, or a plain 200-line code block, the floor it is
// measured against. ok is false for any other request.
func paintReply(req llmtest.Request) (llmtest.Reply, bool) {
	last := ""
	for _, m := range req.Messages {
		if m.Role == "user" {
			last = m.Content
		}
	}
	m := paintAsk.FindStringSubmatch(last)
	if m == nil {
		return llmtest.Reply{}, false
	}
	var sb strings.Builder
	if m[1] == "mermaid" {
		sb.WriteString("```mermaid\nflowchart TD\n")
		for i := range paintNodes {
			// A tree with some cross links: each node under i/2, every tenth linked back.
			fmt.Fprintf(&sb, "  R%sN%d[r%s n%d]\n", m[2], i, m[2], i)
			if i > 0 {
				fmt.Fprintf(&sb, "  R%sN%d --> R%sN%d\n", m[2], (i-1)/2, m[2], i)
			}
			if i > 10 && i%10 == 0 {
				fmt.Fprintf(&sb, "  R%sN%d -.-> R%sN%d\n", m[2], i, m[2], i-7)
			}
		}
	} else {
		sb.WriteString("```text\n")
		for i := range paintNodes {
			fmt.Fprintf(&sb, "round %s line %d: step %d of the plain block\n", m[2], i, i)
		}
	}
	sb.WriteString("```\n\nPainted round " + m[2] + ".")
	return llmtest.Reply{Chunks: llmtest.Text(sb.String(), 8),
		Usage: &llmtest.Usage{PromptTokens: 100, CompletionTokens: 2000, TotalTokens: 2100}}, true
}

package main

import (
	"strings"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
)

// The Mermaid scenario (frontend/e2e/mermaid.spec.ts): a message holding
// "mermaid diagram" is answered with a flowchart, "broken mermaid" with one
// whose fourth line does not parse, "hostile mermaid" with one whose click
// directives and labels try to run script or leave the app. Each answer
// streams in pieces, so the diagram's fence is open for a while.
const (
	mermaidFlowchart = "flowchart TD\n" +
		"  A[Question] --> B{Need data?}\n" +
		"  B -->|yes| C[Query the table]\n" +
		"  B -->|no| D[Answer]\n" +
		"  C --> D\n"
	mermaidBroken = "flowchart TD\n" +
		"  A --> B\n" +
		"  B --> C\n" +
		"  C -->> D\n"
	mermaidHostile = "flowchart TD\n" +
		"  A[\"<script>alert(1)</script>\"] --> B[\"<img src=x onerror=alert(2)>\"]\n" +
		"  B --> C[Link]\n" +
		"  click A \"javascript:alert(3)\" \"a tip\"\n" +
		"  click B call alert(4)\n" +
		"  click C href \"javascript:alert(5)\"\n"
)

// mermaidAnswer is the answer for a message holding one of the phrases
// above.
func mermaidAnswer(last string) llmtest.Reply {
	src, intro := mermaidFlowchart, "Here is the flow as a diagram:"
	switch {
	case strings.Contains(last, "broken mermaid"):
		src, intro = mermaidBroken, "Here is a diagram with a mistake in it:"
	case strings.Contains(last, "hostile mermaid"):
		src, intro = mermaidHostile, "Here is a diagram that tries to run script:"
	}
	return text(intro+"\n\n```mermaid\n"+src+"```\n\nThat is all.", 12)
}

// isMermaid reports whether the last user message asks for a Mermaid answer.
func isMermaid(last string) bool {
	return strings.Contains(last, "mermaid diagram") || strings.Contains(last, "broken mermaid") || strings.Contains(last, "hostile mermaid")
}

package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
)

// The artifact scenarios (issue 46), picked by artifact's one case in
// script:
//
//	make an artifact  calls create_artifact with an SVG image, then says
//	                  what the tool answered
//	mermaid           an answer with a ```mermaid flowchart
//	artifact          (anything else) the counter page of artifactframe.go
func artifact(r llmtest.Request, last string) llmtest.Reply {
	switch {
	case strings.Contains(last, "make an artifact"):
		return makeArtifact(r)
	case strings.Contains(last, "mermaid"):
		return answer46(turnFlowMermaid)
	}
	return artifactFrame("artifact v1") // "show me an artifact": the counter's first version
}

// artifactSVG is the image "make an artifact" sends to create_artifact.
const artifactSVG = `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="120" viewBox="0 0 240 120">` +
	`<title>Revenue dots</title>` +
	`<circle cx="40" cy="60" r="30" fill="#4c78a8"/><circle cx="110" cy="60" r="22" fill="#f58518"/>` +
	`<circle cx="170" cy="60" r="14" fill="#54a24b"/><circle cx="215" cy="60" r="10" fill="#e45756"/></svg>`

// makeArtifact calls create_artifact once, then says what it answered.
func makeArtifact(r llmtest.Request) llmtest.Reply {
	if toolResults(r) == 0 {
		if !hasTool(r, "create_artifact") {
			return text("I cannot make artifacts here: create_artifact is not offered.", 3)
		}
		return call("art1", "create_artifact", map[string]any{"key": "revenue-dots", "title": "Revenue dots", "kind": "svg", "content": artifactSVG})
	}
	return text(fmt.Sprintf("I drew the revenue dots. The tool said: %s", lastToolResult(r)), 6)
}

// turnFlowMermaid is a flowchart for the Mermaid renderer.
const turnFlowMermaid = "The flow of a turn:\n\n```mermaid\nflowchart TD\n" +
	"    A[Message] --> B{Tools?}\n" +
	"    B -->|yes| C[Run the tool]\n" +
	"    C --> B\n" +
	"    B -->|no| D[Answer]\n```\n\nEach box is a step."

// answer46 streams an answer over about half a second.
func answer46(s string) llmtest.Reply {
	return llmtest.Reply{Chunks: llmtest.Text(s, 12), Delay: 40 * time.Millisecond,
		Usage: &llmtest.Usage{PromptTokens: 220, CompletionTokens: 180, TotalTokens: 400}}
}

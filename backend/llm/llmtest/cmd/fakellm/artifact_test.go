package main

import (
	"testing"

	art "github.com/agentdeck/agentdeck/backend/artifact"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
)

// Each "artifact vN" answer is one html artifact, the counter page, each
// version different, so three sends make three versions; the SVG
// create_artifact gets passes its checks.
func TestArtifactScenario(t *testing.T) {
	seen := map[string]bool{}
	for _, v := range []string{"1", "2", "3"} {
		msg := "artifact v" + v
		if v == "1" {
			msg = "show me an artifact"
		}
		got := art.Blocks(llmtest.Content(script(llmtest.Request{Messages: []llmtest.Message{{Role: "user", Content: msg}}}).Chunks))
		if len(got) != 1 || got[0].Key != "html" || got[0].Title != "Counter" || seen[got[0].Content] {
			t.Fatalf("%q: %+v", msg, got)
		}
		seen[got[0].Content] = true
	}
	if err := art.Check("svg", artifactSVG); err != nil {
		t.Fatal(err)
	}
	if got := art.Blocks(turnFlowMermaid); len(got) != 0 {
		t.Fatalf("a mermaid block is no artifact: %+v", got)
	}
}

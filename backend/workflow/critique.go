package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// KindCritiqueRevise has a writer draft, a critic judge and a reviser revise.
const KindCritiqueRevise Kind = "critique-revise"

func init() {
	register(executorSpec{
		kind:  KindCritiqueRevise,
		order: 20,
		doc:   "a writer drafts, a critic judges, a reviser revises",
		roles: []role{
			{name: "writer", required: true, answers: true, doc: "the agent that writes the first draft"},
			{name: "critic", required: true, doc: "the agent that judges each draft",
				more: `It should reply with JSON {"passed": bool, "score": 0-1, "feedback": "..."}.`},
			{name: "reviser", deflt: "writer", answers: true, doc: "the agent that revises a draft with the critic's feedback"},
		},
		numbers: []number{{name: "max_retries", integer: true, deflt: 3, doc: "the most revisions before the stage fails"}},
		blocks:  []string{"pass_check", "post_pass_check"},
		run:     (*wfRun).execCritique,
	})
}

// Verdict is a critic's judgement.
type Verdict struct {
	Passed   bool    `json:"passed"`
	Score    float64 `json:"score"`
	Feedback string  `json:"feedback"`
}

// ParseVerdict reads a critic's answer: a JSON object with "passed" found
// anywhere in the text, else PASS or FAIL as the first word, whose feedback
// is the rest of that line ("FAIL: too long", "FAIL - too long") followed
// by the lines after it. Anything else is not a pass, with the whole text
// as feedback. Scores on a 0-10 scale are brought to 0-1.
func ParseVerdict(text string) Verdict {
	raw, ok := findJSON(text, func(r json.RawMessage) bool {
		var m map[string]json.RawMessage
		if json.Unmarshal(r, &m) != nil {
			return false
		}
		_, has := m["passed"]
		return has
	})
	if ok {
		var v Verdict
		if json.Unmarshal(raw, &v) == nil {
			v.Score = normScore(v.Score)
			return v
		}
	}
	first, rest, _ := strings.Cut(strings.TrimSpace(text), "\n")
	m := verdictWordRe.FindStringSubmatch(strings.TrimSpace(first))
	if m == nil {
		return Verdict{Feedback: strings.TrimSpace(text)}
	}
	var parts []string
	for _, p := range []string{m[2], rest} {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	v := Verdict{Feedback: strings.Join(parts, "\n")}
	if strings.EqualFold(m[1], "pass") {
		v.Passed, v.Score = true, 1
	}
	return v
}

// verdictWordRe is a first line that starts with PASS or FAIL (markdown
// emphasis or a heading mark around it allowed) and the reason after it,
// past any separator. PASSABLE or FAILSAFE are words of their own, not verdicts.
var verdictWordRe = regexp.MustCompile("(?i)^[\\s*_#>`]*(pass|fail)(?:ed|ure)?\\b[\\s*_`:.,;!)\\-–—]*(.*)$")

// passed applies the pass check to the critic's reply and its verdict.
func (p *PassCheck) passed(reply string, v Verdict) bool {
	switch {
	case p == nil || p.Verdict:
		return v.Passed
	case p.Contains != "":
		return strings.Contains(reply, p.Contains)
	case p.ScoreAtLeast != nil:
		return v.Score >= normScore(*p.ScoreAtLeast)
	case p.Matches != "":
		re, err := regexp.Compile(p.Matches)
		return err == nil && re.MatchString(reply)
	}
	return v.Passed
}

// check applies the post-pass checks to the draft or the critique.
func (p *PostPassCheck) check(draft, critique string) error {
	if p == nil {
		return nil
	}
	if p.On == "critique" {
		return p.Validation.checkText("the critique", critique)
	}
	return p.Validation.checkText("the draft", draft)
}

// judge reads a critic's reply for the stage: its verdict, passed by the
// stage's pass check and not vetoed by validate (on the draft) or the
// post-pass check. A veto is said in the feedback the reviser gets.
func judge(st *Stage, reply, draft string) Verdict {
	v := ParseVerdict(reply)
	v.Passed = st.PassCheck.passed(reply, v)
	if !v.Passed {
		return v
	}
	err := st.Validate.check(draft)
	if err == nil {
		err = st.PostPassCheck.check(draft, reply)
	}
	if err != nil {
		v.Passed = false
		v.Feedback = strings.TrimSpace("The draft was accepted but failed the check: " + err.Error() + ". " + v.Feedback)
	}
	return v
}

// execCritique: a writer drafts, a critic judges, a reviser applies the
// feedback, up to max_retries revisions. The output is always a draft, with
// the write or revise stage that wrote it, never the critic's reply.
func (r *wfRun) execCritique(ctx context.Context, st *Stage, task string) stageOutcome {
	retries := st.count("max_retries")
	sr, res := r.agentStage(ctx, stageCall{name: "write", agent: st.role("writer")}, r.userInput(task))
	if sr.Outcome != turn.OutcomeSucceeded {
		return outcomeOf(sr, res)
	}
	draft := output{text: res.FinalText, stageID: sr.ID}
	for i := 0; ; i++ {
		csr, cres := r.agentStage(ctx, stageCall{name: fmt.Sprintf("critique %d", i+1), agent: st.role("critic")}, agent.Input{User: critiquePrompt(task, draft.text)})
		if csr.Outcome != turn.OutcomeSucceeded {
			o := outcomeOf(csr, cres)
			o.output = draft
			return o
		}
		v := judge(st, cres.FinalText, draft.text)
		r.em.Emit(turn.Draft{StageID: csr.ID, Data: turn.CritiqueData{Score: v.Score, Passed: v.Passed, Feedback: v.Feedback}})
		if v.Passed {
			return stageOutcome{output: draft, outcome: turn.OutcomeSucceeded, term: turn.Termination{Kind: turn.TermCompleted}}
		}
		if i == retries {
			return notPassed(st, draft, retries)
		}
		r.em.Emit(turn.Draft{StageID: csr.ID, Data: turn.RefiningData{Iteration: i + 1}})
		next, failed := r.revise(ctx, st, task, draft, v.Feedback, i+1)
		if failed != nil {
			return *failed
		}
		draft = next
	}
}

// revise runs revision n with the reviser (the writer unless one is set)
// and announces the new draft. A reviser that fails ends the stage (with
// the last draft when it left no text); one that replies blank leaves the
// draft as it was.
func (r *wfRun) revise(ctx context.Context, st *Stage, task string, draft output, feedback string, n int) (output, *stageOutcome) {
	rsr, rres := r.agentStage(ctx, stageCall{name: fmt.Sprintf("revise %d", n), agent: st.role("reviser")}, agent.Input{User: revisePrompt(task, draft.text, feedback)})
	if rsr.Outcome != turn.OutcomeSucceeded {
		o := outcomeOf(rsr, rres)
		if o.text == "" {
			o.output = draft
		}
		return draft, &o
	}
	if strings.TrimSpace(rres.FinalText) == "" {
		return draft, nil
	}
	next := output{text: rres.FinalText, stageID: rsr.ID}
	r.em.Emit(turn.Draft{StageID: rsr.ID, Data: turn.RevisionData{Iteration: n, Text: next.text}})
	return next, nil
}

// notPassed fails the stage at its revision limit, keeping the last draft
// with a note that says the critic never passed it.
func notPassed(st *Stage, draft output, revisions int) stageOutcome {
	draft.note = fmt.Sprintf("The critic did not pass this draft after %d %s.", revisions, plural(revisions, "revision"))
	return stageOutcome{output: draft, outcome: turn.OutcomeFailed, reason: draft.note,
		term: turn.Termination{Kind: turn.TermMaxIterations, Limit: int64(revisions), Used: int64(revisions), Stage: st.Name,
			Properties: map[string]string{"counts": "revisions"}}}
}

func critiquePrompt(task, draft string) string {
	return "Task:\n" + task + "\n\nDraft:\n" + draft + "\n\nEvaluate the draft against the task. Reply with JSON: {\"passed\": true|false, \"score\": 0..1, \"feedback\": \"what to change\"}."
}

func revisePrompt(task, draft, feedback string) string {
	return "Task:\n" + task + "\n\nYour previous draft:\n" + draft + "\n\nFeedback:\n" + feedback + "\n\nRewrite the draft applying the feedback. Reply with the new draft only."
}

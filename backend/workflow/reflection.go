package workflow

import (
	"context"
	"fmt"
	"strconv"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// KindReflection has an agent answer, score its answer and refine it.
const KindReflection Kind = "reflection"

func init() {
	register(executorSpec{
		kind:  KindReflection,
		order: 40,
		doc:   "an agent answers, scores itself and refines",
		roles: []role{
			{name: "agent", required: true, answers: true, doc: "the agent that answers", more: "It refines its answer with the critic's feedback."},
			{name: "critic", deflt: "agent", doc: "the agent that scores each answer", more: `It should reply with JSON {"passed": bool, "score": 0-1, "feedback": "..."}.`},
		},
		numbers: []number{
			{name: "threshold", deflt: 0.8, max: 10, doc: "the score an answer needs to pass, on the critic's 0-1 scale",
				more: "Values above 1 are read on a 0-10 scale.", rangeNote: "a score from 0 to 1; above 1 reads as 0 to 10"},
			{name: "max_iterations", integer: true, deflt: 3, doc: "the most answer-and-score rounds",
				more: "When no answer reaches the threshold, the best-scored one stands."},
		},
		run: (*wfRun).execReflection,
	})
}

// execReflection: generate, self-critique with a score, refine below the
// threshold, at most max_iterations times. Reflection refines, it does not
// veto: when no answer reaches the threshold, the best-scored one stands
// (the later one on a tie), with a note and max_iterations_reached.
func (r *wfRun) execReflection(ctx context.Context, st *Stage, task string) stageOutcome {
	iters := st.count("max_iterations")
	threshold := normScore(st.number("threshold"))
	critic := st.role("critic")
	var answer, best output
	bestScore := -1.0
	var feedback, reflectID string
	for it := 1; it <= iters; it++ {
		r.em.Emit(turn.Draft{Data: turn.ReflectionStartData{Iteration: it}})
		call, in := stageCall{name: "generate", agent: st.role("agent")}, r.userInput(task)
		if it > 1 {
			call.name, in = fmt.Sprintf("refine %d", it-1), agent.Input{User: revisePrompt(task, answer.text, feedback)}
			r.em.Emit(turn.Draft{StageID: reflectID, Data: turn.RefiningData{Iteration: it - 1}})
		}
		gsr, gres := r.agentStage(ctx, call, in)
		if gsr.Outcome != turn.OutcomeSucceeded {
			o := outcomeOf(gsr, gres)
			if o.text == "" {
				o.output = best
			}
			return o
		}
		answer = output{text: gres.FinalText, stageID: gsr.ID}
		csr, cres := r.agentStage(ctx, stageCall{name: fmt.Sprintf("reflect %d", it), agent: critic}, agent.Input{User: critiquePrompt(task, answer.text)})
		if csr.Outcome != turn.OutcomeSucceeded {
			o := outcomeOf(csr, cres)
			o.output = answer
			return o
		}
		reflectID = csr.ID
		v := ParseVerdict(cres.FinalText)
		passed := v.Score >= threshold || (v.Passed && v.Score == 0)
		feedback = v.Feedback
		r.em.Emit(turn.Draft{StageID: csr.ID, Data: turn.ReflectionEndData{Iteration: it, Score: v.Score, Passed: passed}})
		if passed {
			return stageOutcome{output: answer, outcome: turn.OutcomeSucceeded, term: turn.Termination{Kind: turn.TermCompleted}}
		}
		if v.Score >= bestScore {
			best, bestScore = answer, v.Score
		}
	}
	best.note = fmt.Sprintf("No answer reached the threshold score of %s in %d %s; this is the best-scored one (%s).",
		fmtScore(threshold), iters, plural(iters, "iteration"), fmtScore(bestScore))
	return stageOutcome{output: best, outcome: turn.OutcomeSucceeded,
		term: turn.Termination{Kind: turn.TermMaxIterations, Limit: int64(iters), Used: int64(iters), Stage: st.Name,
			Properties: map[string]string{"counts": "iterations"}}}
}

func fmtScore(s float64) string {
	return strconv.FormatFloat(s, 'g', 3, 64)
}

package workflow

import (
	"cmp"
	"context"
	"fmt"
	"strconv"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// execReflection: generate, self-critique with a score, refine below the
// threshold, at most MaxIterations times. Reflection refines, it does not
// veto: when no answer reaches the threshold, the best-scored one stands
// (the later one on a tie), with a note and max_iterations_reached.
func (r *wfRun) execReflection(ctx context.Context, st *Stage, task string) stageOutcome {
	iters := st.MaxIterations
	if iters <= 0 {
		iters = 3
	}
	threshold := st.Threshold
	if threshold <= 0 {
		threshold = 0.8
	}
	threshold = normScore(threshold)
	critic := cmp.Or(st.Critic, st.Agent)
	var answer, best output
	bestScore := -1.0
	var feedback, reflectID string
	for it := 1; it <= iters; it++ {
		r.em.Emit(turn.Draft{Type: turn.EventReflectionStart, Data: turn.ReflectionStartData{Iteration: it}})
		call, in := stageCall{name: "generate", agent: st.Agent}, agent.Input{History: r.in.History, User: task}
		if it > 1 {
			call.name, in = fmt.Sprintf("refine %d", it-1), agent.Input{User: revisePrompt(task, answer.text, feedback)}
			r.em.Emit(turn.Draft{Type: turn.EventRefining, StageID: reflectID, Data: turn.RefiningData{Iteration: it - 1}})
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
		r.em.Emit(turn.Draft{Type: turn.EventReflectionEnd, StageID: csr.ID, Data: turn.ReflectionEndData{Iteration: it, Score: v.Score, Passed: passed}})
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

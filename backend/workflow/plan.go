package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// KindPlanExecute has a planner plan, an executor do each step and a
// finisher answer.
const KindPlanExecute Kind = "plan-execute"

func init() {
	register(executorSpec{
		kind:  KindPlanExecute,
		order: 30,
		doc:   "a planner plans, an executor does each step, a finisher answers",
		roles: []role{
			{name: "planner", required: true, doc: "the agent that makes the plan",
				more: `It plans again when a step fails, and should reply with JSON {"steps": [{"title": "..."}]}.`},
			{name: "executor", required: true, answers: true, doc: "the agent that carries out each step"},
			{name: "finisher", deflt: "executor", answers: true, doc: "the agent that writes the final answer from the step results"},
		},
		numbers: []number{{name: "max_replans", integer: true, deflt: 2,
			doc: "how many times a failed step may trigger a new plan before the stage fails"}},
		run: (*wfRun).execPlan,
	})
}

// execPlan: a planner makes a plan, each step runs as a stage, a failed
// step triggers a replan of the remaining steps, a finisher answers. Only
// the finisher's reply is the stage's output: a plan or a step result is
// not an answer, even when the stage ends before the finisher runs.
func (r *wfRun) execPlan(ctx context.Context, st *Stage, task string) stageOutcome {
	psr, pres := r.agentStage(ctx, stageCall{name: "plan", agent: st.role("planner")}, agent.Input{History: r.in.History, User: planPrompt(task), Images: r.in.Images})
	if psr.Outcome != turn.OutcomeSucceeded {
		return noAnswer(outcomeOf(psr, pres))
	}
	titles := parsePlan(pres.FinalText)
	if len(titles) == 0 {
		return stageOutcome{outcome: turn.OutcomeFailed, reason: "the planner returned no steps", source: "workflow"}
	}
	plan := make([]turn.PlanStep, len(titles))
	for i, t := range titles {
		plan[i] = turn.PlanStep{Title: t, Status: "pending"}
	}
	r.emitPlan(psr.ID, plan)
	results, failed := r.runSteps(ctx, st, task, plan)
	if failed != nil {
		return noAnswer(*failed)
	}
	fsr, fres := r.agentStage(ctx, stageCall{name: "finish", agent: st.role("finisher"), final: r.lastStage}, agent.Input{User: finishPrompt(task, results)})
	return outcomeOf(fsr, fres)
}

// runSteps runs the plan's steps, replanning after a failed step at most
// max_replans times. It returns the step results, or the outcome that ends
// the stage.
func (r *wfRun) runSteps(ctx context.Context, st *Stage, task string, plan []turn.PlanStep) ([]string, *stageOutcome) {
	maxReplans := st.count("max_replans")
	var results []string
	replans := 0
	for i := 0; i < len(plan); i++ {
		plan[i].Status = "running"
		r.em.Emit(turn.Draft{Data: turn.StepStartData{StepIndex: i, Description: plan[i].Title}})
		ssr, sres := r.agentStage(ctx, stageCall{name: fmt.Sprintf("step %d", i+1), agent: st.role("executor")}, agent.Input{User: stepPrompt(task, plan, results, i)})
		ok := ssr.Outcome == turn.OutcomeSucceeded
		r.em.Emit(turn.Draft{Data: turn.StepEndData{StepIndex: i, Success: ok}})
		if ok {
			plan[i].Status = "done"
			results = append(results, fmt.Sprintf("Step %d (%s): %s", i+1, plan[i].Title, sres.FinalText))
			continue
		}
		plan[i].Status = "error"
		r.planSteps = append([]turn.PlanStep(nil), plan...)
		if ssr.Outcome == turn.OutcomeCancelled || replans >= maxReplans {
			o := outcomeOf(ssr, sres)
			if o.outcome != turn.OutcomeCancelled {
				o.reason = fmt.Sprintf("step %d %q failed after %d replans", i+1, plan[i].Title, replans)
				if o.term.Kind.IsLimit() {
					// The turn ends at the step's limit; say which.
					o.reason += " (" + o.term.Describe() + ")"
				}
			}
			return nil, &o
		}
		replans++
		rsr, rres := r.agentStage(ctx, stageCall{name: fmt.Sprintf("replan %d", replans), agent: st.role("planner")}, agent.Input{User: replanPrompt(task, plan, results, i)})
		if rsr.Outcome != turn.OutcomeSucceeded {
			o := outcomeOf(rsr, rres)
			return nil, &o
		}
		plan = plan[:i+1]
		for _, t := range parsePlan(rres.FinalText) {
			plan = append(plan, turn.PlanStep{Title: t, Status: "pending"})
		}
		r.emitPlan(rsr.ID, plan)
	}
	r.planSteps = append([]turn.PlanStep(nil), plan...)
	return results, nil
}

// noAnswer drops a plan or step reply from an outcome that ends the stage.
func noAnswer(o stageOutcome) stageOutcome {
	o.output = output{}
	return o
}

func (r *wfRun) emitPlan(stageID string, plan []turn.PlanStep) {
	r.planSteps = append([]turn.PlanStep(nil), plan...)
	r.em.Emit(turn.Draft{StageID: stageID, Data: turn.PlanData{Steps: r.planSteps}})
}

// parsePlan reads {"steps":[{"title":...}]} (or ["..."]) found in the text,
// else a numbered or bulleted list.
func parsePlan(text string) []string {
	var titles []string
	raw, ok := findJSON(text, func(r json.RawMessage) bool {
		var p struct {
			Steps []json.RawMessage `json:"steps"`
		}
		return json.Unmarshal(r, &p) == nil && len(p.Steps) > 0
	})
	if ok {
		var p struct {
			Steps []json.RawMessage `json:"steps"`
		}
		json.Unmarshal(raw, &p)
		for _, s := range p.Steps {
			var obj struct {
				Title string `json:"title"`
			}
			var str string
			if json.Unmarshal(s, &obj) == nil && obj.Title != "" {
				titles = append(titles, obj.Title)
			} else if json.Unmarshal(s, &str) == nil && str != "" {
				titles = append(titles, str)
			}
		}
		return capSteps(titles)
	}
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		l = strings.TrimLeft(l, "-*• ")
		if i := strings.IndexAny(l, ".)"); i > 0 && i <= 3 && strings.Trim(l[:i], "0123456789") == "" {
			l = strings.TrimSpace(l[i+1:])
		} else if !strings.HasPrefix(strings.TrimSpace(line), "-") && !strings.HasPrefix(strings.TrimSpace(line), "*") {
			continue
		}
		if l != "" {
			titles = append(titles, l)
		}
	}
	return capSteps(titles)
}

func capSteps(t []string) []string {
	if len(t) > 12 {
		return t[:12]
	}
	return t
}

func planPrompt(task string) string {
	return "Make a short plan (at most 8 steps) for this task. Reply with JSON only: {\"steps\": [{\"title\": \"...\"}]}.\n\nTask:\n" + task
}

func stepPrompt(task string, plan []turn.PlanStep, results []string, i int) string {
	var b strings.Builder
	b.WriteString("Overall task:\n" + task + "\n\nPlan:\n")
	for j, s := range plan {
		fmt.Fprintf(&b, "%d. %s\n", j+1, s.Title)
	}
	if len(results) > 0 {
		b.WriteString("\nResults so far:\n" + strings.Join(results, "\n") + "\n")
	}
	fmt.Fprintf(&b, "\nDo step %d now: %s. Reply with the step's result.", i+1, plan[i].Title)
	return b.String()
}

func replanPrompt(task string, plan []turn.PlanStep, results []string, failed int) string {
	var b strings.Builder
	b.WriteString("Task:\n" + task + "\n\nThe plan so far:\n")
	for j, s := range plan[:failed+1] {
		fmt.Fprintf(&b, "%d. %s (%s)\n", j+1, s.Title, s.Status)
	}
	if len(results) > 0 {
		b.WriteString("\nResults:\n" + strings.Join(results, "\n") + "\n")
	}
	fmt.Fprintf(&b, "\nStep %d failed. Plan the remaining steps again, working around the failure. Reply with JSON only: {\"steps\": [{\"title\": \"...\"}]}.", failed+1)
	return b.String()
}

func finishPrompt(task string, results []string) string {
	return "Task:\n" + task + "\n\nStep results:\n" + strings.Join(results, "\n") + "\n\nWrite the final answer for the user from these results."
}

package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/llm"
)

// execChat runs one agent with its tools on the conversation.
func (r *wfRun) execChat(ctx context.Context, st *Stage, input string) stageOutcome {
	sr, res := r.agentStage(ctx, st.Name, st.Agent, agent.Input{History: r.in.History, User: input})
	if r.def.Kind != KindPipeline {
		// The chat transcript (with its tool calls) is the turn's conversation.
		r.transcript = res.Messages
		r.planSteps = res.PlanSteps
	}
	return outcomeOf(sr, res)
}

func outcomeOf(sr agent.StageResult, res agent.Result) stageOutcome {
	out := stageOutcome{text: res.FinalText, outcome: sr.Outcome, term: sr.Termination}
	if sr.Outcome == agent.OutcomeFailed {
		out.reason = sr.Termination.String()
		if sr.Termination.Kind == agent.TermFailed {
			out.reason = sr.Termination.Error
		}
	}
	return out
}

// Verdict is a critic's judgement.
type Verdict struct {
	Passed   bool    `json:"passed"`
	Score    float64 `json:"score"`
	Feedback string  `json:"feedback"`
}

// ParseVerdict reads a critic's answer: a JSON object with "passed" found
// anywhere in the text, else PASS or FAIL on its first line. Anything else
// is not a pass, with the whole text as feedback. Scores on a 0-10 scale
// are brought to 0-1.
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
	word := strings.ToUpper(strings.Trim(strings.TrimSpace(first), "*#:. "))
	switch {
	case strings.HasPrefix(word, "PASS"):
		return Verdict{Passed: true, Score: 1, Feedback: strings.TrimSpace(rest)}
	case strings.HasPrefix(word, "FAIL"):
		return Verdict{Passed: false, Score: 0, Feedback: strings.TrimSpace(rest)}
	}
	return Verdict{Feedback: strings.TrimSpace(text)}
}

func normScore(s float64) float64 {
	if s > 1 {
		s /= 10
	}
	return min(max(s, 0), 1)
}

// execCritique: a writer drafts, a critic judges, a reviser applies the
// feedback, up to MaxRetries revisions. Validate, when set, may veto a pass.
func (r *wfRun) execCritique(ctx context.Context, st *Stage, task string) stageOutcome {
	retries := st.MaxRetries
	if retries <= 0 {
		retries = 3
	}
	reviser := st.Reviser
	if reviser == "" {
		reviser = st.Writer
	}
	sr, res := r.agentStage(ctx, "write", st.Writer, agent.Input{History: r.in.History, User: task})
	if sr.Outcome != agent.OutcomeSucceeded {
		return outcomeOf(sr, res)
	}
	draft := res.FinalText
	for i := 0; ; i++ {
		csr, cres := r.agentStage(ctx, fmt.Sprintf("critique %d", i+1), st.Critic, agent.Input{User: critiquePrompt(task, draft)})
		if csr.Outcome != agent.OutcomeSucceeded {
			o := outcomeOf(csr, cres)
			o.text = draft
			return o
		}
		v := ParseVerdict(cres.FinalText)
		if v.Passed {
			if err := st.Validate.check(draft); err != nil {
				v.Passed, v.Feedback = false, "The draft was accepted but failed the check: "+err.Error()+". "+v.Feedback
			}
		}
		r.em.Emit(agent.Draft{Type: agent.EventCritique, StageID: csr.ID, Data: agent.CritiqueData{Score: v.Score, Passed: v.Passed, Feedback: v.Feedback}})
		if v.Passed {
			return stageOutcome{text: draft, outcome: agent.OutcomeSucceeded, term: agent.Termination{Kind: agent.TermCompleted}}
		}
		if i == retries {
			reason := fmt.Sprintf("the critic did not pass the draft after %d revisions", retries)
			return stageOutcome{text: draft, outcome: agent.OutcomeFailed, reason: reason,
				term: agent.Termination{Kind: agent.TermMaxIterations, Limit: int64(retries), Used: int64(retries)}}
		}
		r.em.Emit(agent.Draft{Type: agent.EventRefining, StageID: csr.ID, Data: agent.RefiningData{Iteration: i + 1}})
		rsr, rres := r.agentStage(ctx, fmt.Sprintf("revise %d", i+1), reviser, agent.Input{User: revisePrompt(task, draft, v.Feedback)})
		if rsr.Outcome != agent.OutcomeSucceeded {
			o := outcomeOf(rsr, rres)
			if o.text == "" {
				o.text = draft
			}
			return o
		}
		draft = rres.FinalText
	}
}

func critiquePrompt(task, draft string) string {
	return "Task:\n" + task + "\n\nDraft:\n" + draft + "\n\nEvaluate the draft against the task. Reply with JSON: {\"passed\": true|false, \"score\": 0..1, \"feedback\": \"what to change\"}."
}

func revisePrompt(task, draft, feedback string) string {
	return "Task:\n" + task + "\n\nYour previous draft:\n" + draft + "\n\nFeedback:\n" + feedback + "\n\nRewrite the draft applying the feedback. Reply with the new draft only."
}

// execReflection: generate, self-critique with a score, refine below the
// threshold, at most MaxIterations times.
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
	critic := st.Critic
	if critic == "" {
		critic = st.Agent
	}
	var answer, feedback string
	for it := 1; it <= iters; it++ {
		r.em.Emit(agent.Draft{Type: agent.EventReflectionStart, Data: agent.ReflectionStartData{Iteration: it}})
		in := agent.Input{History: r.in.History, User: task}
		name := "generate"
		if it > 1 {
			name = fmt.Sprintf("refine %d", it-1)
			in = agent.Input{User: revisePrompt(task, answer, feedback)}
		}
		gsr, gres := r.agentStage(ctx, name, st.Agent, in)
		if gsr.Outcome != agent.OutcomeSucceeded {
			return outcomeOf(gsr, gres)
		}
		answer = gres.FinalText
		csr, cres := r.agentStage(ctx, fmt.Sprintf("reflect %d", it), critic, agent.Input{User: critiquePrompt(task, answer)})
		if csr.Outcome != agent.OutcomeSucceeded {
			o := outcomeOf(csr, cres)
			o.text = answer
			return o
		}
		v := ParseVerdict(cres.FinalText)
		passed := v.Score >= threshold || (v.Passed && v.Score == 0)
		feedback = v.Feedback
		r.em.Emit(agent.Draft{Type: agent.EventReflectionEnd, StageID: csr.ID, Data: agent.ReflectionEndData{Iteration: it, Score: v.Score, Passed: passed}})
		if passed {
			return stageOutcome{text: answer, outcome: agent.OutcomeSucceeded, term: agent.Termination{Kind: agent.TermCompleted}}
		}
	}
	// The best answer so far stands: reflection refines, it does not veto.
	return stageOutcome{text: answer, outcome: agent.OutcomeSucceeded,
		term: agent.Termination{Kind: agent.TermMaxIterations, Limit: int64(iters), Used: int64(iters)}}
}

// execPlan: a planner makes a plan, each step runs as a stage, a failed
// step triggers a replan of the remaining steps, a finisher answers.
func (r *wfRun) execPlan(ctx context.Context, st *Stage, task string) stageOutcome {
	maxReplans := st.MaxReplans
	if maxReplans <= 0 {
		maxReplans = 2
	}
	finisher := st.Finisher
	if finisher == "" {
		finisher = st.Executor
	}
	psr, pres := r.agentStage(ctx, "plan", st.Planner, agent.Input{History: r.in.History, User: planPrompt(task)})
	if psr.Outcome != agent.OutcomeSucceeded {
		return outcomeOf(psr, pres)
	}
	titles := parsePlan(pres.FinalText)
	if len(titles) == 0 {
		return stageOutcome{outcome: agent.OutcomeFailed, reason: "the planner returned no steps"}
	}
	plan := make([]agent.PlanStep, len(titles))
	for i, t := range titles {
		plan[i] = agent.PlanStep{Title: t, Status: "pending"}
	}
	r.emitPlan(psr.ID, plan)
	var results []string
	replans := 0
	for i := 0; i < len(plan); i++ {
		plan[i].Status = "running"
		r.em.Emit(agent.Draft{Type: agent.EventStepStart, Data: agent.StepStartData{StepIndex: i, Description: plan[i].Title}})
		ssr, sres := r.agentStage(ctx, fmt.Sprintf("step %d", i+1), st.Executor, agent.Input{User: stepPrompt(task, plan, results, i)})
		ok := ssr.Outcome == agent.OutcomeSucceeded
		r.em.Emit(agent.Draft{Type: agent.EventStepEnd, Data: agent.StepEndData{StepIndex: i, Success: ok}})
		if ok {
			plan[i].Status = "done"
			results = append(results, fmt.Sprintf("Step %d (%s): %s", i+1, plan[i].Title, sres.FinalText))
			continue
		}
		plan[i].Status = "error"
		r.planSteps = append([]agent.PlanStep(nil), plan...)
		if ssr.Outcome == agent.OutcomeCancelled || replans >= maxReplans {
			o := outcomeOf(ssr, sres)
			if o.outcome != agent.OutcomeCancelled {
				o.outcome, o.reason = agent.OutcomeFailed, fmt.Sprintf("step %d %q failed after %d replans", i+1, plan[i].Title, replans)
			}
			return o
		}
		replans++
		rsr, rres := r.agentStage(ctx, fmt.Sprintf("replan %d", replans), st.Planner, agent.Input{User: replanPrompt(task, plan, results, i)})
		if rsr.Outcome != agent.OutcomeSucceeded {
			return outcomeOf(rsr, rres)
		}
		rest := parsePlan(rres.FinalText)
		plan = plan[:i+1]
		for _, t := range rest {
			plan = append(plan, agent.PlanStep{Title: t, Status: "pending"})
		}
		r.emitPlan(rsr.ID, plan)
	}
	r.planSteps = append([]agent.PlanStep(nil), plan...)
	fsr, fres := r.agentStage(ctx, "finish", finisher, agent.Input{User: finishPrompt(task, results)})
	return outcomeOf(fsr, fres)
}

func (r *wfRun) emitPlan(stageID string, plan []agent.PlanStep) {
	r.planSteps = append([]agent.PlanStep(nil), plan...)
	r.em.Emit(agent.Draft{Type: agent.EventPlanGenerated, StageID: stageID, Data: agent.PlanData{Steps: r.planSteps}})
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

func stepPrompt(task string, plan []agent.PlanStep, results []string, i int) string {
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

func replanPrompt(task string, plan []agent.PlanStep, results []string, failed int) string {
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

// execHandoff: a triage agent with a transfer tool per specialist; a
// transfer hands the conversation to the specialist, up to MaxHandoffs.
func (r *wfRun) execHandoff(ctx context.Context, st *Stage, input string) stageOutcome {
	maxHandoffs := st.MaxHandoffs
	if maxHandoffs <= 0 {
		maxHandoffs = 3
	}
	current := st.Triage
	in := agent.Input{History: r.in.History, User: input}
	for handoffs := 0; ; handoffs++ {
		var target string
		var tools []agent.Tool
		if handoffs < maxHandoffs {
			for _, sp := range st.Specialists {
				if sp != current {
					tools = append(tools, transferTool(sp, &target))
				}
			}
		}
		sr, res := r.agentStage(ctx, fmt.Sprintf("%s %d", current, handoffs+1), current, in, tools...)
		if target == "" || sr.Outcome != agent.OutcomeSucceeded {
			out := outcomeOf(sr, res)
			r.transcript = res.Messages
			return out
		}
		r.em.Emit(agent.Draft{Type: agent.EventHandoffStart, StageID: sr.ID, Data: agent.HandoffStartData{From: current, To: target}})
		history := withoutSystem(res.Messages)
		r.em.Emit(agent.Draft{Type: agent.EventHandoffEnd, StageID: sr.ID, Data: agent.HandoffEndData{To: target}})
		current, in = target, agent.Input{History: history}
	}
}

// transferTool hands the conversation to a specialist.
func transferTool(to string, target *string) agent.Tool {
	return agent.ToolFunc{
		ToolSpec: agent.ToolSpec{
			Name:        "transfer_to_" + strings.NewReplacer("-", "_", " ", "_").Replace(to),
			Description: "Hand the conversation to the " + to + " agent, who is better suited to answer it.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"reason":{"type":"string"}},"additionalProperties":false}`),
		},
		Fn: func(context.Context, json.RawMessage) (string, error) {
			*target = to
			return "", &agent.EndRun{Output: "Transferred to " + to + "."}
		},
	}
}

func withoutSystem(msgs []llm.Message) []llm.Message {
	out := make([]llm.Message, 0, len(msgs))
	for _, m := range msgs {
		if m.Role != llm.RoleSystem {
			out = append(out, m)
		}
	}
	return out
}

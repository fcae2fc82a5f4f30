package workflow

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/llm"
)

// AgentFactory builds a workflow's named agent. The app supplies the model
// client, tools, charts and guards of the session.
type AgentFactory func(name string, def AgentDef) (*agent.Agent, error)

// Engine runs workflows.
type Engine struct {
	NewAgent AgentFactory
	Logger   *slog.Logger
}

// Run runs def for one turn and returns the turn's result with its stages.
// It emits stage and workflow events but no terminal event: wrap it in
// agent.RunTurn.
func (e *Engine) Run(ctx context.Context, em *agent.Emitter, def *Definition, in agent.Input) agent.Result {
	r := &wfRun{e: e, em: em, def: def, in: in, start: time.Now(), log: e.Logger}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	return r.run(ctx)
}

// wfRun is the state of one workflow run.
type wfRun struct {
	e      *Engine
	em     *agent.Emitter
	def    *Definition
	in     agent.Input
	log    *slog.Logger
	start  time.Time
	stages []agent.StageResult
	usage  llm.Usage
	// transcript is the conversation to return: the chat agent's own
	// transcript, or the history plus the final answer.
	transcript []llm.Message
	lastOutput string
	planSteps  []agent.PlanStep
	phase      string
	// stageBudget caps the current pipeline stage's tokens (0: none);
	// stageStartTokens is the run's total when the stage began.
	stageBudget      int
	stageStartTokens int
}

func (r *wfRun) phases() []Phase {
	if r.def.Kind == KindPipeline {
		return r.def.Phases
	}
	st := r.def.Stage
	if st.Name == "" {
		st.Name = string(st.Kind)
	}
	return []Phase{{Name: "", Stages: []Stage{st}}}
}

func (r *wfRun) run(ctx context.Context) agent.Result {
	prevOutcome := agent.Outcome("")
	input := r.in.User
	var failure *agent.Termination
	for _, ph := range r.phases() {
		r.phase = ph.Name
		for i := range ph.Stages {
			st := &ph.Stages[i]
			if ctx.Err() != nil {
				return r.finish(agent.Termination{Kind: agent.TermCancelled})
			}
			if budget := r.def.TokenBudget; budget > 0 && r.usage.TotalTokens >= budget {
				return r.finish(agent.Termination{Kind: agent.TermBudgetExceeded, Limit: int64(budget), Used: int64(r.usage.TotalTokens)})
			}
			stageInput := input
			if st.Input == "user" {
				stageInput = r.in.User
			}
			if reason, skip := st.SkipIf.skip(prevOutcome, stageInput); skip {
				r.skipStage(st, reason)
				prevOutcome = agent.OutcomeSkipped
				continue
			}
			r.stageBudget, r.stageStartTokens = st.TokenBudget, r.usage.TotalTokens
			out := r.runWithPolicy(ctx, st, stageInput)
			prevOutcome = out.outcome
			if out.text != "" && (out.outcome == agent.OutcomeSucceeded || st.OnFailure != "continue") {
				r.lastOutput = out.text // a failed critique keeps its last draft
			}
			if out.outcome == agent.OutcomeCancelled {
				return r.finish(agent.Termination{Kind: agent.TermCancelled})
			}
			if out.outcome == agent.OutcomeFailed {
				if st.OnFailure == "continue" {
					continue
				}
				msg := out.reason
				if r.def.Kind == KindPipeline {
					msg = fmt.Sprintf("stage %q failed: %s", st.Name, out.reason)
				}
				failure = &agent.Termination{Kind: agent.TermFailed, Error: msg}
				return r.finish(*failure)
			}
			input = out.text
			r.lastOutput = out.text
		}
	}
	return r.finish(agent.Termination{Kind: agent.TermCompleted})
}

// stageOutcome is what one policy-wrapped stage produced.
type stageOutcome struct {
	text    string
	outcome agent.Outcome
	reason  string
	term    agent.Termination
}

// runWithPolicy runs a stage up to MaxAttempts times, validating its output.
func (r *wfRun) runWithPolicy(ctx context.Context, st *Stage, input string) stageOutcome {
	attempts := max(st.MaxAttempts, 1)
	var out stageOutcome
	for a := 1; a <= attempts; a++ {
		out = r.exec(ctx, st, input)
		if out.outcome != agent.OutcomeSucceeded {
			if out.outcome == agent.OutcomeCancelled {
				return out
			}
			continue
		}
		if err := st.Validate.check(out.text); err != nil {
			out.outcome, out.reason = agent.OutcomeFailed, "validation: "+err.Error()
			r.markLastFailed(out.reason)
			continue
		}
		return out
	}
	return out
}

// exec runs one stage with its executor.
func (r *wfRun) exec(ctx context.Context, st *Stage, input string) stageOutcome {
	switch st.Kind {
	case KindChat, "":
		return r.execChat(ctx, st, input)
	case KindCritiqueRevise:
		return r.execCritique(ctx, st, input)
	case KindPlanExecute:
		return r.execPlan(ctx, st, input)
	case KindReflection:
		return r.execReflection(ctx, st, input)
	case KindHandoff:
		return r.execHandoff(ctx, st, input)
	}
	return stageOutcome{outcome: agent.OutcomeFailed, reason: "unknown stage kind " + string(st.Kind)}
}

// finish builds the turn result from the stages.
func (r *wfRun) finish(term agent.Termination) agent.Result {
	now := time.Now()
	res := agent.Result{
		Stages:      append([]agent.StageResult(nil), r.stages...),
		Usage:       r.usage,
		StartedAt:   agent.Time{Time: r.start},
		CompletedAt: agent.Time{Time: now},
		DurationMS:  now.Sub(r.start).Milliseconds(),
		Termination: term,
		PlanSteps:   r.planSteps,
	}
	for _, s := range r.stages {
		res.ModelCalls = append(res.ModelCalls, s.Diagnostics.ModelCalls...)
		res.ToolCalls = append(res.ToolCalls, s.Diagnostics.ToolCalls...)
		res.StepsUsed += len(s.Diagnostics.ModelCalls)
		res.ToolCallsUsed += len(s.Diagnostics.ToolCalls)
	}
	if r.transcript != nil {
		res.Messages = r.transcript
	} else {
		res.Messages = append(append([]llm.Message(nil), r.in.History...), llm.Message{Role: llm.RoleUser, Content: r.in.User})
		if r.lastOutput != "" || term.Kind == agent.TermCancelled {
			if text := r.partialOutput(); text != "" {
				res.Messages = append(res.Messages, llm.Message{Role: llm.RoleAssistant, Content: text})
			}
		}
	}
	res.FinalText = agent.FinalText(res.Messages)
	res.BudgetExhausted = term.Kind == agent.TermBudgetExceeded
	switch term.Kind {
	case agent.TermCancelled:
		res.Cancelled, res.Outcome = true, agent.OutcomeCancelled
	case agent.TermFailed:
		res.Outcome, res.Error, res.ErrorSource = agent.OutcomeFailed, term.Error, "workflow"
		if last := r.lastStage(); last != nil && last.Termination.Kind == agent.TermFailed {
			if !strings.Contains(res.Error, last.Termination.Error) {
				res.Error += " (" + last.Termination.Error + ")"
			}
			res.ErrorSource = "llm"
		}
	default:
		res.OK, res.Outcome = true, agent.OutcomeSucceeded
	}
	if !res.Cancelled {
		res.PlanIncompleteReason = planIncomplete(res.PlanSteps)
	}
	return res
}

// partialOutput is the best text so far: the last output, or the partial
// answer of the last stage when it was cancelled.
func (r *wfRun) partialOutput() string {
	if last := r.lastStage(); last != nil && last.Response != nil && last.Outcome == agent.OutcomeCancelled {
		return last.Response.Content
	}
	return r.lastOutput
}

func (r *wfRun) lastStage() *agent.StageResult {
	if len(r.stages) == 0 {
		return nil
	}
	return &r.stages[len(r.stages)-1]
}

func (r *wfRun) markLastFailed(reason string) {
	if last := r.lastStage(); last != nil {
		last.Outcome = agent.OutcomeFailed
		if last.Termination.Kind == agent.TermNaturalCompletion || last.Termination.Kind == agent.TermCompleted {
			last.Termination = agent.Termination{Kind: agent.TermCustom, Reason: reason}
		}
	}
}

func planIncomplete(steps []agent.PlanStep) string {
	var open []string
	for i, s := range steps {
		if s.Status != "done" {
			open = append(open, fmt.Sprintf("%d %q (%s)", i+1, s.Title, s.Status))
		}
	}
	if len(open) == 0 {
		return ""
	}
	return "not done: " + strings.Join(open, ", ")
}

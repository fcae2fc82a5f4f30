package workflow

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
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
// turn.RunTurn.
func (e *Engine) Run(ctx context.Context, em *turn.Emitter, def *Definition, in agent.Input) turn.Result {
	r := &wfRun{e: e, em: em, def: def, in: in, start: time.Now(), log: e.Logger}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	return r.run(ctx)
}

// wfRun is the state of one workflow run.
type wfRun struct {
	e      *Engine
	em     *turn.Emitter
	def    *Definition
	in     agent.Input
	log    *slog.Logger
	start  time.Time
	stages []turn.StageResult
	usage  llm.Usage
	// transcript is the conversation to return when one agent's own
	// transcript is the turn's (chat, handoff); nil: the history, the
	// user's message and the final text.
	transcript []llm.Message
	// final is the output that stands as the turn's answer so far.
	final     output
	planSteps []turn.PlanStep
	phase     string
	// lastStage is set while the workflow's last stage runs, when its
	// policy cannot replace or discard its reply (see Stage.finalKnown).
	lastStage bool
	// execLimit is the last limit an executor itself stopped at (a
	// reflection that never reached its threshold), with how many stage
	// results there were then, to order it against the stages' own limits.
	execLimit *limitAt
	// stageBudget caps the current pipeline stage's tokens (0: none);
	// stageStartTokens is the run's total when the stage began.
	stageBudget      int
	stageStartTokens int
}

// output is a reply that may become the turn's final text: the text, the
// stage whose reply it is, and a note when it is not a clean answer.
type output struct {
	text    string
	stageID string
	note    string
}

type limitAt struct {
	term  turn.Termination
	after int
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

func (r *wfRun) run(ctx context.Context) turn.Result {
	prevOutcome := turn.Outcome("")
	input := r.in.User
	phases := r.phases()
	for pi, ph := range phases {
		r.phase = ph.Name
		for i := range ph.Stages {
			st := &ph.Stages[i]
			if ctx.Err() != nil {
				return r.finish(turn.Termination{Kind: turn.TermCancelled})
			}
			if budget := r.def.TokenBudget; budget > 0 && r.usage.TotalTokens >= budget {
				return r.finish(turn.Termination{Kind: turn.TermBudgetExceeded, Limit: int64(budget), Used: int64(r.usage.TotalTokens)})
			}
			stageInput := input
			if st.Input == "user" {
				stageInput = r.in.User
			}
			if reason, skip := st.SkipIf.skip(prevOutcome, stageInput); skip {
				r.skipStage(st, reason)
				prevOutcome = turn.OutcomeSkipped
				continue
			}
			r.stageBudget, r.stageStartTokens = st.TokenBudget, r.usage.TotalTokens
			r.lastStage = pi == len(phases)-1 && i == len(ph.Stages)-1 && st.finalKnown()
			out := r.runWithPolicy(ctx, st, stageInput)
			prevOutcome = out.outcome
			r.keepOutput(st, out)
			switch out.outcome {
			case turn.OutcomeCancelled:
				return r.finish(turn.Termination{Kind: turn.TermCancelled})
			case turn.OutcomeFailed:
				if st.OnFailure == "continue" {
					continue
				}
				return r.failStage(st, out)
			}
			if out.term.Kind.IsLimit() {
				r.execLimit = &limitAt{term: out.term, after: len(r.stages)}
			}
			input = out.text
		}
	}
	return r.finish(r.completion())
}

// keepOutput makes a stage's output the turn's answer when it stands: a
// succeeded stage's always (a blank one leaves no answer), a failed or
// cancelled stage's when it has text and the run stops there (a failed
// critique keeps its last draft, Stop its partial answer).
func (r *wfRun) keepOutput(st *Stage, out stageOutcome) {
	switch {
	case out.outcome == turn.OutcomeSucceeded:
		r.final = out.output
	case strings.TrimSpace(out.text) == "":
	case out.outcome == turn.OutcomeCancelled || st.OnFailure != "continue":
		r.final = out.output
	}
}

// finalKnown reports whether the stage's policy keeps its one run's reply
// as its output: no second attempt, no validation and no continuing past
// a failure can replace or discard it.
func (st *Stage) finalKnown() bool {
	return st.MaxAttempts <= 1 && st.Validate == nil && st.OnFailure != "continue"
}

// stageOutcome is what one policy-wrapped stage produced.
type stageOutcome struct {
	output
	outcome turn.Outcome
	reason  string
	source  string // the ErrorSource of a failure
	term    turn.Termination
}

// runWithPolicy runs a stage up to MaxAttempts times, validating its output.
func (r *wfRun) runWithPolicy(ctx context.Context, st *Stage, input string) stageOutcome {
	attempts := max(st.MaxAttempts, 1)
	var out stageOutcome
	for a := 1; a <= attempts; a++ {
		out = r.exec(ctx, st, input)
		if out.outcome != turn.OutcomeSucceeded {
			if out.outcome == turn.OutcomeCancelled {
				return out
			}
			continue
		}
		if err := st.Validate.check(out.text); err != nil {
			out.outcome, out.reason, out.source = turn.OutcomeFailed, "validation: "+err.Error(), "workflow"
			// The stage failed its check, not at a limit it may have met.
			out.term = turn.Termination{Kind: turn.TermCustom, Reason: out.reason}
			r.markLastFailed(out.reason)
			continue
		}
		return out
	}
	return out
}

// exec runs one stage with the executor registered for its kind.
func (r *wfRun) exec(ctx context.Context, st *Stage, input string) stageOutcome {
	spec := st.spec()
	if spec == nil {
		return stageOutcome{outcome: turn.OutcomeFailed, reason: "unknown stage kind " + string(st.Kind), source: "config"}
	}
	return spec.run(r, ctx, st, input)
}

// completion is how a turn that ran to its end ended: completed, or at the
// last limit a stage stopped at while still giving its answer. A limit in
// a stage that failed and was retried, replanned or continued past is in
// that stage's result, not in how the turn ended.
func (r *wfRun) completion() turn.Termination {
	term, last := turn.Termination{Kind: turn.TermCompleted}, -1
	for i, s := range r.stages {
		if s.Outcome == turn.OutcomeSucceeded && s.Termination.Kind.IsLimit() {
			term, last = s.Termination, i
			term.Stage = s.Name
		}
	}
	if l := r.execLimit; l != nil && l.after > last {
		term = l.term
	}
	return term
}

// failStage ends the turn on a stage that failed: at the limit that left
// it without an answer, or with the failure's message.
func (r *wfRun) failStage(st *Stage, out stageOutcome) turn.Result {
	msg := out.reason
	if r.def.Kind == KindPipeline {
		msg = fmt.Sprintf("stage %q failed: %s", st.Name, out.reason)
	}
	if out.term.Kind.IsLimit() {
		return r.fail(out.term, msg, "limit")
	}
	if last := r.lastStageResult(); last != nil && last.Termination.Kind == turn.TermFailed && !strings.Contains(msg, last.Termination.Error) {
		msg += " (" + last.Termination.Error + ")"
	}
	return r.fail(turn.Termination{Kind: turn.TermFailed, Error: msg}, msg, cmp.Or(out.source, "workflow"))
}

// finish ends a turn that was not failed: completed (perhaps at a limit)
// or cancelled.
func (r *wfRun) finish(term turn.Termination) turn.Result {
	res := r.result(term)
	if term.Kind == turn.TermCancelled {
		res.Cancelled, res.Outcome = true, turn.OutcomeCancelled
	} else {
		res.OK, res.Outcome = true, turn.OutcomeSucceeded
	}
	return res
}

func (r *wfRun) fail(term turn.Termination, msg, source string) turn.Result {
	res := r.result(term)
	res.Outcome, res.Error, res.ErrorSource = turn.OutcomeFailed, msg, source
	return res
}

// result builds the turn result from the stages. Its final text is the
// output that stands, never a message of the history: a turn that
// produced nothing has none.
func (r *wfRun) result(term turn.Termination) turn.Result {
	now := time.Now()
	res := turn.Result{
		Stages:          append([]turn.StageResult(nil), r.stages...),
		Usage:           r.usage,
		StartedAt:       turn.Time{Time: r.start},
		CompletedAt:     turn.Time{Time: now},
		DurationMS:      now.Sub(r.start).Milliseconds(),
		Termination:     term,
		BudgetExhausted: term.Kind == turn.TermMaxIterations,
		PlanSteps:       r.planSteps,
	}
	for _, s := range r.stages {
		res.ModelCalls = append(res.ModelCalls, s.Diagnostics.ModelCalls...)
		res.ToolCalls = append(res.ToolCalls, s.Diagnostics.ToolCalls...)
		res.StepsUsed += len(s.Diagnostics.ModelCalls)
		res.ToolCallsUsed += len(s.Diagnostics.ToolCalls)
	}
	res.Cost = llm.CallsCost(res.ModelCalls)
	if final := r.final; strings.TrimSpace(final.text) != "" {
		res.FinalText, res.FinalStageID, res.FinalNote = final.text, final.stageID, final.note
	}
	if r.transcript != nil {
		res.Messages = r.transcript
	} else {
		res.Messages = append(append([]llm.Message(nil), r.in.History...), llm.Message{Role: llm.RoleUser, Content: r.in.User, Images: r.in.Images})
		if res.FinalText != "" {
			res.Messages = append(res.Messages, llm.Message{Role: llm.RoleAssistant, Content: res.FinalText})
		}
	}
	if term.Kind != turn.TermCancelled {
		res.PlanIncompleteReason = planIncomplete(res.PlanSteps)
	}
	return res
}

// userInput is the input of a stage that works on text with the
// conversation: the user's images go with it when it is the user's own
// message (a model that sees is shown them where it reads the message).
func (r *wfRun) userInput(text string) agent.Input {
	in := agent.Input{History: r.in.History, User: text}
	if text == r.in.User {
		in.Images = r.in.Images
	}
	return in
}

func (r *wfRun) lastStageResult() *turn.StageResult {
	if len(r.stages) == 0 {
		return nil
	}
	return &r.stages[len(r.stages)-1]
}

func (r *wfRun) markLastFailed(reason string) {
	if last := r.lastStageResult(); last != nil {
		last.Outcome = turn.OutcomeFailed
		if last.Termination.Kind == turn.TermNaturalCompletion || last.Termination.Kind == turn.TermCompleted {
			last.Termination = turn.Termination{Kind: turn.TermCustom, Reason: reason}
		}
	}
}

func planIncomplete(steps []turn.PlanStep) string {
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

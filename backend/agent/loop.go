package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Agent is one configured agent. It is immutable and may run many turns.
type Agent struct {
	Name         string
	Client       llm.Client
	Model        string
	SystemPrompt string
	Tools        *tool.Set
	Limits       turn.Limits
	// Sampling, sent as set (unset: the server's default).
	Temperature     *float32
	TopP            *float32
	MaxTokens       int
	Seed            *int64
	Stop            []string
	ReasoningEffort string
	// Guards check every tool call (default: SideEffectGuard). Approver
	// answers "ask" verdicts (default: deny). Approvals remembers "always".
	Guards    []Guard
	Approver  Approver
	Approvals *Approvals
	// ContextWindow overrides the model's known context size in tokens.
	ContextWindow int
	// WaitNotice is how long a model call may receive nothing before the
	// run says it is waiting (model_waiting: a local server loading a
	// model); default DefaultWaitNotice, negative for never.
	WaitNotice time.Duration
	Logger     *slog.Logger
}

// DefaultWaitNotice is Agent.WaitNotice's default.
const DefaultWaitNotice = 3 * time.Second

// Input is what one run starts from.
type Input struct {
	// History is the conversation so far (without the system prompt).
	History []llm.Message
	// User is the new user message; empty to continue History as is.
	User string
	// Images go with User (for a model that sees).
	Images []llm.Image
	// StageID tags the run's events.
	StageID string
}

// Run runs the loop until the model answers, a limit is hit, or ctx is
// cancelled. It emits progress events but no terminal event: turn.RunTurn does
// that for the whole turn.
func (a *Agent) Run(ctx context.Context, em *turn.Emitter, in Input) turn.Result {
	return a.newLoop(em, in).run(ctx)
}

// loop is the state of one Agent.Run: the tool-calling loop.
type loop struct {
	a        *Agent
	em       *turn.Emitter
	stageID  string
	limits   turn.Limits
	tools    *tool.Set
	log      *slog.Logger
	msgs     []llm.Message
	start    time.Time
	steps    int
	calls    int
	usage    llm.Usage
	mcalls   []llm.CallDiagnostics
	tcalls   []turn.ToolCallDiagnostics
	lastSig  string
	sigCount int
	// answer is the last non-blank reply of this run: its final text.
	// It is kept apart from msgs, which hold the history the run started
	// from and which compression rewrites.
	answer string
	// learnedWindow is the prompt budget learned from a context-length
	// error, 0 when none.
	learnedWindow int

	// plan is the checklist as the run's tools reported it (plan events),
	// kept for the result and for compression. Tools report from their own
	// goroutines, so it has its own lock.
	planMu   sync.Mutex
	plan     []turn.PlanStep
	planSeen bool
}

func (a *Agent) newLoop(em *turn.Emitter, in Input) *loop {
	r := &loop{a: a, em: em, stageID: in.StageID, limits: a.Limits.WithDefaults(), log: a.Logger, start: time.Now(), tools: a.Tools}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	if r.tools == nil {
		r.tools, _ = tool.NewSet() // an agent with no tools
	}
	if a.SystemPrompt != "" {
		r.msgs = append(r.msgs, llm.Message{Role: llm.RoleSystem, Content: a.SystemPrompt})
	}
	for _, m := range in.History {
		if m.Role != llm.RoleSystem {
			r.msgs = append(r.msgs, m)
		}
	}
	if in.User != "" || len(in.Images) > 0 {
		r.msgs = append(r.msgs, llm.Message{Role: llm.RoleUser, Content: in.User, Images: in.Images})
	}
	return r
}

// errTurnTimeout is the cause of the run's context when its wall-clock limit passes.
var errTurnTimeout = errors.New("the turn's time limit passed")

func (r *loop) run(ctx context.Context) turn.Result {
	if r.limits.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, r.limits.Timeout, errTurnTimeout)
		defer cancel()
	}
	var term turn.Termination
	conclude := false
	for {
		if r.steps >= r.limits.MaxSteps {
			term = turn.Termination{Kind: turn.TermMaxIterations, Limit: int64(r.limits.MaxSteps), Used: int64(r.steps)}
			conclude = true
			break
		}
		resp, err := r.modelStep(ctx, r.tools.LLMTools())
		if err != nil {
			return r.endOnError(ctx, resp, err)
		}
		if r.overBudget() {
			term = turn.Termination{Kind: turn.TermBudgetExceeded, Limit: int64(r.limits.TokenBudget), Used: int64(r.usage.TotalTokens)}
			r.refuseCalls(resp.Message.ToolCalls, "not run: the run reached its token budget ("+term.String()+")")
			break
		}
		if len(resp.Message.ToolCalls) == 0 {
			term = turn.Termination{Kind: turn.TermNaturalCompletion}
			break
		}
		stop, err := r.toolStep(ctx, resp.Message.ToolCalls)
		if err != nil {
			return r.endOnError(ctx, llm.Response{}, err)
		}
		if stop != nil {
			term = *stop
			conclude = stop.Kind != turn.TermCompletedAfterToolCall
			break
		}
	}
	if conclude {
		res, ended := r.concludeStep(ctx, &term)
		if ended {
			return res
		}
	}
	return r.finish(term, "", "")
}

// modelStep makes one model call and appends the answer to the transcript.
// A partial answer (Stop, a dropped stream) is appended too, without its
// incomplete tool calls.
func (r *loop) modelStep(ctx context.Context, tools []llm.Tool) (llm.Response, error) {
	r.maybeCompress(ctx, tools, false)
	resp, err := r.call(ctx, tools)
	if llm.KindOf(err) == llm.ErrContextLength && resp.Message.Content == "" && r.maybeCompress(ctx, tools, true) {
		// The server's limit is smaller than we thought: compress and try once more.
		resp, err = r.call(ctx, tools)
	}
	return resp, err
}

func (r *loop) call(ctx context.Context, tools []llm.Tool) (llm.Response, error) {
	r.steps++
	r.em.Emit(turn.Draft{StageID: r.stageID, Data: turn.ThinkStartData{}})
	req := llm.Request{Model: r.a.Model, Messages: r.msgs, Tools: tools, Temperature: r.a.Temperature, TopP: r.a.TopP, MaxTokens: r.a.MaxTokens,
		Seed: r.a.Seed, Stop: r.a.Stop, ReasoningEffort: r.a.ReasoningEffort}
	waiting := r.waitNotice()
	req.OnRetry = func(rt llm.Retry) {
		// The retry says what is happening; "waiting for the model (it
		// may be loading)" would not be true of a server that failed.
		waiting.arrived()
		r.em.Emit(turn.Draft{StageID: r.stageID, Data: turn.ModelRetryData{
			Attempt: rt.Attempt, MaxAttempts: rt.MaxAttempts, Status: rt.Status, Kind: string(rt.Kind), Message: rt.Message, WaitMS: rt.Wait.Milliseconds()}})
	}
	resp, err := r.a.Client.Stream(ctx, req, func(c llm.Chunk) error {
		waiting.arrived()
		if c.Reasoning != "" {
			r.em.Emit(turn.Draft{StageID: r.stageID, Data: turn.ReasoningData{Text: c.Reasoning}})
		}
		if c.Content != "" {
			r.em.Emit(turn.Draft{StageID: r.stageID, Data: turn.TokenData{Text: c.Content}})
		}
		return nil
	})
	waiting.arrived()
	r.usage = r.usage.Add(resp.Usage)
	r.mcalls = append(r.mcalls, resp.Diagnostics)
	r.em.Emit(turn.Draft{StageID: r.stageID, Data: turn.ThinkEndData{PromptTokens: resp.Usage.InputTokens, CompletionTokens: resp.Usage.OutputTokens, Capture: capturedAs(resp, err)}})
	msg := resp.Message
	if strings.TrimSpace(msg.Content) != "" {
		r.answer = msg.Content
	}
	if err != nil {
		msg.ToolCalls = nil
		if msg.Content != "" || msg.Reasoning != "" {
			r.msgs = append(r.msgs, msg)
		}
		return resp, err
	}
	r.msgs = append(r.msgs, msg)
	return resp, nil
}

// capturedAs is how a call was captured, "" when it has no recording:
// only a call that answered is recorded.
func capturedAs(resp llm.Response, err error) string {
	if err != nil {
		return ""
	}
	return resp.Diagnostics.Capture
}

// waitNotice emits model_waiting once if the model call under way
// receives nothing for the agent's WaitNotice. arrived ends the wait: the
// notice, if it fires at all, is emitted before anything of the answer.
func (r *loop) waitNotice() *callWait {
	w := &callWait{}
	d := r.a.WaitNotice
	if d == 0 {
		d = DefaultWaitNotice
	}
	if d < 0 {
		w.done = true
		return w
	}
	start := time.Now()
	w.timer = time.AfterFunc(d, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if !w.done {
			w.done = true
			r.em.Emit(turn.Draft{StageID: r.stageID, Data: turn.ModelWaitingData{WaitedMS: time.Since(start).Milliseconds()}})
		}
	})
	return w
}

// callWait is the wait of one model call for its first chunk.
type callWait struct {
	mu    sync.Mutex
	done  bool
	timer *time.Timer
}

func (w *callWait) arrived() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.done = true
		w.timer.Stop()
	}
}

func (r *loop) overBudget() bool {
	return r.limits.TokenBudget > 0 && r.usage.TotalTokens >= r.limits.TokenBudget
}

// concludeStep asks the model for its best final answer without tools after
// a step, tool-call or stall limit, and marks term Concluded when it gave
// one. ended is true when the run ended here (cancelled or failed) and res
// is its result.
func (r *loop) concludeStep(ctx context.Context, term *turn.Termination) (res turn.Result, ended bool) {
	r.msgs = append(r.msgs, llm.Message{Role: llm.RoleUser, Content: fmt.Sprintf(
		"[Agentdeck] The run reached its limit (%s). Do not call tools. Give your best final answer now from what you have, and say what is left undone.", term)})
	resp, err := r.modelStep(ctx, nil)
	if err != nil {
		if ctx.Err() != nil {
			return r.endOnError(ctx, llm.Response{}, err), true
		}
		// The limit stands; the failed conclusion is logged, not fatal.
		r.log.Warn("concluding call failed", "err", err)
		return turn.Result{}, false
	}
	if n := len(r.msgs); len(resp.Message.ToolCalls) > 0 && n > 0 {
		// Offered no tools, the model called one anyway: the call is never
		// run, so it must not stay in the transcript unanswered.
		if strings.TrimSpace(r.msgs[n-1].Content) == "" {
			r.msgs = r.msgs[:n-1]
		} else {
			r.msgs[n-1].ToolCalls = nil
		}
	}
	term.Concluded = strings.TrimSpace(resp.Message.Content) != ""
	return turn.Result{}, false
}

// endOnError ends the run after a failed model or tool step: Stop,
// timeout, or a real error.
func (r *loop) endOnError(ctx context.Context, _ llm.Response, err error) turn.Result {
	if ctx.Err() != nil {
		if errors.Is(context.Cause(ctx), errTurnTimeout) {
			return r.finish(turn.Termination{Kind: turn.TermTimeout, Limit: r.limits.Timeout.Milliseconds(), Used: time.Since(r.start).Milliseconds()}, "", "")
		}
		return r.finish(turn.Termination{Kind: turn.TermCancelled}, "", "")
	}
	source := "llm"
	var te *toolPanicError
	if errors.As(err, &te) {
		source = "tool"
	}
	msg := err.Error()
	var le *llm.Error
	if errors.As(err, &le) {
		msg = le.Message
	}
	return r.finish(turn.Termination{Kind: turn.TermFailed, Error: msg}, msg, source)
}

// finish builds the immutable turn.Result. Its final text is the run's own:
// never a message of the history it started from. A limit that left no
// answer at all fails the run, keeping the limit as its termination.
func (r *loop) finish(term turn.Termination, errMsg, errSource string) turn.Result {
	now := time.Now()
	res := turn.Result{
		Messages:      append([]llm.Message(nil), r.msgs...),
		StepsUsed:     r.steps,
		ToolCallsUsed: r.calls,
		Error:         errMsg,
		ErrorSource:   errSource,
		Termination:   term,
		Usage:         r.usage,
		Cost:          llm.CallsCost(r.mcalls),
		StartedAt:     turn.Time{Time: r.start},
		CompletedAt:   turn.Time{Time: now},
		DurationMS:    now.Sub(r.start).Milliseconds(),
		ModelCalls:    append([]llm.CallDiagnostics(nil), r.mcalls...),
		ToolCalls:     append([]turn.ToolCallDiagnostics(nil), r.tcalls...),
	}
	res.FinalText = r.answer
	res.BudgetExhausted = term.Kind == turn.TermMaxIterations
	res.PlanSteps = r.planSnapshot()
	switch {
	case term.Kind == turn.TermCancelled:
		res.Cancelled = true
		res.Outcome = turn.OutcomeCancelled
	case term.Kind == turn.TermFailed:
		res.Outcome = turn.OutcomeFailed
	case term.Kind.IsLimit() && res.FinalText == "":
		res.Outcome = turn.OutcomeFailed
		res.Error = "The run " + term.Describe() + " before it gave any answer. Raise the limit, or ask for less at a time."
		res.ErrorSource = "limit"
	default:
		res.OK = true
		res.Outcome = turn.OutcomeSucceeded
	}
	if !res.Cancelled {
		res.PlanIncompleteReason = turn.PlanIncomplete(res.PlanSteps)
	}
	return res
}

// toolEmitter is the emitter a tool call gets (tool.Emit): its events are
// stamped with the run's stage and linked to the call, and plan events move
// the run's plan along.
func (r *loop) toolEmitter(callEventID string) tool.Emitter {
	return func(d turn.Draft) {
		d.StageID, d.ParentID = r.stageID, callEventID
		e := r.em.Emit(d)
		switch e.Type {
		case turn.EventPlanGenerated, turn.EventStepStart, turn.EventStepEnd:
			r.planMu.Lock()
			turn.ApplyPlanEvent(&r.plan, e.Type, e.Data)
			r.planSeen = true
			r.planMu.Unlock()
		}
	}
}

// planSnapshot is the run's plan so far; nil when no tool reported one.
func (r *loop) planSnapshot() []turn.PlanStep {
	r.planMu.Lock()
	defer r.planMu.Unlock()
	if !r.planSeen {
		return nil
	}
	return append([]turn.PlanStep(nil), r.plan...)
}

package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// toolPanicError is a tool that panicked: a bug, which fails the turn.
type toolPanicError struct {
	tool  string
	value any
}

func (e *toolPanicError) Error() string {
	return fmt.Sprintf("the tool %s crashed (%v); the turn was stopped", e.tool, e.value)
}

// pendingCall is one tool call on its way through a tool step.
type pendingCall struct {
	call     llm.ToolCall
	eventID  string
	args     json.RawMessage
	skip     string // set when the call is answered without running
	output   string
	err      error
	started  time.Time
	dur      time.Duration
	finished bool
}

// toolStep runs the tool calls of one model step. Independent calls run
// concurrently; their results go back to the model in call order. It
// returns a turn.Termination when a tool-call or stall limit was reached, and an
// error when the run must end (Stop, timeout, a tool panic).
func (r *loop) toolStep(ctx context.Context, calls []llm.ToolCall) (*turn.Termination, error) {
	var stop *turn.Termination
	pending := make([]*pendingCall, len(calls))
	for i, c := range calls {
		p := &pendingCall{call: c}
		pending[i] = p
		p.eventID = r.em.Emit(turn.Draft{StageID: r.stageID, Data: turn.ToolCallData{CallID: c.ID, Name: c.Name, Args: argsJSON(c.Arguments)}}).ID
		switch {
		case stop != nil:
			p.skip = "not run: the run already reached a limit (" + stop.String() + ")"
		case r.calls >= r.limits.MaxToolCalls:
			stop = &turn.Termination{Kind: turn.TermMaxToolCalls, Limit: int64(r.limits.MaxToolCalls), Used: int64(r.calls)}
			p.skip = fmt.Sprintf("not run: the limit of %d tool calls was reached", r.limits.MaxToolCalls)
		case r.stalled(c):
			stop = &turn.Termination{Kind: turn.TermStallDetected, Threshold: r.limits.StallThreshold, Call: &turn.RepeatedCall{Name: c.Name, Arguments: c.Arguments}}
			p.skip = fmt.Sprintf("not run: this is the same call with the same arguments %d times in a row", r.limits.StallThreshold)
		default:
			r.calls++
			args, err := r.tools.Validate(c.Name, c.Arguments)
			if err != nil {
				p.err = err
				break
			}
			p.args = args
			if refusal := r.guardCall(ctx, p); refusal != "" {
				p.skip, p.args = refusal, nil
			}
		}
	}

	done := make(chan toolOutcome, len(pending))
	running := 0
	for _, p := range pending {
		if p.skip != "" || p.err != nil {
			continue
		}
		running++
		p.started = time.Now()
		go r.execute(ctx, p.call.Name, p.eventID, p.args, done, p)
	}
	for running > 0 {
		select {
		case o := <-done:
			running--
			p := o.call
			p.output, p.err, p.dur, p.finished = r.truncate(o.output), o.err, time.Since(p.started), true
			var end *tool.EndRun
			if errors.As(p.err, &end) {
				p.output, p.err = end.Output, nil
				if stop == nil {
					stop = &turn.Termination{Kind: turn.TermCompletedAfterToolCall}
				}
			}
			r.report(p)
			var pe *toolPanicError
			if asPanic(p.err, &pe) {
				r.abandon(pending, "not run: another tool crashed")
				return nil, pe
			}
		case <-ctx.Done():
			// Tools that ignore cancellation are abandoned, not waited for:
			// Stop must end the turn at once. Their goroutines write only
			// to the buffered channel, never to shared state.
			r.abandon(pending, "cancelled")
			return nil, ctx.Err()
		}
	}
	for _, p := range pending {
		if p.skip != "" || (p.err != nil && p.args == nil) {
			r.report(p)
		}
	}
	r.answerAll(pending)
	return stop, nil
}

// refuseCalls answers calls the run will not make, so the user sees every
// call the model asked for and the transcript stays valid for the next
// model call.
func (r *loop) refuseCalls(calls []llm.ToolCall, reason string) {
	if len(calls) == 0 {
		return
	}
	pending := make([]*pendingCall, len(calls))
	for i, c := range calls {
		pending[i] = &pendingCall{call: c, skip: reason}
		pending[i].eventID = r.em.Emit(turn.Draft{StageID: r.stageID, Data: turn.ToolCallData{CallID: c.ID, Name: c.Name, Args: argsJSON(c.Arguments)}}).ID
		r.report(pending[i])
	}
	r.answerAll(pending)
}

// toolOutcome is what a tool goroutine sends back.
type toolOutcome struct {
	call   *pendingCall // identity only: the goroutine never touches its fields
	output string
	err    error
}

// execute runs one tool, turning a panic into a toolPanicError.
func (r *loop) execute(ctx context.Context, name, eventID string, args json.RawMessage, done chan<- toolOutcome, id *pendingCall) {
	o := toolOutcome{call: id}
	defer func() {
		if v := recover(); v != nil {
			r.log.Error("tool panicked", "tool", name, "panic", v, "stack", string(debug.Stack()))
			o.err = &toolPanicError{tool: name, value: v}
		}
		done <- o
	}()
	t, _ := r.tools.Get(name)
	o.output, o.err = t.Execute(tool.WithCallID(tool.WithEmitter(ctx, r.toolEmitter(eventID)), id.call.ID), args)
}

// abandon reports every call still running as failed with reason, then
// answers all calls in the transcript.
func (r *loop) abandon(pending []*pendingCall, reason string) {
	for _, p := range pending {
		if p.args != nil && !p.finished {
			p.err, p.dur, p.finished = errors.New(reason), time.Since(p.started), true
			r.report(p)
		}
	}
	r.answerAll(pending)
}

// report emits the call's tool_result or tool_error and records its diagnostics.
func (r *loop) report(p *pendingCall) {
	d := turn.ToolCallDiagnostics{CallID: p.call.ID, Name: p.call.Name, Arguments: p.call.Arguments, StartedAt: turn.Time{Time: p.started}, DurationMS: p.dur.Milliseconds()}
	if p.started.IsZero() {
		d.StartedAt = turn.Time{Time: time.Now()}
	}
	switch {
	case p.skip != "":
		d.Error = p.skip
		r.em.Emit(turn.Draft{StageID: r.stageID, ParentID: p.eventID, Data: turn.ToolErrorData{CallID: p.call.ID, Name: p.call.Name, Error: p.skip, NotRun: true}})
	case p.err != nil:
		d.Error = p.err.Error()
		notRun := p.args == nil && p.started.IsZero() // refused by validation
		r.em.Emit(turn.Draft{StageID: r.stageID, ParentID: p.eventID, Data: turn.ToolErrorData{CallID: p.call.ID, Name: p.call.Name, Error: d.Error, DurationMS: d.DurationMS, NotRun: notRun}})
	default:
		d.OK = true
		d.ResultSize = len(p.output)
		r.em.Emit(turn.Draft{StageID: r.stageID, ParentID: p.eventID, Data: turn.ToolResultData{CallID: p.call.ID, Name: p.call.Name, Output: p.output, DurationMS: d.DurationMS}})
	}
	r.tcalls = append(r.tcalls, d)
}

// answerAll appends one tool message per call, in call order, so the
// transcript stays valid for the next model call even after Stop.
func (r *loop) answerAll(pending []*pendingCall) {
	for _, p := range pending {
		content := p.output
		switch {
		case p.skip != "":
			content = p.skip
		case p.err != nil:
			content = "Error: " + p.err.Error()
		}
		r.msgs = append(r.msgs, llm.Message{Role: llm.RoleTool, ToolCallID: p.call.ID, Name: p.call.Name, Content: content})
	}
}

// stalled counts identical consecutive calls and reports whether this one
// reaches the threshold.
func (r *loop) stalled(c llm.ToolCall) bool {
	sig := c.Name + "\x00" + recording.CanonicalArguments(c.Arguments)
	if sig == r.lastSig {
		r.sigCount++
	} else {
		r.lastSig, r.sigCount = sig, 1
	}
	return r.sigCount >= r.limits.StallThreshold
}

func (r *loop) truncate(out string) string {
	max := r.limits.MaxToolOutput
	if len(out) <= max {
		return out
	}
	cut := max
	for cut > 0 && out[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	return out[:cut] + fmt.Sprintf("\n[output truncated: %d bytes, showing the first %d]", len(out), cut)
}

// argsJSON returns the arguments as JSON for the tool_call event: as is
// when valid, else as a JSON string of the raw text.
func argsJSON(raw string) json.RawMessage {
	if json.Valid([]byte(raw)) {
		return json.RawMessage(raw)
	}
	b, _ := json.Marshal(raw)
	return b
}

func asPanic(err error, target **toolPanicError) bool {
	pe, ok := err.(*toolPanicError)
	if ok {
		*target = pe
	}
	return ok
}

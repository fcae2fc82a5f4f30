package tool

import (
	"context"

	"github.com/agentdeck/agentdeck/backend/turn"
)

// EndRun, returned by a tool, ends the run right after the tool's result
// (Output) with completed_early_after_tool_call: a handoff to another agent.
type EndRun struct{ Output string }

func (e *EndRun) Error() string { return "end of run: " + e.Output }

// Emitter reports an event on behalf of a running tool: the agent gives
// each call one, which stamps the event with the call's stage and links it
// to the call (parent).
type Emitter func(turn.Draft)

type emitterKey struct{}

// WithEmitter returns ctx carrying the emitter of one tool call.
func WithEmitter(ctx context.Context, emit Emitter) context.Context {
	return context.WithValue(ctx, emitterKey{}, emit)
}

// Emit reports an event from inside a tool's Execute (a plan, a chart).
// Outside a run (a tool called directly, in a test) it does nothing.
func Emit(ctx context.Context, d turn.Draft) {
	if emit, ok := ctx.Value(emitterKey{}).(Emitter); ok && emit != nil {
		emit(d)
	}
}

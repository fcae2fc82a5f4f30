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

type callIDKey struct{}

// WithCallID returns ctx carrying the id of the model's tool call a tool
// runs for: a stand-in that answers some calls of a run differently (a
// re-run from a step) tells them apart by it.
func WithCallID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, callIDKey{}, id)
}

// CallID is the id WithCallID put in ctx, "" outside a run.
func CallID(ctx context.Context) string {
	id, _ := ctx.Value(callIDKey{}).(string)
	return id
}

// Emit reports an event from inside a tool's Execute (a plan, a chart).
// Outside a run (a tool called directly, in a test) it does nothing.
func Emit(ctx context.Context, d turn.Draft) {
	if emit, ok := ctx.Value(emitterKey{}).(Emitter); ok && emit != nil {
		emit(d)
	}
}

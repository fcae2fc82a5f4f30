// Package agent runs one agent turn: it calls the model, runs the tools the
// model asks for, feeds the results back, and repeats until the model
// answers, a limit is reached, or the caller cancels (Stop).
//
// It emits its steps as turn.Events through a turn.Emitter (see package
// turn for the envelope and its ordering rules). Tools are tool.Tools, any
// of which may report events while it runs (tool.Emit): the agent stamps
// them with the run's stage and links them to the call, and folds plan
// events into the run's plan.
//
// # The loop
//
// Model step → tool calls (run concurrently; results go back to the model in
// call order) → repeat. Limits (turn.Limits) end the turn with a typed Termination: max
// model steps, max tool calls, token budget, wall-clock timeout, and stall
// detection. Reaching a step, tool-call or stall limit still produces the
// best answer available with one last model call without tools; a token
// budget or a timeout ends at once.
package agent

// Package agent runs one agent turn: it calls the model, runs the tools the
// model asks for, feeds the results back, and repeats until the model
// answers, a limit is reached, or the caller cancels (Stop).
//
// # Events
//
// Every step is reported as an Event. The same events drive the UI, are
// stored, and are printed by the CLI. An Emitter stamps each event with its
// id, seq (strictly increasing within a turn, from 1) and time, and hands it
// to every Sink in order.
//
// Ordering and back-pressure rules:
//
//   - Emit is safe for concurrent use (tools run in parallel), and the order
//     in which sinks see events is the seq order. Emit holds a lock while it
//     calls the sinks, so a sink never sees two events at once.
//   - Sinks are called synchronously on the emitting goroutine and must not
//     block for long. A sink that talks to something slow (the UI, a disk)
//     buffers: the store sink batches writes; the UI bridge coalesces
//     consecutive tokens into one text run, so a slow UI costs memory
//     proportional to the text, never a dropped or reordered event, and
//     never a stalled model stream.
//   - A sink's error is logged and does not stop the turn or the other sinks:
//     the model stream is the user's work and is not thrown away because
//     one consumer failed.
//   - A turn ends with exactly one terminal event (final_answer, cancelled or
//     error) followed by turn_completed. Runner guarantees this even when a
//     tool or the runner itself panics.
//
// # The loop
//
// Model step → tool calls (run concurrently; results go back to the model in
// call order) → repeat. Limits end the turn with a typed Termination: max
// model steps, max tool calls, token budget, wall-clock timeout, and stall
// detection. Reaching a step, tool-call or stall limit still produces the
// best answer available with one last model call without tools; a token
// budget or a timeout ends at once.
package agent

// Package turn holds the domain of Agentdeck: what a turn reports and
// what it ends with, independent of how it runs. It depends only on llm.
//
//   - Event is the one envelope for everything a turn reports, with its
//     type, phase and checkpoint, and one payload type per event type
//     (stage_start's included). The same events drive the UI, are stored,
//     and are printed by the CLI.
//   - Result is what one run produced; StageResult is one stage of a
//     workflow. Outcome (succeeded, failed, skipped, cancelled) is kept
//     apart from Termination, the detailed cause with its numbers.
//   - Limits bound a run; Answer is a person's answer to an approval.
//
// # Events
//
// An Emitter stamps each event with its id, seq (strictly increasing
// within a turn, from 1) and time, and hands it to every Sink in order.
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
//     error) followed by turn_completed. RunTurn guarantees this even when a
//     tool or the code it runs panics.
package turn

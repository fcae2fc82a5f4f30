// Package turn holds the domain of Agentdeck: what a turn reports and
// what it ends with, independent of how it runs. It depends only on llm.
//
//   - Event is the one envelope for everything a turn reports, with its
//     type, phase and checkpoint, and one payload type per event type
//     (eventtype.go). The same events drive the UI, are stored, and are
//     printed by the CLI.
//   - Result is what one run produced; StageResult is one stage of a
//     workflow. Outcome (succeeded, failed, skipped, cancelled) is kept
//     apart from Termination, the detailed cause with its numbers.
//   - Limits bound a run; Answer is a person's answer to an approval.
//
// # Events
//
// Each event type owns its payload: every payload type has an EventType
// method naming its type, and an Emitter takes the payload alone
// (em.Emit(Draft{StageID: id, Data: TokenData{Text: t}})) and reads the
// type from it. So a payload of the wrong shape for its type cannot
// compile: there is no type to get wrong, and a value that is no Payload
// does not fit Draft.Data. Payloads lists every payload type; a test
// checks that each EventType constant has exactly one and a phase in the
// kinds table, and typegen makes the TypeScript Event a union
// discriminated by type from the same methods, so the UI narrows by
// e.type with no casts. A Draft must name its payload: one without has no
// type, and the Emitter logs and drops it (a test fails on any Draft
// literal in the module without Data).
//
// To add an event type, three files: eventtype.go (its constant, its
// kinds entry, its payload type with its EventType method and its place
// in Payloads), the code that emits it, and its case in the UI's reducer
// (frontend/src/lib/stores/reducer.ts); then make types.
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

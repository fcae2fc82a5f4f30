// Package timeline reads a stored turn as its steps: the points a re-run
// may start from (time travel, docs/RECORDINGS.md#time-travel).
//
// A turn's steps are its start, each stage boundary, each model call and
// each tool result, in the order they happened. Each has an id that stays
// the same for as long as the turn is stored, because it is derived from
// the turn's event log alone, which is append-only and never rewritten:
//
//   - "start": before anything ran (edit the message or the system prompt);
//   - "stageN": the N-th stage_start (from 1);
//   - "callN": the N-th model call (think_start, from 1);
//   - "toolN": the N-th tool result or tool error (from 1).
//
// The rules:
//
//   - A step never carries state of its own. What a re-run needs at it (the
//     model calls before it, which are served from the turn's recordings in
//     call order, and the tool results before it) is counted from the
//     events: RecordedCalls is how many recorded model calls precede the
//     step. A call that failed has no recording and does not count; a
//     summary that compression asked for does (CompressedData.Summarized).
//   - A re-run's steps after its live_from event are Live, and so is the
//     call under way when it comes (live_from follows that call's
//     think_start).
//   - Compare ("What changed") reads the same way: a turn's model calls
//     (their streamed replies) and tool results (output or error) from a
//     step on, paired by kind and tool name in order (a call only one
//     side made is a gap row), each pair diffed word by word; tokens, cost
//     and time come from the stages' diagnostics, matched per stage in
//     call order. A re-run's steps before its live_from are Recorded.
//   - The package reads; it never calls a model or the database. The store
//     gives it events, the runner acts on what it says.
package timeline

// Package traces exports turns as OpenTelemetry traces that follow the
// GenAI semantic conventions, pinned to version 1.41.0 (the package
// go.opentelemetry.io/otel/semconv/v1.41.0 of otel v1.47.0: the newest
// there that still carries the gen_ai.* names; later ones moved them
// out). The conventions are marked Development; docs/OBSERVABILITY.md
// lists every attribute emitted and why.
//
// Rules:
//   - A trace is built from the stored record only (Build, from the
//     export.Turn the store reads for an export), so a turn sent live as
//     it ends and the same turn sent later by `agentdeck sessions export
//     --format otlp` are the same spans, with the same ids (the trace id
//     is the turn's UUID; span ids hash the turn and the step) and the
//     recorded times.
//   - The tree: one invoke_agent span per turn; under it a span per
//     workflow stage; under each stage a chat span per model call and an
//     execute_tool span per tool call.
//   - Message contents (gen_ai.input.messages, gen_ai.output.messages,
//     tool arguments and results) are added only with Options.Content.
//     No key is ever in a span: the record holds none.
//   - The live Exporter never slows or fails a turn: TurnEnded queues
//     and returns; a full queue or a dead collector drops spans, counted
//     in Status, logged once until the collector answers again.
//   - Headers (which carry keys) come from the keyring (HeaderRef) or
//     OTEL_EXPORTER_OTLP_HEADERS, never from a flag; they are never
//     logged, stored in the database or written to a file.
package traces

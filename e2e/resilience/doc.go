// Package resilience holds no code: it is an end-to-end test suite that
// drives real turns (setup.Build over a SQLite file in a temp dir,
// runner.Start against the scripted llmtest server) through the failures a
// desktop app meets in the field, and checks that each one ends in a stored
// turn with a clear message and leaves the engine working.
//
// What the suite covers:
//
//   - Provider faults (faults_test.go), one table row each: 429 with a small
//     Retry-After (recovered, and exhausted), 500 on every attempt, 503 then
//     success, an HTML page from a proxy (200 and 502), the connection reset
//     (TCP RST) before the response on one and on every attempt, the
//     connection cut after the first chunk, a reset in the middle of the
//     stream, a malformed chunk first and mid-stream, a stream that ends
//     without [DONE] or finish_reason, one with finish_reason but no
//     [DONE], a server that accepts and never answers (through the turn with
//     a response-header timeout on the engine's HTTP client, and at the llm
//     layer with Config.IdleTimeout, which the runner cannot set), and a
//     single 10 MB content delta. Every row checks the stored turn's state,
//     the error event's message, the number of attempts, and that a second
//     turn in the same session then succeeds.
//
//   - Concurrency (concurrency_test.go): eight sessions streaming at once
//     against one server, under -race, with no cross-talk between their
//     events, texts or stored rows, and goroutines back to the baseline
//     (goleak) afterwards.
//
//   - Hostile model output (hostile_test.go): tool arguments that are not
//     JSON or have the wrong types, an unknown tool, charts that load URLs,
//     query_data SQL that tries ATTACH, DELETE and friends, and write_file
//     path traversal with every approval granted. Each must come back to the
//     model as a tool error, change nothing, and let the turn finish.
//
//   - Soak (soak_test.go): many short turns on one engine, memory sampled
//     after a full GC. The normal run does 100 turns with no memory
//     assertion; the full run (10,000 turns, sampled every 500; the Go heap
//     in use and, without -race, the resident set must grow less than 10%
//     after turn 1,000) needs -soak or AGENTDECK_SOAK=1, and takes about
//     70 s without -race:
//
//     AGENTDECK_SOAK=1 go test -count=1 -run TestSoak -timeout 60m ./e2e/resilience/
//
// Known gaps, reported rather than worked around: the runner cannot set
// llm.Config.IdleTimeout or the retry settings, so a silent provider holds
// a turn for five minutes (the idle case is tested at the llm layer, and
// through a turn with a response-header timeout on the engine's HTTP
// client); and TestFailedTurnShowsTheMessageOnce is skipped until a failed
// turn's error message stops repeating the model error.
//
// Rules: tests assert outcomes and the order of events, never durations,
// except that every wait is bounded so a hang fails instead of blocking
// `make test`; the package stays under about a minute with -race.
// Retries use the client's defaults (3 retries, 500 ms initial backoff),
// because the runner exposes no way to change them.
package resilience

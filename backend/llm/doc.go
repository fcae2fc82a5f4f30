// Package llm holds what every part of Agentdeck says about a model call:
// the Client interface, the request, chunk and response types, typed
// errors, usage, and the diagnostics kept with each call (its price, cost
// and context window, and the configured Provider it went to).
//
// The work is done in subpackages, each with one job:
//
//   - openai: the client of OpenAI-compatible servers and their wire format
//     (streaming, reasoning dialects, the content filter, retries).
//   - recording: record/replay middleware and the capture key.
//   - catalog: the known kinds of server (presets), context windows, prices
//     and model lists.
//   - capturefile: recordings kept as a folder of JSON files.
//   - llmtest: the scripted OpenAI-compatible server every test uses.
//
// Rules:
//
//   - This package imports none of its subpackages (nor any other package of
//     Agentdeck): it is the vocabulary they share, so they need not import
//     each other for a type (the catalog imports openai only to name the
//     dialects its presets speak). The engine (agent, workflow) takes a Client; making
//     one (openai.NewClient, wrapped by recording.WithCapture and
//     catalog.WithPrice) is the runner's and setup's job.
//   - Client is the only interface the engine uses. Stream delivers each
//     delta to a callback in order, on the caller's goroutine; returning an
//     error from the callback stops the stream and Stream returns that error.
//   - Errors are *Error with a Kind a program can branch on and a message a
//     person can act on. API keys never appear in errors, logs or captures.
//   - Usage is what the server reported in its final chunk; when a server
//     sends none it is estimated (EstimateTokens) and marked Estimated.
//   - Types that reach the UI (Provider, Price, Window, CallDiagnostics…)
//     are generated into frontend/src/lib/generated.ts: their JSON names are
//     a contract.
package llm

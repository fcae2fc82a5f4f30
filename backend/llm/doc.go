// Package llm is Agentdeck's one way to talk to a model: an OpenAI-compatible
// chat-completions client with streaming, typed errors, retries, per-call
// diagnostics and a record/replay middleware.
//
// Rules:
//
//   - Client is the only interface the engine uses. Stream delivers each
//     delta to a callback in order, on the caller's goroutine; returning an
//     error from the callback stops the stream and Stream returns that error.
//   - Cancelling ctx closes the HTTP connection at once, so a local server
//     sees the disconnect and stops generating.
//   - Retries (429, 5xx, connection failures) happen only before the first
//     delta has been delivered; once text has streamed, an error is returned
//     as is, because a retry would duplicate text.
//   - Errors are *Error with a Kind a program can branch on and a message a
//     person can act on. API keys never appear in errors, logs or captures.
//   - Usage is what the server reported in its final chunk; when a server
//     sends none it is estimated and marked Estimated.
package llm

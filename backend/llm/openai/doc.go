// Package openai is a Client for any OpenAI-compatible chat-completions
// server (OpenAI, Ollama, LM Studio, llama.cpp, vLLM, OpenRouter, …), with
// its own wire format (wire.go, wire_fast.go, stream.go): one decode per
// chunk, every reasoning dialect read, reasoning sent back the way each
// server wants (ReasoningEcho, Prefix), a JSON body read as if streamed.
// The content filter (textfilter.go, textcalls.go) takes <think> blocks and
// tool calls written as text out of the answer. Test streams recorded from
// real servers are in testdata/streams (SOURCES.md says where each came
// from).
//
// Rules:
//
//   - It imports only package llm. Which dialect a provider speaks is the
//     catalog's to say (catalog.EchoFor, catalog.PrefixFor); this package
//     only knows how to speak each one.
//   - Stream delivers each delta to the callback in order, on the caller's
//     goroutine; returning an error from the callback stops the stream.
//   - Cancelling ctx closes the HTTP connection at once, so a local server
//     sees the disconnect and stops generating.
//   - Retries (429, 5xx, connection failures) happen only before the first
//     delta has been delivered; once text has streamed, an error is returned
//     as is, because a retry would duplicate text.
//   - Every failure is an *llm.Error with a Kind and a message a person can
//     act on; the API key never appears in it.
package openai

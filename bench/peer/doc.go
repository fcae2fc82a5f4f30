// Package peer measures Agentdeck's agent engine against a peer framework,
// github.com/tmc/langchaingo, on the same tool-calling turn served by the
// same scripted server. It is its own Go module so that langchaingo never
// becomes a dependency of the app; `make bench` runs it.
//
// The langchaingo side is a loop over llms.GenerateContent with
// llms.WithTools and a streaming func, feeding tool results back as tool
// messages: what langchaingo's OpenAI functions agent does inside its
// executor, without the executor's prompt templates and output parsers,
// which do not stream and are built for the older function-call API.
package peer

// Package peer measures Agentdeck's agent engine against two peer
// frameworks, github.com/tmc/langchaingo and github.com/cloudwego/eino, on
// the same tool-calling turn served by the same scripted server. It is its
// own Go module so that the peers never become dependencies of the app;
// `make bench` runs it.
//
// The langchaingo side is a loop over llms.GenerateContent with
// llms.WithTools and a streaming func, feeding tool results back as tool
// messages: what langchaingo's OpenAI functions agent does inside its
// executor, without the executor's prompt templates and output parsers,
// which do not stream and are built for the older function-call API.
//
// The eino side is eino's own agent: the ReAct agent of flow/agent/react
// over eino-ext's OpenAI chat model, run with Agent.Stream, every step's
// tokens read through a chat model callback. Its stream tool-call checker
// reads a step's whole message, because the script streams text before
// the tool calls (eino's default decides on the first chunk).
//
// TestPeerToolTurn checks that each side performs the whole turn (the
// tool called with the script's arguments, its results sent back, the
// final answer received); BenchmarkPeerToolTurn measures them.
package peer

// Package mcp connects the agent to Model Context Protocol servers, using the
// official go-sdk, and offers their tools as agent.Tools.
//
// # Configuration
//
// LoadConfig reads the JSON file other MCP clients use:
// {"mcpServers": {"name": {"command", "args", "env", "cwd"} | {"url", "headers"}, "disabled"}}.
// A missing or empty file is no servers. A mistake is reported with
// file:line:column and what was expected, or with the server's name; unknown
// keys are ignored. A server with a "command" is a stdio server, one with a
// "url" a streamable HTTP server ("type" may say so too); the legacy HTTP+SSE
// transport is not supported. A relative "cwd" is taken from the file's
// directory; "env" is added to our own environment.
//
// # Tools
//
//   - Each tool is named "<server>__<tool>", with characters outside
//     [a-zA-Z0-9_-] turned into '_'. A name longer than 64 characters, or
//     one that two servers' tools would share after that, is cut and ends
//     with a short hash of the original pair, so it is stable and unique.
//   - The description starts with "[server] ". The input schema is passed
//     through ({"type":"object"} when there is none); a tool whose schema the
//     agent could not compile is left out and logged, so one bad tool cannot
//     break the toolset.
//   - SideEffects is true unless the tool's annotations say readOnlyHint.
//   - Results: text parts joined by newlines; images, audio and binary
//     resources summarised ("[image 12 KB]"); the structured result as JSON
//     when there is nothing else. A result with isError becomes a *ToolError
//     carrying the tool's text, which the agent hands back to the model.
//
// # Failures
//
// Connect never fails as a whole: each server gets a ServerStatus, and one
// that cannot start, exits, or does not answer within StartTimeout is
// stopped and reported, while the others connect. During a call:
//
//   - the caller's context ends (Stop): the call returns ctx.Err(); the
//     server is fine and stays connected;
//   - the server refuses the call (a JSON-RPC error): an error naming it;
//     the server stays connected;
//   - the server exits, its HTTP endpoint cannot be reached, or the call
//     gets no answer within CallTimeout: the server is marked lost, stopped,
//     and every call on it fails with a message saying what happened. Its
//     status keeps the reason. It stays lost until the next Connect; nothing
//     restarts on its own.
//
// # Ownership and concurrency
//
// The Manager owns the sessions and the stdio processes. Each stdio server
// runs in its own process group, so stopping it stops what it started too.
// Close (and a new Connect) cancels calls in flight, closes each server's
// stdin, gives it 2s to exit, then SIGTERM, 2s more, then SIGKILL to the
// group; it reaps every child and returns only once no goroutine of the
// Manager or the SDK is left. All methods are safe for concurrent use;
// Connect and Close run one at a time, and Close aborts a Connect in
// progress. Tools hold on to their server: after it is lost, or the Manager
// is closed, they fail at once.
package mcp

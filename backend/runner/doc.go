// Package runner runs turns end to end: it resolves a session's model and
// workflow, builds the agents with their tools, records the turn in the
// store, streams its events to the sinks it is given, and lets a turn be
// stopped by id. The desktop app, the browser mode and the CLI all run
// turns through it.
//
// Rules:
//
//   - A turn's row is committed as running before the model is called, and
//     its final state is committed before the terminal event is delivered,
//     so whoever sees the end can read the stored turn.
//   - Turns in different sessions run concurrently, each with its own
//     cancel. A session runs one turn at a time, or the columns of one
//     side-by-side group together (group.go): any other message to a
//     session with a running turn, a second group included, is refused
//     with a Conflict error.
//   - StartGroup checks every target, the images, the session and the
//     attached files before it stores anything, so a send that cannot run
//     every column leaves no group and no turn. Each column is a turn like
//     any other, with its own events, ending and Stop; StopGroup (Stop
//     all) cancels every running column of the group at once.
//   - Stop cancels the turn's context: the model stream closes, tools see
//     the cancellation, the partial answer is stored and the turn ends
//     cancelled.
//   - API keys are read from the secret store (or the caller's environment)
//     at the moment a turn starts, and never written anywhere else.
//   - The runner reaches the database through Store (store.go): the few
//     store methods it uses, in small interfaces by what they are for.
//   - The built-in tools are one table (builtins.go): what an agent may
//     name, how each is made, and the order the model is offered them;
//     docs/WORKFLOWS.md's list is made from it.
//   - A turn's settings resolve once, when it starts (settings.go): app
//     defaults → project → session → the turn's own (the request's
//     Settings, then its model, provider, workflow and limits). An agent
//     takes each sampling value from its workflow file when the file sets
//     it, else from the turn; the session's instructions follow its own
//     system prompt when the workflow says it receives them. The resolved
//     settings are stored with the turn (runSpec) and never re-read: a
//     replay runs with the original's.
//   - When the settings name MCP servers, only those servers' tools are
//     offered (nil: every configured server's).
//   - Attached files are sorted before the turn exists (tools.go): a
//     document (extract.Detect) joins the session's knowledge, any other
//     file becomes a table. One that fails refuses the message and leaves
//     nothing, not even the documents attached with it.
//   - search_knowledge is offered only when the session or its project has
//     documents (in a replay: when the original called it), so turns
//     without documents keep the tool list their recordings were made
//     with. Citation numbers are one per turn (turnTools.numbers).
//   - run_code is offered when the runner has a sandbox (Config.Sandbox),
//     with or without tables: a computation SQL cannot express needs no
//     data. Its limits are kept in the turn's run spec; a replay or a
//     re-run offers it only when the original was offered it, under the
//     original's limits, so old turns keep their tool list and a script
//     runs as it did. It is read-only and deterministic: a replay runs it
//     again and reports a different result.
//   - In a replay every session tool and every Recorded built-in stands
//     behind its replay stand-in: a Recorded one gives back the original's
//     result and reports its events again (tool.Replayer). A model call
//     that failed has no recording: a replay fails it again in its place
//     (rerunfailed.go), so the calls after it get their own recordings.
//   - A re-run from a step (rerun.go, docs/RECORDINGS.md#time-travel)
//     serves the calls before the step from the original's recordings and
//     every tool call of them from the original's results, read-only ones
//     too; a step after the edit never comes from a recording. Its run
//     spec (runSpec.Rerun, chained through Base for a re-run of a re-run)
//     shapes a later replay's requests as the re-run's were.
package runner

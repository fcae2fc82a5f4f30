// Package workflow runs a turn as a workflow: one agent with tools (chat),
// or agents chained into stages (critique-revise, reflection and the other
// kinds, each an executor in a file of its own, registered in executor.go),
// or phases of such stages (pipeline), each with a policy.
//
// Rules:
//
//   - Every agent invocation is a stage with its own id, a stage_start and
//     a stage_end event, and a turn.StageResult with its outcome,
//     termination and diagnostics. Results are returned in the order the
//     stages ran.
//   - Outcome and termination are kept apart: a stage whose check accepts
//     its result after max_iterations_reached is succeeded with that
//     termination.
//   - A turn's final text is the reply of the stage whose output stands
//     (Result.FinalStageID names it), never a message of the history and
//     never blank; a turn that produced nothing has none. stage_start says
//     final when that stage is known before it runs.
//   - A turn that completes ends at the last limit a stage stopped at while
//     still answering (the stage named in Termination.Stage), else
//     completed; a limit that left no answer fails it with that limit.
//   - Stop (ctx cancelled) ends the current stage as cancelled; later stages
//     do not start; the partial output is kept.
//   - Tools of one model step run concurrently: a handoff's transfer tools
//     only record that they ran, under a lock, and the first transfer in
//     the model's call order wins.
//   - Workflow files are parsed by Parse and LoadDir; a bad file is a
//     Problem with file, line and what was expected, never a failure to
//     start the app.
//   - Each executor is one spec (executor.go), declared in its own file
//     next to its run function (chat.go, critique.go, plan.go,
//     reflection.go, handoff.go) and registered in that file's init: its
//     kind, roles (required, or defaulting to another), numbers (default
//     and range) and blocks. The engine dispatches through the registry;
//     loading, Normalize, Validate, "did you mean", the JSON Schema and
//     the kinds table of docs/WORKFLOWS.md are made from the specs, and a
//     setting's default is applied in one place (Stage.role, Stage.number).
//     The registry is not changed after init but by tests (register
//     returns its undo). Adding an executor is its file and its test, then
//     go generate ./backend/workflow to rewrite workflow.schema.json and
//     the docs table, which tests keep equal to what the specs make.
package workflow

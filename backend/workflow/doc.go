// Package workflow runs a turn as a workflow: one agent with tools (chat),
// or agents chained into stages (critique-revise, plan-execute, reflection,
// handoff), or phases of such stages (pipeline), each with a policy.
//
// Rules:
//
//   - Every agent invocation is a stage with its own id, a stage_start and
//     a stage_end event, and an agent.StageResult with its outcome,
//     termination and diagnostics. Results are returned in the order the
//     stages ran.
//   - Outcome and termination are kept apart: a stage whose check accepts
//     its result after max_iterations_reached is succeeded with that
//     termination.
//   - Stop (ctx cancelled) ends the current stage as cancelled; later stages
//     do not start; the partial output is kept.
//   - Workflow files are parsed by Parse and LoadDir; a bad file is a
//     Problem with file, line and what was expected, never a failure to
//     start the app.
package workflow

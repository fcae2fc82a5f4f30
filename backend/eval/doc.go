// Package eval runs evaluation suites: cases (a prompt and what its answer
// must satisfy) run as real turns across a matrix of models, repeated for
// stability, each result stored with its turn so it can be opened,
// replayed and compared like any other.
//
// Rules:
//   - A suite is a file (YAML, or JSON, with a JSON Schema); every problem
//     in it is reported with its file:line:col, and a suite with problems
//     runs nothing.
//   - A case's assertions read only what its turn stored (Observation):
//     what a reviewer opening the turn sees is what was judged.
//   - Assertions that need no model (all but judge) are pure functions of
//     the Observation; judge asks a critic model through the Judge
//     interface, and its verdict is read in the critique format
//     (workflow.ParseVerdict).
//   - A cell is one case × model × repeat of a run: the unit that runs,
//     is stored (store.EvalResult, a row of eval_results) and is shown
//     (a cell of the window's matrix). Running one cell is one function
//     with a small input and output (CellRunner.RunCell: a Cell's ids
//     and the run read once, LoadRun, in; result ids and scores out),
//     idempotent: a cell already finished in its run returns its stored
//     result.
//   - A case may start from a recorded turn's step instead of a prompt
//     (Case.From: turn, step, one edit). Its form is checked when the
//     suite is read; the turn, which only the database holds, when the
//     cell runs, as an error of that case. The cell runs in an evaluation
//     session copied from the turn's branch (store.EvalCopy), as a re-run
//     of the copy (runner.From): nothing before the step asks a model or
//     runs a tool with a side effect, and the user's session is left as
//     it was.
package eval

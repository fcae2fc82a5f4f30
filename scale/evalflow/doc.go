// Package evalflow runs an evaluation run's cells as a Temporal workflow:
// each case × model × repeat is an activity that runs eval's one-case
// function on whichever worker takes it.
//
// Rules:
//   - Workflow code is deterministic: no goroutines, clocks, randomness or
//     I/O in SuiteRun or Batch; every side effect is an activity.
//   - The workflow carries ids and scores, never transcripts or recordings:
//     a cell's turn stays in the database of the worker that ran it.
//   - A run of more than BatchSize cells fans out in child workflows, one
//     per batch, so no history grows past Temporal's limits.
//   - An activity is retried by policy, so running a cell is idempotent
//     (eval.CellRunner.RunCell returns a cell that already ended as stored).
//     Errors a retry cannot mend (a bad suite, a bad request, an unknown
//     model) are non-retryable; a 429, a 5xx or a dead server is retried,
//     after the server's Retry-After when it sent one.
//   - A running cell heartbeats: a dead worker is noticed within
//     HeartbeatTimeout, and Stop (cancelling the workflow) reaches the
//     cell's context through the heartbeat and stops its turn.
package evalflow

// Package sandbox runs a model's script: run_code, Starlark
// (go.starlark.net) in the process, deterministic and hermetic.
//
// # The dialect
//
// Starlark, a small dialect of Python, with these syntax options on,
// because a model writes Python: While (while loops), TopLevelControl
// (for, if and while at the top level), GlobalReassign (a global assigned
// twice), Recursion, and Set (set()). What a script may use is
// Starlark's built-ins (no I/O among them: print is captured), plus:
//
//   - math and json (go.starlark.net/lib/math and lib/json) as
//     globals (str, repr, print and json.encode are guarded, see Memory); there is no load(): a load statement fails with an error
//     saying so, and there is no file, network, clock or random source:
//     open, time, os are undefined names (an error at their line:col).
//   - sum(iterable, start=0), as in Python.
//   - range as Starlark's, except that a range longer than the steps
//     limit, or than the memory limit holds (16 bytes an element), is
//     refused as hitting that limit (see Memory).
//   - tables, the session's tables, read-only: tables["sales"] is a
//     table, read from Tables on first use and kept for the run; len(t)
//     is its row count; t[i] and `for row in t` give rows as frozen
//     dicts by column name (t.rows is the same sequence); t.columns is a
//     tuple of the column names; t.column("amount") is a frozen list of
//     one column's values. Cells are int, float, string, bool, bytes or
//     None. tables.keys() lists the names; "x" in tables and tables.get
//     work as on a dict. Nothing a script does changes a table.
//
// A script returns a value by setting the global result. Its repr is the
// run's Value. A dict with "mark" and "$schema" or "encoding" is a
// Vega-Lite spec: it is checked by chart.Validator and, if valid, is the
// run's Chart (run_code emits a chart event with it); an invalid spec is
// an error of the script.
//
// # Limits
//
// Each is a field of Limits (zero: DefaultLimits), and each, when hit,
// stops the script with a CodeError whose Limit names it:
//
//   - steps: Starlark's execution steps (Thread.SetMaxExecutionSteps);
//     sum counts a step per element.
//   - output: bytes print may write; the output is cut there.
//   - time: wall time, from a context deadline; the watchdog cancels the
//     thread (Thread.Cancel), which stops at its next step.
//   - memory: see below.
//
// Stop (ctx cancelled) cancels the thread the same way, at once, and Run
// returns an apperr.Cancelled error instead of a result. A built-in in
// the middle of a call (sorted of a long list) finishes that call first.
//
// # Memory
//
// Starlark counts steps, not bytes, and Go cannot count the bytes one
// goroutine allocates. The memory limit is therefore a watchdog on the
// process's Go heap (runtime/metrics, /memory/classes/heap/objects:bytes),
// read every millisecond while the script runs: when the heap has grown
// by more than the limit since the script began, a collection
// (runtime.GC) confirms that the growth is live and not garbage, and the
// thread is cancelled. What that guarantees, and what not:
//
//   - Growth is the whole process's: another turn allocating at the same
//     time counts too, and the tables the script reads count (they are
//     read while it runs); that errs towards stopping a script early. The
//     other way: the heap at the start is read with its garbage, so a
//     script may hold up to the limit plus the garbage the heap had when
//     it began (at most what the runtime lets pile up between two
//     collections, about the live heap with the default GOGC).
//   - The script is stopped within about a millisecond of the heap
//     passing the limit, plus the rest of the operation running then:
//     one operation can make a large value at once before anything sees
//     it. The one that makes a value much larger than its operands, a
//     repeat (s * n, list * n, up to 2^30 elements in Starlark), is
//     checked before it is made: every x * y and name *= y of a script is
//     compiled as a call of a built-in that refuses, as the memory limit,
//     a result larger than the limit (16 bytes an element of a list or
//     tuple). a[i] *= n is not rewritten (it would evaluate a[i] twice)
//     and is left to the watchdog. The other way to a large value in one
//     call is text of a value that holds another many times (m = [l] *
//     1000 holds l once but prints it a thousand times): str, repr and
//     json.encode measure the text first and refuse one over the memory
//     limit, print one over the output left (as the output limit), the
//     repr of result one over four times the output limit (it is named by
//     its type instead), and a chart spec one over twice the chart limit.
//     The string methods that can make much more than they are given,
//     sep.join(l), s.replace(old, new) and s.format(...), are compiled as
//     calls of built-ins that bound the result first, the same way. Not
//     guarded: the "%" operator with such values (it is also integer
//     modulo, too common to slow down) and bytes methods, left to the
//     watchdog, which stops the script after the call. Any other
//     operation makes at most a few times the size of its operands (s +
//     s: their sum; zip and enumerate a tuple an element), so the
//     overshoot is at most a few times what the script already holds.
//     range is refused beyond the limit (above) because list(range(n))
//     builds its list inside one built-in call, which the watchdog cannot
//     stop half way.
//   - It bounds the script's memory, not the process's: the limit is a
//     growth, so it is the same whatever the app already holds.
//
// A stricter bound needs a child process with an OS memory limit; it is
// not done here.
//
// # Errors
//
// A syntax error, an undefined name (resolve), and a runtime error come
// back as a CodeError with the message and the line and column (1-based)
// in the script: a syntax error's position, or the innermost frame of the
// script in a runtime error's backtrace. Run's own error is only for Stop
// and for tables that cannot be read.
//
// # Determinism
//
// A script has no clock, no random source and no I/O, dicts keep their
// insertion order, and the tables are read-only, so the same script over
// the same tables gives the same output, value and steps. run_code is
// therefore neither Recorded nor SideEffects: a replay runs it again and
// reports a different result as a divergence. Report leaves the duration
// out of what the model reads for that reason. A limit of time or memory
// depends on the machine, and a replay may differ there.
package sandbox

// Package store keeps everything Agentdeck remembers in one SQLite file.
//
// Rules:
//
//   - One writer connection, a pool of read-only connections. All writes go
//     through the writer, so SQLite never returns SQLITE_BUSY between our own
//     goroutines; other processes (a CLI run beside the desktop app) are
//     handled by the busy timeout.
//   - WAL mode, foreign keys on, synchronous=NORMAL.
//   - The schema is a list of embedded SQL files in migrations/, applied in
//     order, each in its own transaction, and recorded in schema_migrations.
//     A database written by a newer Agentdeck (a version we do not know) is
//     refused and left untouched.
//   - Errors returned to callers are *apperr.Error with a message a person
//     can act on; the SQLite detail is kept as the wrapped cause.
//   - Events are written by EventLog in ordered batches, so the file always
//     holds a prefix of a turn's events; a turn's final state is committed
//     before its terminal event is delivered (see the runner).
//   - Deleting a session removes every row it owns, its search entries,
//     captures no other session uses and its attachment files; freed pages
//     are zeroed and the WAL is truncated.
//   - Search snippets mark matches with HighlightStart/HighlightEnd (\x02,
//     \x03): escape the snippet first, then turn the markers into <mark>.
//   - Exports hold only the session's own rows, never settings, providers
//     or keys. Backup never overwrites a file.
package store

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
package store

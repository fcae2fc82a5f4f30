// Package store keeps everything Agentdeck remembers in one SQLite file.
//
// Rules:
//
//   - One writer connection, a pool of read-only connections. All writes go
//     through the writer, so SQLite never returns SQLITE_BUSY between our own
//     goroutines; other processes (a CLI run beside the desktop app) are
//     handled by the busy timeout.
//   - WAL mode, foreign keys on, synchronous=NORMAL. The write-ahead log is
//     checkpointed after each write transaction by a background worker on
//     its own connection (checkpoint.go; the writer's wal_autocheckpoint
//     of 1,000 pages is a backstop, journal_size_limit 512 KB), and a 4 MB
//     reserve file beside the database is released to store the ending of
//     a turn stopped by a full disk. The reserve is made only when the disk
//     has room for it and ReserveHeadroom beside: it never fills the disk.
//   - The schema is a list of embedded SQL files in migrations/, applied in
//     order, each in its own transaction, and recorded in schema_migrations.
//     Each transaction takes the write lock first (BEGIN IMMEDIATE) and
//     reads the version inside it, so processes opening a new file at once
//     apply each migration once.
//     A database written by a newer Agentdeck (a version we do not know) is
//     refused and left untouched.
//   - Errors returned to callers are *apperr.Error with a message a person
//     can act on; the SQLite detail is kept as the wrapped cause.
//   - Events are written by EventLog in ordered batches, so the file always
//     holds a prefix of a turn's events; a turn's final state is committed
//     before its terminal event is delivered (see the runner).
//   - Deleting a session removes every row it owns, its search entries,
//     the recordings no other turn uses, its attachment files and its
//     folder (SessionDir); freed pages are zeroed and the WAL is truncated.
//   - A model call is stored with the provider, the price it ran at and
//     its cost (usage.go); sums of cost read those, never today's prices,
//     and leave replayed calls out. An unknown cost is NULL, not 0.
//   - A recording is never overwritten; turn_calls links each to the turn
//     and call index that used it (see capture.go).
//   - Damage is noticed when a statement meets SQLite's corruption code,
//     not by a check at open; the DB is then damaged for the process and,
//     through a mark beside the file, for later ones, until a check finds
//     it sound. StartTurn refuses to write into it unless forced.
//   - Search snippets mark matches with HighlightStart/HighlightEnd (\x02,
//     \x03): escape the snippet first, then turn the markers into <mark>.
//   - An export reads only the session's own rows (ReadSession) and its
//     project's name and defaults, never app settings, providers or keys,
//     in one read transaction, handing each turn on as it is read; what
//     the file looks like is package export's, and Import stores what
//     export.Decode reads. Backup never overwrites a file.
//   - Projects, tags, pins and archive (project.go): deleting a project
//     takes a choice for its sessions (keep: moved to no project; delete:
//     deleted as DeleteSession deletes one), made in one transaction;
//     archiving hides a session from the list and never deletes it;
//     moving a session changes what its next turns resolve to, never a
//     stored turn (each keeps its run, SetTurnRun).
//   - A saved prompt's name is unique in its scope (global, or one
//     project's), ignoring case; a project's prompts go with it.
//     ImportPrompts stores a whole prompt file in one transaction, so a
//     prompt it refuses leaves the library as it was.
//   - Side by side (group.go, votes.go): a session runs one turn at a
//     time, or the columns of one group together; a dead process's
//     columns are recovered like any orphan. A vote is one per group,
//     compares at least two columns, and goes with its winning turn, its
//     session, or a group left with fewer than two columns. A fork copies
//     no group; an import stores groups and votes under new ids and drops
//     those whose turns the file lacks.
package store

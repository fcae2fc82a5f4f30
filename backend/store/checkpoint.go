package store

import (
	"context"
	"database/sql"
)

// Checkpoints of the write-ahead log happen in the background. Every
// commit appends its pages to the log; a checkpoint copies them into the
// database file and syncs it. Left to SQLite, the checkpoint runs inside
// whichever commit takes the log past wal_autocheckpoint pages, and that
// writer waits for the copy and the sync: a streaming turn's event batch,
// its recorded model call or its ending, which is why a long answer was
// slower to store than to read.
//
// Instead the checkpointer, a worker (background.go) with a connection of
// its own, is woken after every write transaction and runs a PASSIVE
// checkpoint, which neither waits for nor blocks the writer or a reader.
// Once it has copied the whole log, the next write starts the log again
// from its beginning and journal_size_limit cuts the file back, so the log
// stays about a transaction long, as small as when the writer checkpointed
// every 64 pages. The writer's own threshold is kept as a backstop, at
// SQLite's default of 1,000 pages (4 MB), for when the checkpointer falls
// behind. A checkpoint that fails (a full disk) leaves the log whole for
// the next one: nothing committed depends on it.
type checkpointer struct {
	conn *sql.DB
	w    *worker
}

// startCheckpointer opens the checkpointer's connection and starts it.
// It first runs after the first write, not at start: a log an earlier
// process left is checkpointed then, and the start of the app has nothing
// to wait for.
func (db *DB) startCheckpointer(after func(uint64)) error {
	conn, err := openPool(dsn(db.path, false), db.dmg)
	if err != nil {
		return openError(db.path, err)
	}
	conn.SetMaxOpenConns(1)
	db.ckpt = &checkpointer{conn: conn}
	db.ckpt.w = startWorker(func() { _ = db.checkpoint(context.Background(), checkpointPassive) }, after)
	return nil
}

// poke wakes the checkpointer; it never blocks. A nil checkpointer
// (read-only) does nothing.
func (c *checkpointer) poke() {
	if c != nil {
		c.w.poke()
	}
}

// stop stops the checkpointer and closes its connection.
func (c *checkpointer) stop() error {
	if c == nil {
		return nil
	}
	c.w.halt()
	return c.conn.Close()
}

// The checkpoint modes used: PASSIVE copies what no reader still needs
// and waits for nobody; TRUNCATE waits for readers (up to busy_timeout),
// copies everything and empties the log file, so that deleted content
// leaves it (Compact).
const (
	checkpointPassive  = "PASSIVE"
	checkpointTruncate = "TRUNCATE"
)

// checkpoint runs a checkpoint on the checkpointer's connection, so that
// checkpoints run one at a time: a second one at once finds the log
// locked and does nothing, which Compact cannot afford. A read-only DB
// has no checkpointer and uses its writer, where every write fails.
func (db *DB) checkpoint(ctx context.Context, mode string) error {
	conn := db.writer
	if db.ckpt != nil {
		conn = db.ckpt.conn
	}
	var busy, logged, copied int
	return conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(`+mode+`)`).Scan(&busy, &logged, &copied)
}

// Checkpoint copies the write-ahead log into the database file now, what
// the checkpointer does after every write. Nothing needs it for
// correctness; the benchmarks call it so that no measurement pays for the
// one before.
func (db *DB) Checkpoint(ctx context.Context) error {
	if err := db.checkpoint(ctx, checkpointPassive); err != nil {
		return writeError(err, "checkpointing the database")
	}
	return nil
}

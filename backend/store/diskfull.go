package store

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"

	"modernc.org/sqlite"
)

// A full disk. SQLite fails a write with SQLITE_FULL when it cannot grow
// the database file or its write-ahead log, and leaves what was committed
// intact. Agentdeck then stops the turn under way (see the runner) and
// stores its ending: state failed, termination disk_full, the answer as far
// as its events were stored. That ending needs room too, so the database
// keeps a reserve beside it: a file of ReserveSize bytes that is deleted to
// make room for the ending, and made again at the next turn when there is
// space. If even the ending cannot be stored, the turn stays running, and
// the next start marks it interrupted with the same stored answer.

// ReserveSize is the space kept aside beside the database for the ending of
// a turn stopped by a full disk: the turn's row, its messages and search
// entries, and a checkpoint of the write-ahead log.
const ReserveSize = 4 << 20

// sqliteFull is SQLITE_FULL, the primary result code of a write that found
// no room.
const sqliteFull = 13

// IsDiskFull reports whether err (or an error it wraps) says the disk is
// full: SQLite's SQLITE_FULL, or ENOSPC from the file system.
func IsDiskFull(err error) bool {
	if err == nil {
		return false
	}
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqliteFull {
		return true
	}
	if errors.Is(err, syscall.ENOSPC) {
		return true
	}
	// Errors that crossed a boundary as text (a driver that formats its
	// cause) still say so.
	msg := err.Error()
	return strings.Contains(msg, "database or disk is full") || strings.Contains(msg, "SQLITE_FULL")
}

// ReservePath is the file that holds the reserve of the database at dbPath.
func ReservePath(dbPath string) string { return dbPath + ".reserve" }

// KeepReserve makes sure the reserve beside the database is whole, writing
// the bytes it lacks (zeros, so the space is really taken, not a sparse
// hole). It is best effort: on a full or read-only disk it keeps what it
// could write and reports the error, which callers only log.
func (db *DB) KeepReserve() error {
	path := ReservePath(db.path)
	if fi, err := os.Stat(path); err == nil && fi.Size() >= ReserveSize {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return err
	}
	zeros := make([]byte, 64<<10)
	for size < ReserveSize {
		n, err := f.Write(zeros[:min(int64(len(zeros)), ReserveSize-size)])
		size += int64(n)
		if err != nil {
			return err
		}
	}
	return f.Sync()
}

// ReleaseReserve deletes the reserve, then checkpoints the write-ahead log
// into the database file and truncates it, so the room both held is free
// for the ending of a turn stopped by a full disk. It returns the bytes the
// reserve held. A checkpoint that cannot finish (another process reading,
// still no room) is not an error: the ending may fit anyway.
func (db *DB) ReleaseReserve(ctx context.Context) int64 {
	path := ReservePath(db.path)
	var freed int64
	if fi, err := os.Stat(path); err == nil {
		if os.Remove(path) == nil {
			freed = fi.Size()
		}
	}
	_ = db.checkpoint(ctx, checkpointTruncate)
	return freed
}

// LimitPages caps the database at its current size plus extra pages, as a
// full disk would: a write that needs a page past the cap fails with
// SQLITE_FULL. It lasts until the database is closed. Tests use it where
// they cannot fill a real file system.
func (db *DB) LimitPages(ctx context.Context, extra int) error {
	var pages int
	if err := db.writer.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		return err
	}
	_, err := db.writer.ExecContext(ctx, `PRAGMA max_page_count = `+strconv.Itoa(pages+extra))
	return err
}

// storedAnswer is the answer of the turn's model call under way as its
// events stored it: what the recovery of a dead turn would keep.
func (db *DB) storedAnswer(ctx context.Context, turnID string) (string, error) {
	tx, err := db.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return "", readError(err, "reading the stored answer")
	}
	defer tx.Rollback()
	text, err := partialText(ctx, tx, turnID)
	if err != nil {
		return "", readError(err, "reading the stored answer")
	}
	return text, nil
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
// make room for the ending, and made again at a later turn when there is
// room for it. If even the ending cannot be stored, the runner keeps it and
// stores it once there is room (PendingEnding), or the next start does.
//
// The reserve must never be what fills the disk: it is made (or made
// whole) only when the disk has ReserveRoom free, so that ReserveHeadroom
// still remains for the turns once it is taken. With less, the turn runs
// without it, and KeepReserve says how much the disk lacks.

// ReserveSize is the space kept aside beside the database for the ending of
// a turn stopped by a full disk: the turn's row, its messages and search
// entries, and a checkpoint of the write-ahead log.
const ReserveSize = 4 << 20

// ReserveHeadroom is the free space the disk must keep for the turns
// themselves once the reserve is taken.
const ReserveHeadroom = 8 << 20

// ReserveRoom is the free space a disk needs for the reserve to be made:
// the reserve and the headroom beside it.
const ReserveRoom = ReserveSize + ReserveHeadroom

// ShortOfSpaceError is why the reserve was not made: the disk that holds
// the database has less free space than making it needs.
type ShortOfSpaceError struct {
	Dir  string // the folder of the database
	Free int64  // bytes free there
	Need int64  // bytes free it takes to make the reserve whole
	Have int64  // bytes of the reserve an earlier turn left
}

func (e *ShortOfSpaceError) Error() string {
	return fmt.Sprintf("only %s is free on the disk that holds %s, and Agentdeck sets %s aside there only when %s are free, "+
		"so that a turn stopped by a full disk can still save its ending; %s",
		MB(e.Free), e.Dir, MB(ReserveSize), MB(e.Need), e.outcome())
}

func (e *ShortOfSpaceError) outcome() string {
	if e.Have > 0 {
		return fmt.Sprintf("the reserve was left at the %s it holds", MB(e.Have))
	}
	return "the reserve was not made, and turns run without it"
}

// MB writes a size for a person: in KB below 1 MB, in MB with one decimal
// below 10 MB, in whole MB above.
func MB(n int64) string {
	const kb, mb = 1 << 10, 1 << 20
	switch {
	case n < mb:
		return strconv.FormatInt((n+kb-1)/kb, 10) + " KB"
	case n < 10*mb && n%mb != 0:
		return strconv.FormatFloat(float64(n)/mb, 'f', 1, 64) + " MB"
	}
	return strconv.FormatInt((n+mb/2)/mb, 10) + " MB"
}

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
// hole), but only when the disk has the room for it and ReserveHeadroom
// beside (see ReserveRoom): otherwise it writes nothing and returns a
// *ShortOfSpaceError. A write that fails all the same (another program
// took the space meanwhile) is undone. It is best effort: callers log the
// error and go on.
func (db *DB) KeepReserve() error {
	path := ReservePath(db.path)
	var have int64
	if fi, err := os.Stat(path); err == nil {
		if fi.Size() >= ReserveSize {
			return nil
		}
		have = fi.Size()
	}
	dir := filepath.Dir(db.path)
	free, err := db.free(dir)
	if err != nil {
		return fmt.Errorf("measuring the free space beside the database: %w", err)
	}
	if need := ReserveSize - have + ReserveHeadroom; free < need {
		return &ShortOfSpaceError{Dir: dir, Free: free, Need: need, Have: have}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if err := fillReserve(f, have); err != nil {
		// Give back what this call took: the disk may be short now.
		_ = f.Truncate(have)
		f.Close()
		if have == 0 {
			os.Remove(path)
		}
		return err
	}
	return f.Close()
}

// fillReserve writes zeros from size up to ReserveSize and syncs them.
func fillReserve(f *os.File, size int64) error {
	if _, err := f.Seek(size, io.SeekStart); err != nil {
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

// free is the space free on the disk that holds dir.
func (db *DB) free(dir string) (int64, error) {
	if db.diskFree != nil {
		return db.diskFree(dir)
	}
	return DiskFree(dir)
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

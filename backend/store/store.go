package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/agentdeck/agentdeck/backend/apperr"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// DB is an open Agentdeck database.
type DB struct {
	path   string
	writer *sql.DB
	reader *sql.DB
	owner  Owner
	dmg    *damage
	// idx writes finished turns' search entries (indexer.go) and ckpt
	// checkpoints the write-ahead log (checkpoint.go), in the background;
	// both are nil when the DB is read-only.
	idx  *indexer
	ckpt *checkpointer
	// eventBlocks keeps the event logs' emptied blocks (eventlog.go) for
	// the next batch of any turn.
	eventBlocks sync.Pool
	// diskFree, if set, replaces the measure of free space (diskfull.go):
	// tests that cannot mount a small disk.
	diskFree func(dir string) (int64, error)
}

// Options tune Open. The zero value is what the app uses.
type Options struct {
	// Readers is the size of the read-only pool (default 4).
	Readers int
	// Owner identifies this process on the turns it runs (default: the
	// current process).
	Owner *Owner
	// OnDamage, if set, is called once, the first time a read or a write
	// meets damage in the file (see Damaged), from the goroutine that met
	// it. The command line prints its notice there.
	OnDamage func(reason string)

	// afterIndex and afterCheckpoint, if set, are called after each run
	// of the indexer and of the checkpointer: tests wait on them.
	afterIndex, afterCheckpoint func(seen uint64)
}

// Open opens (creating if needed) the database at path and migrates it to
// the current schema.
func Open(ctx context.Context, path string, opts Options) (*DB, error) {
	if opts.Readers <= 0 {
		opts.Readers = 4
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, apperr.Wrap(err, apperr.Unavailable,
			"cannot create the folder for the database %s; check that it is writable or pass --db with another path", path)
	}
	dmg := newDamage(path, opts.OnDamage)
	writer, err := openPool(dsn(path, false), dmg)
	if err != nil {
		return nil, openError(path, err)
	}
	writer.SetMaxOpenConns(1)
	db := &DB{path: path, writer: writer, owner: CurrentOwner(), dmg: dmg}
	if opts.Owner != nil {
		db.owner = *opts.Owner
	}
	if err := db.prepare(ctx); err != nil {
		writer.Close()
		return nil, err
	}
	reader, err := openPool(dsn(path, true), dmg)
	if err != nil {
		writer.Close()
		return nil, openError(path, err)
	}
	reader.SetMaxOpenConns(opts.Readers)
	db.reader = reader
	if err := db.startCheckpointer(opts.afterCheckpoint); err != nil {
		reader.Close()
		writer.Close()
		return nil, err
	}
	db.startIndexer(opts.afterIndex)
	return db, nil
}

// Path returns the file the database lives in.
func (db *DB) Path() string { return db.path }

// Close closes every connection. It is safe to call once.
func (db *DB) Close() error {
	db.stopIndexer()
	errs := []error{db.ckpt.stop()}
	if db.reader != nil {
		errs = append(errs, db.reader.Close())
	}
	errs = append(errs, db.writer.Close())
	return errors.Join(errs...)
}

// SchemaVersion returns the newest migration applied to the database.
func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	return currentVersion(ctx, db.reader)
}

// openAttempts bounds how many times Open tries to set the file up while
// other processes hold it: each try waits up to the busy timeout (5 s).
const openAttempts = 6

// prepare opens the writer's connection (which puts a new file in WAL
// mode) and migrates the schema. Processes that open a new file at once
// queue for its locks: each wait is the busy timeout, and a try that
// still finds the file busy (20 processes on a loaded machine can take
// longer) is made again, up to openAttempts; both steps are safe to
// repeat (see migrate).
func (db *DB) prepare(ctx context.Context) error {
	var err error
	for range openAttempts {
		if err = db.ping(ctx); err == nil {
			err = migrate(ctx, db.writer, migrationFiles)
		}
		if err == nil || !isBusy(err) || ctx.Err() != nil {
			return err
		}
	}
	return err
}

// isBusy reports an error of another connection holding a lock the
// busy timeout did not see released.
func isBusy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff
	return code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED
}

func (db *DB) ping(ctx context.Context) error {
	// journal_mode=WAL in the DSN is only applied when a connection opens,
	// so force one now to surface "not a database" and permission errors.
	var mode string
	if err := db.writer.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return openError(db.path, err)
	}
	return nil
}

func dsn(path string, readOnly bool) string {
	q := url.Values{}
	for _, p := range []string{
		"busy_timeout(5000)",
		"foreign_keys(1)",
		"journal_mode(WAL)",
		"synchronous(NORMAL)",
		// Deleted rows are overwritten with zeros: "deleted" must mean gone
		// from the file, not merely unlinked.
		"secure_delete(1)",
		// Keep the write-ahead log small, so that a turn needs little more
		// free space than what it stores: the checkpointer copies it into
		// the file after every write (checkpoint.go), the writer itself
		// only past SQLite's default of 1,000 pages, and the file is cut
		// back to 512 KB when the log restarts after a checkpoint (without
		// a limit it keeps its largest size for good). A reader holding an
		// old snapshot can keep a checkpoint from finishing; the next one
		// catches up.
		"wal_autocheckpoint(1000)",
		"journal_size_limit(524288)",
	} {
		q.Add("_pragma", p)
	}
	if readOnly {
		q.Add("_pragma", "query_only(1)")
	} else {
		q.Set("_txlock", "immediate")
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// openError names why the file could not be opened. A file SQLite finds
// damaged or not a database at all (its schema cannot be read) is Damaged:
// nothing in it is readable, so there is nothing to salvage.
func openError(path string, err error) error {
	var se *sqlite.Error
	code := 0
	if errors.As(err, &se) {
		code = se.Code() & 0xff
	}
	switch {
	case isCorruptCode(code):
		return apperr.Wrap(err, apperr.Damaged,
			"%s is not an Agentdeck database or is damaged; move it aside or pass --db with another path", path)
	case code == sqlite3.SQLITE_CANTOPEN, code == sqlite3.SQLITE_READONLY, code == sqlite3.SQLITE_PERM,
		errors.Is(err, fs.ErrPermission):
		return apperr.Wrap(err, apperr.Unavailable,
			"cannot open the database %s; check that the file and its folder are readable and writable, or pass --db with another path", path)
	}
	return apperr.Wrap(err, apperr.Unavailable, "cannot open the database %s", path)
}

// readError maps a failed read to a message a person can act on. Damage
// is named as damage (with the file and the next steps), whatever the
// read was for.
func readError(err error, doing string) error {
	if errors.Is(err, context.Canceled) {
		return apperr.Wrap(err, apperr.Cancelled, "%s was cancelled", doing)
	}
	if d := damageOf(err); d != nil && isCorrupt(err) {
		return damaged(d, err, doing)
	}
	if d := damageOf(err); d != nil && isGeneric(err) {
		if met, _ := d.state(); met {
			// A read that fails for no named reason in a file known to be
			// damaged: the damage is the likely cause.
			return damaged(d, err, doing)
		}
	}
	return apperr.Wrap(err, apperr.Unavailable, "%s failed: the database could not be read", doing)
}

// writeError maps a failed write to a message a person can act on: the
// disk is full, the file is read-only, another program holds it, or the
// file is damaged.
func writeError(err error, doing string) error {
	var se *sqlite.Error
	code := 0
	if errors.As(err, &se) {
		code = se.Code() & 0xff
	}
	d := damageOf(err)
	switch {
	case d != nil && isCorruptCode(code):
		return damaged(d, err, doing)
	case code == sqlite3.SQLITE_FULL, errors.Is(err, syscall.ENOSPC):
		return apperr.Wrap(err, apperr.Unavailable, "%s failed: the disk is full. Free some space; nothing already saved was lost", doing)
	case code == sqlite3.SQLITE_READONLY, code == sqlite3.SQLITE_PERM, code == sqlite3.SQLITE_CANTOPEN, errors.Is(err, fs.ErrPermission):
		return apperr.Wrap(err, apperr.Unavailable, "%s failed: the database is read-only. Check the file's permissions; nothing already saved was lost", doing)
	case code == sqlite3.SQLITE_BUSY, code == sqlite3.SQLITE_LOCKED:
		return apperr.Wrap(err, apperr.Unavailable, "%s failed: another program holds the database. Try again", doing)
	case errors.Is(err, context.Canceled):
		return apperr.Wrap(err, apperr.Cancelled, "%s was cancelled", doing)
	}
	if d != nil {
		if met, _ := d.state(); met {
			return damaged(d, err, doing)
		}
	}
	return apperr.Wrap(err, apperr.Internal, "%s failed", doing)
}

// damaged is the apperr for a read or write of a damaged file.
func damaged(d *damage, err error, doing string) error {
	de := d.asError(err, doing)
	return apperr.Wrap(de, apperr.Damaged, "%s failed: the database %s is damaged (%s). %s", capitalize(doing), d.path, de.Reason, DamageAdvice(d.path))
}

// isGeneric reports an error with no cause a person could act on apart
// from the file: not busy, full, read-only or interrupted.
func isGeneric(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_FULL, sqlite3.SQLITE_READONLY,
		sqlite3.SQLITE_PERM, sqlite3.SQLITE_INTERRUPT, sqlite3.SQLITE_CONSTRAINT, sqlite3.SQLITE_NOMEM:
		return false
	}
	return true
}

// wrapf is fmt.Errorf for the common "doing X: %w" shape.
func wrapf(err error, format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, err)...)
}

// OpenReadOnly opens an existing database to look at it (db check, db
// backup) without changing it in any way: nothing is created, migrated,
// recovered or checkpointed, and every write fails.
func OpenReadOnly(ctx context.Context, path string) (*DB, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, apperr.Wrap(err, apperr.NotFound, "there is no database at %s; pass --db with the file to look at", path)
	}
	if err == nil && fi.Size() == 0 && fileSize(path+"-wal") == 0 {
		// SQLite reads a 0-byte file as a database with nothing in it;
		// opened read-only it cannot even be given its log, which used to
		// end in "check that the file is readable", a false lead.
		return nil, emptyFile(path)
	}
	dmg := newDamage(path, nil)
	open := func(conns int) (*sql.DB, error) {
		// mode=ro: a read-only connection never checkpoints the WAL into
		// the file, not even as the last one to close.
		p, err := openPool(dsn(path, true)+"&mode=ro", dmg)
		if err != nil {
			return nil, openError(path, err)
		}
		p.SetMaxOpenConns(conns)
		return p, nil
	}
	writer, err := open(1)
	if err != nil {
		return nil, err
	}
	reader, err := open(4)
	if err != nil {
		writer.Close()
		return nil, err
	}
	db := &DB{path: path, writer: writer, reader: reader, owner: CurrentOwner(), dmg: dmg}
	// Keep a connection open (idle in the pool) from here to Close: while
	// one is open, no other connection of ours is the last one, and the
	// last one to close is what checkpoints.
	var n int
	if err := reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master`).Scan(&n); err != nil {
		db.Close()
		return nil, openError(path, err)
	}
	return db, nil
}

// emptyFile is the answer of a command that only reads, given a 0-byte
// file. Open takes such a file as a new database and sets it up (SQLite
// reads 0 bytes as an empty database); a command that only looks has
// nothing to look at, and says what the file is and what to do.
func emptyFile(path string) error {
	return apperr.New(apperr.NotFound,
		"%s is empty (0 bytes): it holds no Agentdeck data, so there is nothing to check or copy. "+
			"If it is new, any other command (agentdeck, agentdeck run) sets it up as a new database; "+
			"if it held your history, it was cut to nothing: restore it from a backup", path)
}

// querier is a pool or a transaction to read from.
type querier interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}

// queryColumn runs a query that selects one column and returns its values
// in the order the rows came, nil when there were none.
func queryColumn[T any](ctx context.Context, q querier, query string, args ...any) ([]T, error) {
	return appendRows(ctx, q, []T(nil), scanInto(func(v *T) []any { return []any{v} }), query, args...)
}

// appendRows runs a query and appends each row, read by scan, to out, in
// the order the rows came: what out was (nil or empty) is what a query
// with no rows returns, so each caller keeps the JSON it promised.
func appendRows[T any](ctx context.Context, q querier, out []T, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// scanInto makes a scan for appendRows from the destinations dest gives
// for a new T.
func scanInto[T any](dest func(*T) []any) func(scanner) (T, error) {
	return func(r scanner) (T, error) {
		var v T
		err := r.Scan(dest(&v)...)
		return v, err
	}
}

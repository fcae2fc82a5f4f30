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
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// DB is an open Agentdeck database.
type DB struct {
	path   string
	writer *sql.DB
	reader *sql.DB
	owner  Owner
}

// Options tune Open. The zero value is what the app uses.
type Options struct {
	// Readers is the size of the read-only pool (default 4).
	Readers int
	// Owner identifies this process on the turns it runs (default: the
	// current process).
	Owner *Owner
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
	writer, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		return nil, openError(path, err)
	}
	writer.SetMaxOpenConns(1)
	db := &DB{path: path, writer: writer, owner: CurrentOwner()}
	if opts.Owner != nil {
		db.owner = *opts.Owner
	}
	if err := db.ping(ctx); err != nil {
		writer.Close()
		return nil, err
	}
	if err := migrate(ctx, writer, migrationFiles); err != nil {
		writer.Close()
		return nil, err
	}
	reader, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		writer.Close()
		return nil, openError(path, err)
	}
	reader.SetMaxOpenConns(opts.Readers)
	db.reader = reader
	return db, nil
}

// Path returns the file the database lives in.
func (db *DB) Path() string { return db.path }

// Close closes every connection. It is safe to call once.
func (db *DB) Close() error {
	var errs []error
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

func openError(path string, err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "file is not a database"), strings.Contains(msg, "malformed"):
		return apperr.Wrap(err, apperr.Unavailable,
			"%s is not an Agentdeck database or is damaged; move it aside or pass --db with another path", path)
	case strings.Contains(msg, "unable to open"), strings.Contains(msg, "readonly"), strings.Contains(msg, "permission"):
		return apperr.Wrap(err, apperr.Unavailable,
			"cannot open the database %s; check that the file and its folder are readable and writable, or pass --db with another path", path)
	}
	return apperr.Wrap(err, apperr.Unavailable, "cannot open the database %s", path)
}

// wrapf is fmt.Errorf for the common "doing X: %w" shape.
func wrapf(err error, format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, err)...)
}

// OpenReadOnly opens an existing database to look at it (db check, db
// backup) without changing it in any way: nothing is created, migrated,
// recovered or checkpointed, and every write fails.
func OpenReadOnly(ctx context.Context, path string) (*DB, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, apperr.Wrap(err, apperr.NotFound, "there is no database at %s; pass --db with the file to look at", path)
	}
	open := func(conns int) (*sql.DB, error) {
		// mode=ro: a read-only connection never checkpoints the WAL into
		// the file, not even as the last one to close.
		p, err := sql.Open("sqlite", dsn(path, true)+"&mode=ro")
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
	db := &DB{path: path, writer: writer, reader: reader, owner: CurrentOwner()}
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

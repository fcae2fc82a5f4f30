package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one numbered SQL file.
type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations reads NNNN_name.sql files in version order and checks that
// the versions are 1, 2, 3... with no gaps or duplicates.
func loadMigrations(fsys fs.FS) ([]migration, error) {
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, name := range names {
		base := path.Base(name)
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a number and an underscore", base)
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: base, sql: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %s: expected version %d", m.name, i+1)
		}
	}
	return ms, nil
}

// migrate applies every migration newer than the database's version, each in
// its own transaction. A database newer than the newest migration we know is
// refused before anything is written.
//
// Several processes may open a new file at once (20 commands started
// together): each migration runs in a transaction that holds the write lock
// from its start (BEGIN IMMEDIATE, the writer's _txlock), and the version is
// read again inside it, so a migration another process applied meanwhile is
// skipped, not applied twice. The others wait for the lock (busy_timeout).
func migrate(ctx context.Context, db *sql.DB, fsys fs.FS) error {
	ms, err := loadMigrations(fsys)
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "the built-in database schema is broken")
	}
	// A look without the lock first: a database that is up to date (every
	// start but the first) or newer opens without writing anything.
	have, err := peekVersion(ctx, db)
	if err != nil {
		return err
	}
	if err := checkNotNewer(have, len(ms)); err != nil {
		return err
	}
	for have < len(ms) {
		if have, err = applyNext(ctx, db, ms); err != nil {
			return err
		}
	}
	return nil
}

// applyNext applies, under the write lock, the first migration the
// database lacks, and returns the version it is at afterwards: one more,
// or, when another process got there first, the version it found.
func applyNext(ctx context.Context, db *sql.DB, ms []migration) (int, error) {
	tx, err := db.BeginTx(ctx, nil) // BEGIN IMMEDIATE: the write lock
	if err != nil {
		return 0, migrationError(err, "starting to prepare the database")
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at TEXT NOT NULL
	)`); err != nil {
		return 0, migrationError(err, "preparing the database")
	}
	have, err := currentVersion(ctx, tx)
	if err != nil {
		return 0, migrationError(err, "reading the schema version")
	}
	if err := checkNotNewer(have, len(ms)); err != nil {
		return 0, err
	}
	if have == len(ms) {
		return have, nil // another process applied the rest
	}
	m := ms[have]
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return 0, migrationError(err, "applying migration "+m.name)
	}
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
		m.version, m.name, time.Now().UTC().Format(time.RFC3339Nano)); err != nil {
		return 0, migrationError(err, "recording migration "+m.name)
	}
	if err := tx.Commit(); err != nil {
		return 0, migrationError(err, "committing migration "+m.name)
	}
	return m.version, nil
}

// peekVersion is the schema version without taking a lock: 0 for a new
// file, which has no schema_migrations table yet.
func peekVersion(ctx context.Context, db *sql.DB) (int, error) {
	var n int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`).Scan(&n); err != nil {
		return 0, migrationError(err, "reading the schema version")
	}
	if n == 0 {
		return 0, nil
	}
	v, err := currentVersion(ctx, db)
	if err != nil {
		return 0, migrationError(err, "reading the schema version")
	}
	return v, nil
}

// checkNotNewer refuses a database written by a newer Agentdeck.
func checkNotNewer(have, known int) error {
	if have > known {
		return apperr.New(apperr.Unavailable,
			"this database was written by a newer Agentdeck (schema %d, this build knows up to %d); update Agentdeck, or pass --db with another file. The database was not changed",
			have, known)
	}
	return nil
}

// migrationError says why preparing the database failed. A full disk, a
// read-only file, another program's lock or damage get writeError's
// message; anything else names SQLite's own words, since a person (or the
// report they send) needs the cause, and nothing else would say it.
func migrationError(err error, doing string) error {
	e := writeError(err, doing)
	if apperr.CodeOf(e) != apperr.Internal {
		return e
	}
	return apperr.Wrap(err, apperr.Internal,
		"%s failed: %v. The step was rolled back, so the database is as it was before it; try again, and if it fails the same way, report this message",
		doing, err)
}

func currentVersion(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int, error) {
	var v sql.NullInt64
	if err := q.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, wrapf(err, "reading the schema version")
	}
	return int(v.Int64), nil
}

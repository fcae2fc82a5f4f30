package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

// CheckReport is the result of Check.
type CheckReport struct {
	// OK is true when no problem was found.
	OK bool `json:"ok"`
	// Problems are SQLite's findings, one per line, for a bug report.
	Problems      []string `json:"problems"`
	SchemaVersion int      `json:"schema_version"`
	Sessions      int64    `json:"sessions"`
	Turns         int64    `json:"turns"`
	Events        int64    `json:"events"`
	// SizeBytes is the space the database takes on disk: the file and its
	// write-ahead log.
	SizeBytes int64 `json:"size_bytes"`
}

// maxProblems caps what integrity_check lists; a badly damaged file would
// otherwise give one line per page.
const maxProblems = 100

// Check verifies the database: every page and index (and, since SQLite
// 3.44, the search index) with PRAGMA integrity_check, and every reference
// between rows with PRAGMA foreign_key_check. It reads through the reader
// pool, so it works on a read-only file and never blocks writers. Damage
// is reported in the CheckReport, not as an error; the error is for a
// check that could not run at all.
func (db *DB) Check(ctx context.Context) (CheckReport, error) {
	rep := CheckReport{Problems: []string{}}
	// A connection of its own, new: FTS5's part of integrity_check trusts
	// the connection's cached copy of the search index structure, so a
	// pooled reader that searched before the writer changed the index
	// reports a false "fts5: checksum mismatch".
	pool, err := sql.Open("sqlite", dsn(db.path, true))
	if err != nil {
		return rep, readError(err, "checking the database")
	}
	defer pool.Close()
	conn, err := pool.Conn(ctx)
	if err != nil {
		return rep, readError(err, "checking the database")
	}
	defer conn.Close()
	steps := []func(context.Context, *sql.Conn, *CheckReport) error{checkIntegrity, checkForeignKeys, checkCounts}
	for _, step := range steps {
		if err := step(ctx, conn, &rep); err != nil {
			if !isCorrupt(err) {
				return rep, readError(err, "checking the database")
			}
			rep.Problems = append(rep.Problems, "the database file is damaged: "+err.Error())
		}
	}
	rep.SizeBytes = fileSize(db.path) + fileSize(db.path+"-wal")
	rep.OK = len(rep.Problems) == 0
	return rep, nil
}

// Backup writes a consistent copy of the database to path with VACUUM
// INTO: a snapshot taken in one read transaction, compacted, readable by
// Open. Writes go on while it runs. It never overwrites a file; the
// folder is created if needed, and the copy is readable by its owner only
// since it holds every conversation.
func (db *DB) Backup(ctx context.Context, path string) error {
	if strings.TrimSpace(path) == "" {
		return apperr.New(apperr.Invalid, "Choose a file to write the backup to.")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return apperr.Wrap(err, apperr.Invalid, "The backup path %s is not usable.", path)
	}
	if _, err := os.Lstat(abs); err == nil {
		return backupExists(abs, nil)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return apperr.Wrap(err, apperr.Unavailable, "Cannot write the backup to %s: the path cannot be checked. Choose another place.", abs)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return apperr.Wrap(err, apperr.Unavailable, "Cannot create the folder for the backup %s; check that it is writable or choose another place.", abs)
	}
	if err := db.vacuumInto(ctx, abs); err != nil {
		if strings.Contains(err.Error(), "already exists") {
			// Made by someone else since the check above: not ours to remove.
			return backupExists(abs, err)
		}
		_ = os.Remove(abs)
		if errors.Is(err, context.Canceled) || ctx.Err() != nil {
			return apperr.Wrap(err, apperr.Cancelled, "The backup was cancelled; the partial file was removed.")
		}
		return writeError(err, "writing the backup "+abs)
	}
	if err := os.Chmod(abs, 0o600); err != nil {
		return apperr.Wrap(err, apperr.Unavailable, "The backup %s was written but its permissions could not be restricted; it is readable by others until you change them.", abs)
	}
	return nil
}

// vacuumInto runs VACUUM INTO on a connection of its own: the reader pool
// is query_only, which forbids it, and the writer would hold up every
// write for the length of the copy. Opened read-only, the connection only
// takes a read snapshot, so it also backs up a database on a read-only
// file.
func (db *DB) vacuumInto(ctx context.Context, path string) error {
	conn, err := sql.Open("sqlite", dsn(db.path, false)+"&mode=ro")
	if err != nil {
		return err
	}
	defer conn.Close()
	// An absolute path never starts with "file:", so SQLite does not read
	// it as a URI with options.
	_, err = conn.ExecContext(ctx, `VACUUM INTO ?`, path)
	return err
}

func backupExists(path string, err error) error {
	return apperr.Wrap(err, apperr.Conflict,
		"%s already exists. Agentdeck never overwrites a file with a backup: choose a new name or move the old file away.", path)
}

func checkIntegrity(ctx context.Context, conn *sql.Conn, rep *CheckReport) error {
	rows, err := conn.QueryContext(ctx, fmt.Sprintf(`PRAGMA integrity_check(%d)`, maxProblems))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if line != "ok" {
			rep.Problems = append(rep.Problems, line)
		}
	}
	return rows.Err()
}

func checkForeignKeys(ctx context.Context, conn *sql.Conn, rep *CheckReport) error {
	rows, err := conn.QueryContext(ctx, `PRAGMA foreign_key_check`)
	if err != nil {
		return err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var table, parent string
		var rowid sql.NullInt64
		var fk int
		if err := rows.Scan(&table, &rowid, &parent, &fk); err != nil {
			return err
		}
		if n++; n > maxProblems {
			continue
		}
		row := "a row"
		if rowid.Valid {
			row = fmt.Sprintf("row %d", rowid.Int64)
		}
		rep.Problems = append(rep.Problems, fmt.Sprintf("%s %s refers to a missing row of %s", table, row, parent))
	}
	if n > maxProblems {
		rep.Problems = append(rep.Problems, fmt.Sprintf("… and %d more rows with missing references", n-maxProblems))
	}
	return rows.Err()
}

func checkCounts(ctx context.Context, conn *sql.Conn, rep *CheckReport) error {
	v, err := currentVersion(ctx, conn)
	if err != nil {
		return err
	}
	rep.SchemaVersion = v
	return conn.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM sessions), (SELECT COUNT(*) FROM turns), (SELECT COUNT(*) FROM events)`).
		Scan(&rep.Sessions, &rep.Turns, &rep.Events)
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

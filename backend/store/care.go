package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// CheckReport is the result of Check.
type CheckReport struct {
	// OK is true when no problem was found.
	OK bool `json:"ok"`
	// Problems are SQLite's findings, one per line, for a bug report.
	Problems      []string `json:"problems"`
	SchemaVersion int      `json:"schema_version"`
	// Sessions, Turns and Messages are the rows that could be read;
	// Events the events in the rows that could be read, counted one by
	// one (a run of streamed tokens is one row holding many). A table in
	// Unreadable has more that could not be read.
	Sessions int64 `json:"sessions"`
	Turns    int64 `json:"turns"`
	Events   int64 `json:"events"`
	Messages int64 `json:"messages"`
	// Tables are each table's rows that could be read (the events table
	// too: rows, as salvage counts them), with whether all of it was read.
	Tables []TableCount `json:"tables"`
	// Unreadable names the tables whose rows could not all be read.
	Unreadable []string `json:"unreadable"`
	// DamagedPages are the pages SQLite's integrity check could not use,
	// with the table or index they belong to.
	DamagedPages []DamagedPage `json:"damaged_pages"`
	// SizeBytes is the space the database takes on disk: the file and its
	// write-ahead log.
	SizeBytes int64 `json:"size_bytes"`
}

// TableCount is how many rows of a table could be read.
type TableCount struct {
	Name string `json:"name"`
	Rows int64  `json:"rows"`
	// Complete is false when part of the table could not be read: Rows
	// counts only what could.
	Complete bool `json:"complete"`
}

// DamagedPage is a page of the file that cannot be used.
type DamagedPage struct {
	// Table is the table or index the page belongs to ("" if unknown).
	Table string `json:"table"`
	Page  int64  `json:"page"`
}

// maxProblems caps what integrity_check lists; a badly damaged file would
// otherwise give one line per page.
const maxProblems = 100

// Check verifies the database: every page and index (and, since SQLite
// 3.44, the search index) with PRAGMA integrity_check, and every reference
// between rows with PRAGMA foreign_key_check. It counts each main table on
// its own, so a damaged page of one does not hide the others, and counts
// a damaged one by walking around its unreadable pages. It reads through
// read-only connections, so it works on a read-only file and never blocks
// writers. Damage is reported in the CheckReport, not as an error; the
// error is for a check that could not run at all.
func (db *DB) Check(ctx context.Context) (CheckReport, error) {
	rep := CheckReport{Problems: []string{}, Tables: []TableCount{}, Unreadable: []string{}, DamagedPages: []DamagedPage{}}
	// A connection of its own, new: FTS5's part of integrity_check trusts
	// the connection's cached copy of the search index structure, so a
	// pooled reader that searched before the writer changed the index
	// reports a false "fts5: checksum mismatch".
	pool, err := openPool(dsn(db.path, true), db.dmg)
	if err != nil {
		return rep, readError(err, "checking the database")
	}
	defer pool.Close()
	conn, err := pool.Conn(ctx)
	if err != nil {
		return rep, readError(err, "checking the database")
	}
	defer conn.Close()
	steps := []struct {
		name string
		run  func(context.Context, *sql.Conn, *CheckReport) error
	}{{"the integrity check", checkIntegrity}, {"the check of references between rows", checkForeignKeys}, {"counting", db.checkCounts}}
	for _, step := range steps {
		if err := step.run(ctx, conn, &rep); err != nil {
			if !isCorrupt(err) {
				return rep, readError(err, "checking the database")
			}
			rep.Problems = append(rep.Problems, step.name+" stopped at a damaged page: "+err.Error())
		}
	}
	rep.DamagedPages = damagedPages(ctx, conn, rep.Problems)
	rep.SizeBytes = fileSize(db.path) + fileSize(db.path+"-wal")
	rep.OK = len(rep.Problems) == 0 && len(rep.Unreadable) == 0
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
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return fileError(err, "creating the folder for the backup "+abs)
	}
	// An empty file of our own first: VACUUM INTO fills an empty file, so
	// O_EXCL makes "never overwrite" hold even against a file made since,
	// and a folder we cannot write to is named as such.
	f, err := os.OpenFile(abs, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return backupExists(abs, err)
	}
	if err != nil {
		return fileError(err, "writing the backup "+abs)
	}
	f.Close()
	if err := db.vacuumInto(ctx, abs); err != nil {
		_ = os.Remove(abs)
		return db.backupError(ctx, err, abs)
	}
	if err := os.Chmod(abs, 0o600); err != nil {
		return apperr.Wrap(err, apperr.Unavailable, "The backup %s was written but its permissions could not be restricted; it is readable by others until you change them.", abs)
	}
	return nil
}

// backupError names why a backup failed: the source is damaged (a backup
// copies pages as they are, so it cannot copy a damaged one: salvage
// copies what is readable), the disk is full, the place is not writable.
func (db *DB) backupError(ctx context.Context, err error, abs string) error {
	doing := "writing the backup " + abs
	switch {
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		return apperr.Wrap(err, apperr.Cancelled, "The backup was cancelled; the partial file was removed.")
	case isCorrupt(err):
		return apperr.Wrap(db.dmg.asError(err, doing), apperr.Damaged,
			"The backup was not written: the database %s is damaged, and a backup copies every page as it is. "+
				"Run `agentdeck db check --db %s` to see what is damaged, and `agentdeck db salvage %s --db %s` to copy everything readable instead.",
			db.path, db.path, abs, db.path)
	case IsDiskFull(err):
		return apperr.Wrap(err, apperr.Unavailable, "The backup %s was not written: the disk is full. Free some space or choose another place; the partial file was removed.", abs)
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM:
			return apperr.Wrap(err, apperr.Unavailable, "The backup %s was not written: the file cannot be written there (%s). Choose a folder you can write to.", abs, se.Error())
		}
		return apperr.Wrap(err, apperr.Unavailable, "%s failed: %s. The partial file was removed.", capitalize(doing), se.Error())
	}
	return writeError(err, doing)
}

// vacuumInto runs VACUUM INTO on a connection of its own: the reader pool
// is query_only, which forbids it, and the writer would hold up every
// write for the length of the copy. Opened read-only, the connection only
// takes a read snapshot, so it also backs up a database on a read-only
// file.
func (db *DB) vacuumInto(ctx context.Context, path string) error {
	conn, err := openPool(dsn(db.path, false)+"&mode=ro", db.dmg)
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
		var text string
		if err := rows.Scan(&text); err != nil {
			return err
		}
		// A row may hold several findings, one a line.
		for _, line := range strings.Split(text, "\n") {
			if line = strings.TrimSpace(line); line != "" && line != "ok" && line != "*** in database main ***" {
				rep.Problems = append(rep.Problems, line)
			}
		}
	}
	return rows.Err()
}

var treePage = regexp.MustCompile(`Tree (\d+) page (\d+)`)

// damagedPages reads "Tree R page P" in integrity_check's findings and
// names the table or index whose b-tree has root page R.
func damagedPages(ctx context.Context, conn *sql.Conn, problems []string) []DamagedPage {
	out := []DamagedPage{}
	roots := map[int64]string{}
	if rows, err := conn.QueryContext(ctx, `SELECT rootpage, name FROM sqlite_master WHERE rootpage > 0`); err == nil {
		for rows.Next() {
			var root int64
			var name string
			if rows.Scan(&root, &name) == nil {
				roots[root] = name
			}
		}
		rows.Close()
	}
	seen := map[int64]bool{}
	for _, p := range problems {
		for _, m := range treePage.FindAllStringSubmatch(p, -1) {
			root, _ := strconv.ParseInt(m[1], 10, 64)
			page, _ := strconv.ParseInt(m[2], 10, 64)
			if !seen[page] {
				seen[page] = true
				out = append(out, DamagedPage{Table: roots[root], Page: page})
			}
		}
	}
	return out
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

// countedTables are the tables db check counts.
var countedTables = []string{"sessions", "turns", "events", "messages"}

// checkCounts counts each table on its own. NOT INDEXED makes COUNT read
// the table's own pages (not a smaller index), so a damaged one is found;
// it is then counted by walking around its unreadable pages.
func (db *DB) checkCounts(ctx context.Context, conn *sql.Conn, rep *CheckReport) error {
	v, err := currentVersion(ctx, conn)
	if err != nil {
		return err
	}
	rep.SchemaVersion = v
	for _, t := range countedTables {
		// Rows, in every table and whether it is whole or damaged, as
		// salvage counts them; the events they hold are counted too.
		c := TableCount{Name: t, Complete: true}
		events := int64(0)
		err := conn.QueryRowContext(ctx, `SELECT COUNT(*), `+eventsIn(t)+` FROM `+t+` NOT INDEXED`).Scan(&c.Rows, &events)
		if err != nil && !isCorrupt(err) {
			return err
		}
		if err != nil {
			c.Complete = false
			if c.Rows, events, err = db.walkCount(ctx, t); err != nil {
				return err
			}
			rep.Unreadable = append(rep.Unreadable, t)
		}
		rep.Tables = append(rep.Tables, c)
		switch t {
		case "sessions":
			rep.Sessions = c.Rows
		case "turns":
			rep.Turns = c.Rows
		case "events":
			rep.Events = events
		case "messages":
			rep.Messages = c.Rows
		}
	}
	return nil
}

// eventsIn is the SQL that counts the events of table's rows: a row of
// events holds run_len of them (a run of streamed tokens is one row).
func eventsIn(table string) string {
	if table == "events" {
		return "COALESCE(SUM(run_len), 0)"
	}
	return "0"
}

// walkCount counts the readable rows of a damaged table, and for events
// the events they hold.
func (db *DB) walkCount(ctx context.Context, table string) (rows, events int64, err error) {
	w := walker{src: db, table: table, st: &SalvageTable{}}
	if table != "events" {
		err := w.byRowid(ctx, func([]any) error { rows++; return nil })
		return rows, 0, err
	}
	w.keys, w.firstK2 = [2]string{"turn_id", "seq"}, &eventsFirstSeq
	w.cols = []string{"turn_id", "seq", "run_len"}
	// The turns' ids, from their primary key's index: where the walk
	// goes on after an unreadable stretch of events.
	if rs, err := db.reader.QueryContext(ctx, `SELECT id FROM turns ORDER BY id`); err == nil {
		for rs.Next() {
			var id string
			if rs.Scan(&id) != nil {
				break
			}
			w.parents = append(w.parents, id)
		}
		rs.Close()
	}
	err = w.byPair(ctx, func(vals []any) error {
		rows++
		events += max(num(vals[2]), 1)
		return nil
	})
	return rows, events, err
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

// Damage to the file is noticed when a statement first meets SQLite's
// corruption error, not by checking the whole file when it opens (that
// is `db check`, and would make every start as slow as the file is big).
// Every connection of a DB goes through watchConnector, so a statement
// anywhere in the store (the event log, an import, a read) that meets a
// damaged page marks the DB damaged for the rest of the process, and the
// error it returns knows which file it came from. From then on:
//
//   - reads and writes that fail for that reason return apperr.Damaged,
//     naming the file, what still works and what to do next;
//   - StartTurn refuses to write a new turn unless forced;
//   - recovery of dead turns leaves the file alone.

// Damaged reports whether a read or a write of this process met damage
// in the file, and if so a short reason ("the events table has a damaged
// page").
func (db *DB) Damaged() (bool, string) {
	return db.dmg.state()
}

// DamageError is the cause carried by an apperr.Damaged error: which file,
// what was being done, and what was met.
type DamageError struct {
	Path string
	// Doing is what failed, as a person would say it ("reading the events
	// of turn 0192…").
	Doing string
	// Reason is the damage the process knows of (see DB.Damaged).
	Reason string
	// Refused: nothing failed; Agentdeck declined to write into the file.
	// Declined is then what it did not do ("start the turn").
	Refused  bool
	Declined string
	Err      error
}

func (e *DamageError) Error() string {
	msg := fmt.Sprintf("%s: %s is damaged (%s)", e.Doing, e.Path, e.Reason)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *DamageError) Unwrap() error { return e.Err }

// Short is the failure in one sentence, without the advice: for a
// command line that already printed the advice once.
func (e *DamageError) Short() string {
	if e.Refused {
		return fmt.Sprintf("Agentdeck did not %s: the database is damaged (%s). Pass --force to write into it anyway.", e.Declined, e.Reason)
	}
	return fmt.Sprintf("%s failed: %s.", capitalize(e.Doing), e.Reason)
}

// RefuseWrite is the one check before a write into a file known to be
// damaged (a read or a write of this process met damage, or an earlier
// one left the mark): nil if none is known or force is set, else an
// apperr.Damaged error that says what was not done (what: "import the
// session"), why, and how to go on. Writing into a damaged file can spread
// the damage (SQLite may reuse a damaged page), and a salvage copies
// everything readable into a new file, where the write is safe. StartTurn
// refuses the same way; every command of the command line that writes
// asks it first (cli's mayWrite).
func (db *DB) RefuseWrite(what string, force bool) error {
	if met, _ := db.Damaged(); !met || force {
		return nil
	}
	return db.refusal(nil, what, "Pass --force to write into the damaged file anyway")
}

// refusal is the Damaged error of a write not done into the damaged file:
// what was not done, why, how to insist, and the safer way on. cause is
// the read that met the damage, if this call met it.
func (db *DB) refusal(cause error, what, insist string) error {
	de := db.dmg.asError(cause, "declining to "+what)
	de.Refused, de.Declined = true, what
	return apperr.Wrap(de, apperr.Damaged,
		"Agentdeck did not %s: the database %s is damaged (%s), and this would write into it. "+
			"%s, or first copy everything readable into a new file with `agentdeck db salvage NEW_FILE --db %s` and use that.",
		what, db.path, de.Reason, insist, db.path)
}

// DamageAdvice says what still works and what to do next about a damaged
// file at path.
func DamageAdvice(path string) string {
	return fmt.Sprintf("What is readable can still be read; Agentdeck writes nothing new into it unless you insist. "+
		"Run `agentdeck db check --db %s` to see what is damaged, then `agentdeck db salvage NEW_FILE --db %s` to copy everything readable into a new database.", path, path)
}

// damage is what a DB knows about damage to its file. Safe for concurrent
// use: every connection of the DB reports to it.
//
// Damage met once is remembered across processes by a mark beside the
// file (DamageMark): a later command that would only touch intact pages
// (a run into a new session) knows the file is damaged too, and refuses
// to write into it. A `db check` that finds the file sound removes the
// mark (ClearDamageMark).
type damage struct {
	path     string
	onDamage func(reason string)

	mu  sync.Mutex
	met bool
	// certain are tables a statement that read only them met damage in;
	// maybe are the tables of the first statement that met it, when it
	// read several.
	certain, maybe []string
	// earlier is the reason an earlier process left in the mark.
	earlier string
}

func newDamage(path string, onDamage func(string)) *damage {
	d := &damage{path: path, onDamage: onDamage}
	d.met, d.earlier = MarkedDamaged(path)
	return d
}

// DamageMark is the file beside the database at path that says it was
// found damaged.
func DamageMark(path string) string { return path + ".damaged" }

// MarkedDamaged reports whether the mark beside the database at path
// says an earlier process found it damaged, and why, without opening it.
func MarkedDamaged(path string) (bool, string) {
	b, err := os.ReadFile(DamageMark(path))
	if err != nil {
		return false, ""
	}
	if reason := strings.TrimSpace(string(b)); reason != "" {
		return true, reason
	}
	return true, "damage was found in it earlier"
}

// ClearDamageMark forgets damage found earlier: a full check found the
// file sound (db check). Damage met by this process stays known to it.
func (db *DB) ClearDamageMark() error {
	if err := os.Remove(DamageMark(db.path)); err != nil && !os.IsNotExist(err) {
		return err
	}
	db.dmg.mu.Lock()
	defer db.dmg.mu.Unlock()
	if db.dmg.earlier != "" && len(db.dmg.certain) == 0 && len(db.dmg.maybe) == 0 {
		db.dmg.met = false
	}
	db.dmg.earlier = ""
	return nil
}

func (d *damage) state() (bool, string) {
	if d == nil {
		return false, "" // a DB made by hand in a test
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.met, d.reasonLocked()
}

func (d *damage) reasonLocked() string {
	switch {
	case !d.met:
		return ""
	case len(d.certain) == 1:
		return "the " + d.certain[0] + " table has a damaged page"
	case len(d.certain) > 1:
		return "the " + orList(d.certain, "and") + " tables have damaged pages"
	case len(d.maybe) > 0:
		return "a damaged page was met reading the " + orList(d.maybe, "or") + " table"
	case d.earlier != "":
		return d.earlier
	}
	return "a page of the file cannot be read"
}

// orList joins names as "a, b or c".
func orList(names []string, conj string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + conj + " " + names[len(names)-1]
}

// note records that query met damage; the first time, it tells onDamage.
func (d *damage) note(query string) {
	if d == nil {
		return
	}
	tables := tablesOf(query)
	d.mu.Lock()
	first := !d.met
	d.met = true
	switch {
	case len(tables) == 1 && !slices.Contains(d.certain, tables[0]):
		d.certain = append(d.certain, tables[0])
		slices.Sort(d.certain)
	case len(tables) > 1 && d.maybe == nil:
		d.maybe = slices.Sorted(slices.Values(tables))
	}
	reason := d.reasonLocked()
	d.mu.Unlock()
	if first {
		// Best effort: a full or read-only disk keeps it to this process.
		_ = os.WriteFile(DamageMark(d.path), []byte(reason+"\n"), 0o600)
		if d.onDamage != nil {
			d.onDamage(reason)
		}
	}
}

// asError is the apperr.Damaged cause for a failure while doing.
func (d *damage) asError(err error, doing string) *DamageError {
	_, reason := d.state()
	if d == nil {
		return &DamageError{Doing: doing, Reason: reason, Err: err}
	}
	return &DamageError{Path: d.path, Doing: doing, Reason: reason, Err: err}
}

// wrap gives an error SQLite returned for query the DB's damage state,
// and notes damage if the error is corruption.
func (d *damage) wrap(err error, query string) error {
	var se *sqlite.Error
	if err == nil || !errors.As(err, &se) {
		return err
	}
	if isCorruptCode(se.Code()) {
		d.note(query)
	}
	return &sqlError{dmg: d, err: err}
}

// sqlError is an error SQLite returned through one of a DB's connections.
// Its text is SQLite's; it carries the DB's damage state so readError and
// writeError can name the damaged file.
type sqlError struct {
	dmg *damage
	err error
}

func (e *sqlError) Error() string { return e.err.Error() }
func (e *sqlError) Unwrap() error { return e.err }

// isCorruptCode reports SQLite's codes for a damaged file: a malformed
// page or index (SQLITE_CORRUPT and its extended codes) and a file that
// is not a database (SQLITE_NOTADB).
func isCorruptCode(code int) bool {
	switch code & 0xff {
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return true
	}
	return false
}

// isCorrupt reports whether err is SQLite's corruption error.
func isCorrupt(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && isCorruptCode(se.Code())
}

// damageOf returns the damage state of the DB err came from, nil for an
// error that did not come through a DB's connection.
func damageOf(err error) *damage {
	var se *sqlError
	if errors.As(err, &se) {
		return se.dmg
	}
	return nil
}

var tableRef = regexp.MustCompile(`(?i)\b(?:from|join|into|update)\s+([a-z_][a-z0-9_]*)`)

// tablesOf lists the tables a statement names, to say where damage was
// met. It is a guess from the text, good enough for a message.
func tablesOf(query string) []string {
	var out []string
	for _, m := range tableRef.FindAllStringSubmatch(query, -1) {
		t := strings.ToLower(m[1])
		if strings.HasPrefix(t, "sqlite_") || t == "pragma_table_info" || t == "dbstat" || t == "json_each" {
			continue
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// openPool opens a pool of connections to dsn that report damage to dmg.
func openPool(dsn string, dmg *damage) (*sql.DB, error) {
	c, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(&watchConnector{inner: c, dmg: dmg}), nil
}

// The wrappers below pass every call to modernc's driver and give its
// errors to damage.wrap. They implement the same optional interfaces as
// its connection, statement and rows, so database/sql behaves the same.

// sqliteConn is what modernc's connection implements and we use.
type sqliteConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

type sqliteStmt interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

type watchConnector struct {
	inner driver.Connector
	dmg   *damage
}

func (c *watchConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, c.dmg.wrap(err, "")
	}
	sc, ok := conn.(sqliteConn)
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("the sqlite driver's connection (%T) lacks an interface the store needs", conn)
	}
	return &watchConn{inner: sc, dmg: c.dmg}, nil
}

func (c *watchConnector) Driver() driver.Driver { return c.inner.Driver() }

type watchConn struct {
	inner sqliteConn
	dmg   *damage
}

func (c *watchConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *watchConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	s, err := c.inner.PrepareContext(ctx, query)
	if err != nil {
		return nil, c.dmg.wrap(err, query)
	}
	ss, ok := s.(sqliteStmt)
	if !ok {
		s.Close()
		return nil, fmt.Errorf("the sqlite driver's statement (%T) lacks an interface the store needs", s)
	}
	return &watchStmt{inner: ss, dmg: c.dmg, query: query}, nil
}

func (c *watchConn) Close() error { return c.inner.Close() }

func (c *watchConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *watchConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	tx, err := c.inner.BeginTx(ctx, opts)
	if err != nil {
		return nil, c.dmg.wrap(err, "")
	}
	return &watchTx{inner: tx, dmg: c.dmg}, nil
}

func (c *watchConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	r, err := c.inner.ExecContext(ctx, query, args)
	return r, c.dmg.wrap(err, query)
}

func (c *watchConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	r, err := c.inner.QueryContext(ctx, query, args)
	if err != nil {
		return nil, c.dmg.wrap(err, query)
	}
	return &watchRows{inner: r, dmg: c.dmg, query: query}, nil
}

func (c *watchConn) Ping(ctx context.Context) error { return c.dmg.wrap(c.inner.Ping(ctx), "") }

func (c *watchConn) ResetSession(ctx context.Context) error { return c.inner.ResetSession(ctx) }

func (c *watchConn) IsValid() bool { return c.inner.IsValid() }

type watchStmt struct {
	inner sqliteStmt
	dmg   *damage
	query string
}

func (s *watchStmt) Close() error  { return s.inner.Close() }
func (s *watchStmt) NumInput() int { return s.inner.NumInput() }

func (s *watchStmt) Exec(args []driver.Value) (driver.Result, error) {
	r, err := s.inner.Exec(args) //nolint:staticcheck // the driver.Stmt interface
	return r, s.dmg.wrap(err, s.query)
}

func (s *watchStmt) Query(args []driver.Value) (driver.Rows, error) {
	r, err := s.inner.Query(args) //nolint:staticcheck // the driver.Stmt interface
	if err != nil {
		return nil, s.dmg.wrap(err, s.query)
	}
	return &watchRows{inner: r, dmg: s.dmg, query: s.query}, nil
}

func (s *watchStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	r, err := s.inner.ExecContext(ctx, args)
	return r, s.dmg.wrap(err, s.query)
}

func (s *watchStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	r, err := s.inner.QueryContext(ctx, args)
	if err != nil {
		return nil, s.dmg.wrap(err, s.query)
	}
	return &watchRows{inner: r, dmg: s.dmg, query: s.query}, nil
}

type watchRows struct {
	inner driver.Rows
	dmg   *damage
	query string
}

func (r *watchRows) Columns() []string { return r.inner.Columns() }
func (r *watchRows) Close() error      { return r.dmg.wrap(r.inner.Close(), r.query) }

// Next returns io.EOF unchanged: wrap only touches SQLite's errors.
func (r *watchRows) Next(dest []driver.Value) error {
	return r.dmg.wrap(r.inner.Next(dest), r.query)
}

type watchTx struct {
	inner driver.Tx
	dmg   *damage
}

func (t *watchTx) Commit() error   { return t.dmg.wrap(t.inner.Commit(), "") }
func (t *watchTx) Rollback() error { return t.dmg.wrap(t.inner.Rollback(), "") }

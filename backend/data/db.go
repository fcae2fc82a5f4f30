package data

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"modernc.org/sqlite"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

// DB is one session's attached data. It is safe for concurrent use.
type DB struct {
	path   string
	writer *sql.DB // one connection: imports
	reader *sql.DB // read-only pool: queries, listings

	mu       sync.Mutex
	limits   Limits
	datasets map[string]dataset

	closeOnce sync.Once
	closeErr  error

	// importHook, when set (tests only), runs before each row of an
	// import's insert pass; an error aborts the import.
	importHook func(row int64) error
	// countCap is countCap; tests lower it.
	countCap int
}

// Limits bound what one DB accepts and returns. Zero fields take defaults.
type Limits struct {
	MaxFileBytes   int64         // largest file Attach accepts (default 100 MiB)
	MaxRows        int           // rows of a query result returned (default 200)
	QueryTimeout   time.Duration // longest a query may run (default 5s)
	MaxDatasetRows int           // rows kept per dataset for charts (default 5000)
}

// DefaultLimits returns the limits a DB starts with.
func DefaultLimits() Limits {
	return Limits{MaxFileBytes: 100 << 20, MaxRows: 200, QueryTimeout: 5 * time.Second, MaxDatasetRows: 5000}
}

// or returns l with its zero (or negative) fields taken from def.
func (l Limits) or(def Limits) Limits {
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = def.MaxFileBytes
	}
	if l.MaxRows <= 0 {
		l.MaxRows = def.MaxRows
	}
	if l.QueryTimeout <= 0 {
		l.QueryTimeout = def.QueryTimeout
	}
	if l.MaxDatasetRows <= 0 {
		l.MaxDatasetRows = def.MaxDatasetRows
	}
	return l
}

// Table describes an attached file.
type Table struct {
	Name    string   `json:"name"`
	Source  string   `json:"source"` // the file name it came from
	Columns []Column `json:"columns"`
	Rows    int64    `json:"rows"`
}

// Column is one column of a Table.
type Column struct {
	Name string `json:"name"`
	// Type is INTEGER, REAL, TEXT, BOOLEAN (stored as 1/0) or DATE (ISO text).
	Type string `json:"type"`
}

// Column types as reported in Column.Type.
const (
	TypeInteger = "INTEGER"
	TypeReal    = "REAL"
	TypeText    = "TEXT"
	TypeBoolean = "BOOLEAN"
	TypeDate    = "DATE"
)

// metaTable records what each table came from. Its name cannot be produced
// by tableName, which never starts with '_'.
const metaTable = "_agentdeck_tables"

// Open opens (creating if needed) the session database at path.
func Open(ctx context.Context, path string) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, apperr.Wrap(err, apperr.Unavailable, "cannot create the folder for the session data %s; check that it is writable", filepath.Dir(path))
	}
	// SQLite would create the file with the umask's permissions; create it
	// first so it is private. The -wal and -shm files copy its mode.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, openError(path, err)
	}
	f.Close()

	writer, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		return nil, openError(path, err)
	}
	writer.SetMaxOpenConns(1)
	if _, err := writer.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+metaTable+` (
		name        TEXT PRIMARY KEY,
		source      TEXT NOT NULL,
		columns     TEXT NOT NULL,
		rows        INTEGER NOT NULL,
		attached_at TEXT NOT NULL
	)`); err != nil {
		writer.Close()
		return nil, openError(path, err)
	}

	drv := &sqlite.Driver{}
	drv.RegisterConnectionHook(installAuthorizer)
	reader := sql.OpenDB(connector{drv: drv, dsn: dsn(path, true)})
	reader.SetMaxOpenConns(4)
	if err := reader.PingContext(ctx); err != nil {
		reader.Close()
		writer.Close()
		return nil, openError(path, err)
	}
	return &DB{path: path, writer: writer, reader: reader, limits: DefaultLimits(), datasets: map[string]dataset{}, countCap: countCap}, nil
}

// Close closes every connection. Calling it again returns the first result.
func (d *DB) Close() error {
	d.closeOnce.Do(func() {
		d.closeErr = errors.Join(d.reader.Close(), d.writer.Close())
	})
	return d.closeErr
}

// Path returns the database file.
func (d *DB) Path() string { return d.path }

// SetLimits sets the limits Attach, Query and Datasets use. Zero fields
// take the defaults. Tools takes its own.
func (d *DB) SetLimits(lim Limits) {
	d.mu.Lock()
	d.limits = lim.or(DefaultLimits())
	d.mu.Unlock()
}

// Limits returns the limits Attach, Query and Datasets use.
func (d *DB) Limits() Limits {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.limits
}

// Tables lists the attached tables in the order they were attached.
func (d *DB) Tables(ctx context.Context) ([]Table, error) {
	rows, err := d.reader.QueryContext(ctx, `SELECT name, source, columns, rows FROM `+metaTable+` ORDER BY rowid`)
	if err != nil {
		return nil, dbError(ctx, err, "list the attached data")
	}
	defer rows.Close()
	var out []Table
	for rows.Next() {
		var t Table
		var cols string
		if err := rows.Scan(&t.Name, &t.Source, &cols, &t.Rows); err != nil {
			return nil, dbError(ctx, err, "list the attached data")
		}
		if err := json.Unmarshal([]byte(cols), &t.Columns); err != nil {
			return nil, apperr.Wrap(err, apperr.Internal, "the list of attached data is damaged")
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, dbError(ctx, err, "list the attached data")
	}
	return out, nil
}

// connector opens query connections through a private Driver, so the
// authorizer hook applies to this pool and to nothing else in the process.
type connector struct {
	drv *sqlite.Driver
	dsn string
}

func (c connector) Connect(context.Context) (driver.Conn, error) { return c.drv.Open(c.dsn) }
func (c connector) Driver() driver.Driver                        { return c.drv }

// installAuthorizer is the third read-only layer (see the package doc): it
// runs when each query connection opens, after the DSN's pragmas.
func installAuthorizer(c sqlite.ExecQuerierContext, _ string) error {
	reg, ok := c.(sqlite.AuthorizerRegisterer)
	if !ok {
		return fmt.Errorf("the sqlite driver does not support an authorizer")
	}
	return reg.RegisterAuthorizer(authorize)
}

// readOnlyPragmas are the pragmas whose table functions (pragma_table_info
// and so on) queries may use; all of them only report.
var readOnlyPragmas = map[string]bool{
	"table_info": true, "table_xinfo": true, "table_list": true, "index_list": true,
	"index_info": true, "index_xinfo": true, "foreign_key_list": true,
	"function_list": true, "collation_list": true, "compile_options": true,
}

func authorize(action sqlite.AuthorizerActionCode, arg1, arg2, _, _ string) sqlite.AuthorizerReturnCode {
	switch action {
	case sqlite.AuthSelect, sqlite.AuthRead, sqlite.AuthRecursive:
		return sqlite.AuthorizerOK
	case sqlite.AuthFunction:
		if arg2 == "load_extension" {
			return sqlite.AuthorizerDeny
		}
		return sqlite.AuthorizerOK
	case sqlite.AuthPragma:
		if readOnlyPragmas[arg1] {
			return sqlite.AuthorizerOK
		}
	}
	return sqlite.AuthorizerDeny
}

func dsn(path string, readOnly bool) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(5000)")
	if readOnly {
		q.Set("mode", "ro")
		q.Add("_pragma", "query_only(1)")
	} else {
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(NORMAL)")
		q.Set("_txlock", "immediate")
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

func openError(path string, err error) error {
	return apperr.Wrap(err, apperr.Unavailable,
		"cannot open the session data %s; check that the file and its folder are readable and writable", path)
}

// dbError maps an error from the database to an *apperr.Error: Cancelled
// when ctx ended, else Unavailable. doing is a verb phrase ("list the
// attached data").
func dbError(ctx context.Context, err error, doing string) error {
	if ctx.Err() != nil {
		return apperr.Wrap(ctx.Err(), apperr.Cancelled, "stopped before it could %s", doing)
	}
	return apperr.Wrap(err, apperr.Unavailable, "cannot %s", doing)
}

package data

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

// FuzzQueryGuard checks the guard on its own: every statement it accepts is
// run on a writable connection (no query_only, no authorizer) to a scratch
// database, which must come out unchanged.
func FuzzQueryGuard(f *testing.F) {
	for _, s := range []string{
		"SELECT * FROM t",
		"select a, b from t where a > 1 order by b limit 3",
		"WITH x AS (SELECT a FROM t) SELECT sum(a) FROM x",
		"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 5) SELECT x FROM c",
		"SELECT replace(b, 'a', 'b') FROM t",
		"SELECT 'DELETE FROM t' AS s",
		`SELECT "delete", [drop], ` + "`update`" + ` FROM t`,
		"SELECT * FROM pragma_table_info('t')",
		"SELECT * FROM v",
		"SELECT 1;",
		"SELECT 1; -- \n DROP TABLE t",
		"SELECT 1 /* ; */ ; DELETE FROM t",
		"SELECT 1; DELETE FROM t",
		"WITH x AS (SELECT 1) DELETE FROM t",
		"WITH x AS (SELECT 1) INSERT INTO t VALUES (9, 'z')",
		"WITH x AS (SELECT 1) UPDATE t SET a = 0",
		"WITH x AS (SELECT 1) REPLACE INTO t VALUES (1, 'q')",
		"INSERT INTO t VALUES (9, 'z')",
		"DROP TABLE t",
		"ATTACH DATABASE 'x.db' AS x",
		"PRAGMA writable_schema = 1",
		"SELECT 'a'';DROP TABLE t;--'",
		"SELECT [x;DROP TABLE t]",
		"SELECT \"a\"\"; DROP TABLE t; --\"",
		"SELECT 1 -- ok\r DROP TABLE t",
		"SELECT x'00'; VACUUM",
		"SELECT 1\x00; DROP TABLE t",
		"SELECT 1DELETE FROM t",
		"SELECT * FROM t WHERE b = $DELETE",
		"CREATE TEMP TABLE z AS SELECT 1",
		"SELECT * FROM t; ALTER TABLE t RENAME TO u",
	} {
		f.Add(s)
	}
	conn := scratchDB(f)
	f.Fuzz(func(t *testing.T, q string) {
		stmt, err := checkReadOnly(q)
		if err != nil {
			return
		}
		if !strings.HasPrefix(q, stmt) {
			t.Fatalf("checkReadOnly(%q) = %q, not a prefix", q, stmt)
		}
		before := fingerprint(t, conn)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		if rows, err := conn.QueryContext(ctx, stmt); err == nil {
			for i := 0; i < 50 && rows.Next(); i++ {
			}
			rows.Close()
		}
		cancel()
		if after := fingerprint(t, conn); after != before {
			t.Fatalf("the guard accepted %q and it changed the database:\nbefore %s\nafter  %s", q, before, after)
		}
	})
}

// scratchDB returns a connection to a small writable database: a table t
// with an index and a view over it.
func scratchDB(f *testing.F) *sql.Conn {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(f.TempDir(), "scratch.db")+"?_pragma=busy_timeout(1000)")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { conn.Close() })
	// Values stay small, so a statement like SELECT zeroblob(1e9) fails fast.
	if _, err := sqlite.Limit(conn, sqlite3.SQLITE_LIMIT_LENGTH, 1<<20); err != nil {
		f.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), `
		CREATE TABLE t (a INTEGER, b TEXT);
		INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'delete'), (5, NULL);
		CREATE INDEX t_b ON t (b);
		CREATE VIEW v AS SELECT a * 2 AS a2 FROM t;`); err != nil {
		f.Fatal(err)
	}
	return conn
}

// fingerprint sums up everything a statement could change: rows written on
// this connection, the schema (main and temp), the data, attached databases.
func fingerprint(t *testing.T, conn *sql.Conn) string {
	var changes, rows, dbs, temps, version int64
	var schema, data string
	err := conn.QueryRowContext(context.Background(), `SELECT total_changes(),
		(SELECT group_concat(type || ':' || name || ':' || coalesce(sql, ''), ';') FROM main.sqlite_schema),
		(SELECT count(*) FROM temp.sqlite_schema),
		(SELECT count(*) FROM t),
		(SELECT group_concat(a || '=' || coalesce(b, '-'), ',') FROM t),
		(SELECT count(*) FROM pragma_database_list),
		(SELECT schema_version FROM pragma_schema_version)`).Scan(&changes, &schema, &temps, &rows, &data, &dbs, &version)
	if err != nil {
		t.Fatalf("fingerprint: %v", err)
	}
	return strings.Join([]string{itoa64(changes), schema, itoa64(temps), itoa64(rows), data, itoa64(dbs), itoa64(version)}, " | ")
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

// FuzzAttachWorkbook feeds damaged workbooks to AttachAll: each must attach
// or fail with an *apperr.Error, never panic, and a failure must leave the
// database as it was.
func FuzzAttachWorkbook(f *testing.F) {
	kept, err := os.ReadFile(workbookFile)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(bytes.TrimPrefix(kept, []byte(zipMagic)))
	f.Add(kept[len(zipMagic) : len(kept)/2])
	f.Add([]byte{})
	d := mustOpen(f)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "fuzz.xlsx")
		if err := os.WriteFile(path, append([]byte(zipMagic), b...), 0o600); err != nil {
			t.Fatal(err)
		}
		before := len(schemaNames(t, d))
		tables, err := d.AttachAll(context.Background(), path)
		var ae *apperr.Error
		switch {
		case err == nil && len(tables) == 0:
			t.Fatal("AttachAll made no table and returned no error")
		case err != nil && !errors.As(err, &ae):
			t.Fatalf("AttachAll: %v (%T), not an *apperr.Error", err, err)
		case err != nil && len(schemaNames(t, d)) != before:
			t.Fatalf("AttachAll failed (%v) and left tables behind", err)
		}
	})
}

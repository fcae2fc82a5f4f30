package data

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

const salesCSV = "region,amount,paid\neast,10,true\nwest,20.5,false\neast,5,true\n"

func TestQuery(t *testing.T) {
	d := mustOpen(t)
	mustAttach(t, d, "sales.csv", salesCSV)
	res := mustQuery(t, d, `
		-- totals per region
		SELECT region, sum(amount) AS total, paid FROM sales GROUP BY region ORDER BY region;`)
	want := QueryResult{
		Columns:   []string{"region", "total", "paid"},
		Rows:      [][]any{{"east", 15.0, true}, {"west", 20.5, false}},
		TotalRows: 2,
	}
	if !reflect.DeepEqual(res, want) {
		t.Fatalf("Query =\n %#v\nwant\n %#v", res, want)
	}
	// A read-only pragma table function is allowed.
	res = mustQuery(t, d, `SELECT name, type FROM pragma_table_info('sales')`)
	if len(res.Rows) != 3 || res.Rows[2][1] != "BOOLEAN" {
		t.Fatalf("pragma_table_info = %v", res.Rows)
	}
	res = mustQuery(t, d, `SELECT replace(region, 'e', 'E') AS r FROM sales LIMIT 1`)
	if res.Rows[0][0] != "East" {
		t.Fatalf("replace() = %v", res.Rows)
	}
}

func TestGuardAccepts(t *testing.T) {
	tests := []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"  select 1 ;  ", "  select 1 "},
		{"SELECT 1; -- done", "SELECT 1"},
		{"SELECT 1;;", "SELECT 1"},
		{"/* hi */ WITH x AS (SELECT 1) SELECT * FROM x", "/* hi */ WITH x AS (SELECT 1) SELECT * FROM x"},
		{"SELECT 'DELETE; DROP TABLE t' AS x", "SELECT 'DELETE; DROP TABLE t' AS x"},
		{`SELECT "delete", [drop], ` + "`update`" + ` FROM t`, `SELECT "delete", [drop], ` + "`update`" + ` FROM t`},
		{"SELECT created_at, updated, dropped FROM t", "SELECT created_at, updated, dropped FROM t"},
		{"SELECT replace (name, 'a', 'b') FROM t", "SELECT replace (name, 'a', 'b') FROM t"},
		{"SELECT REPLACE/**/(name, 'a', 'b') FROM t", "SELECT REPLACE/**/(name, 'a', 'b') FROM t"},
		{"SELECT 'it''s' -- ; DROP\n", "SELECT 'it''s' -- ; DROP\n"},
		{"SELECT * FROM pragma_table_info('t')", "SELECT * FROM pragma_table_info('t')"},
	}
	for _, tt := range tests {
		got, err := checkReadOnly(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("checkReadOnly(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestQueryRefusesWrites(t *testing.T) {
	tests := []struct{ name, sql, want string }{
		{"insert", "INSERT INTO sales VALUES ('x', 1, 1)", `starts with "INSERT"`},
		{"drop", "DROP TABLE sales", `starts with "DROP"`},
		{"attach", "ATTACH DATABASE 'other.db' AS other", `starts with "ATTACH"`},
		{"pragma", "PRAGMA query_only = 0", `starts with "PRAGMA"`},
		{"update", "update sales set amount = 0", `starts with "update"`},
		{"replace into", "REPLACE INTO sales VALUES ('x', 1, 1)", `starts with "REPLACE"`},
		{"vacuum", "VACUUM", `starts with "VACUUM"`},
		{"empty", "  -- nothing\n", "empty"},
		{"only a semicolon", ";", "empty"},
		{"two statements", "SELECT 1; DROP TABLE sales", "one statement per call"},
		{"two selects", "SELECT 1; SELECT 2", "one statement per call"},
		{"write in a CTE", "WITH x AS (SELECT 1) DELETE FROM sales", "DELETE is not allowed"},
		{"write after a comment", "SELECT 1; -- \n DROP TABLE sales", "one statement per call"},
		{"comment hides nothing", "SELECT 1 /* ; */ ; delete from sales", "one statement per call"},
		{"keyword in a subquery", "SELECT * FROM sales WHERE amount IN (SELECT 1) UNION SELECT * FROM (DELETE FROM sales)", "DELETE is not allowed"},
		{"insert or replace in CTE", "WITH x AS (SELECT 1) INSERT OR REPLACE INTO sales SELECT * FROM sales", "INSERT is not allowed"},
		{"replace as keyword", "WITH x AS (SELECT 1) REPLACE INTO sales SELECT * FROM sales", "REPLACE is not allowed"},
		{"attach after select", "SELECT 1 ATTACH 'x' AS y", "ATTACH is not allowed"},
		{"word glued to a number", "SELECT 1DELETE", "DELETE is not allowed"},
		{"unterminated string", "SELECT 'abc; DROP TABLE sales", "unterminated string literal"},
		{"unterminated identifier", `SELECT "abc`, "unterminated quoted identifier"},
		{"nul byte", "SELECT 1\x00; DROP TABLE sales", "NUL"},
		{"explain", "EXPLAIN SELECT 1", `starts with "EXPLAIN"`},
		{"begin", "BEGIN; SELECT 1", `starts with "BEGIN"`},
	}
	d := mustOpen(t)
	mustAttach(t, d, "sales.csv", salesCSV)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := d.Query(context.Background(), tt.sql)
			wantAppErr(t, err, apperr.Invalid, tt.want)
			if got := schemaNames(t, d); !reflect.DeepEqual(got, []string{"sales"}) {
				t.Fatalf("schema = %v", got)
			}
			if n := count(t, d, "sales"); n != 3 {
				t.Fatalf("sales has %d rows, want 3", n)
			}
		})
	}
}

// The query pool itself refuses writes, whatever gets past the guard.
func TestQueryPoolIsReadOnly(t *testing.T) {
	d := mustOpen(t)
	mustAttach(t, d, "sales.csv", salesCSV)
	other := filepath.Join(t.TempDir(), "other.db")
	for _, q := range []string{
		"INSERT INTO sales VALUES ('x', 1, 1)",
		"DELETE FROM sales",
		"CREATE TABLE x (a)",
		"PRAGMA query_only = 0",
		"ATTACH DATABASE '" + other + "' AS other",
		"SELECT load_extension('x')",
		"BEGIN IMMEDIATE",
	} {
		if _, err := d.reader.Exec(q); err == nil {
			t.Errorf("%s: no error on the query pool", q)
		}
	}
	if n := count(t, d, "sales"); n != 3 {
		t.Fatalf("sales has %d rows, want 3", n)
	}
	if got := schemaNames(t, d); !reflect.DeepEqual(got, []string{"sales"}) {
		t.Fatalf("schema = %v", got)
	}
}

func TestQueryTimesOut(t *testing.T) {
	d := mustOpen(t)
	d.SetLimits(Limits{QueryTimeout: 100 * time.Millisecond})
	// An endless query: only the timeout can end it (the test's own
	// timeout catches one that never fires).
	_, err := d.Query(context.Background(), "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c")
	wantAppErr(t, err, apperr.Invalid, "ran longer than 100ms", "LIMIT", "aggregate")
	// The pool still works after an interrupt. A loaded machine may take
	// longer than 100 ms even for this, so the limit goes back to normal.
	d.SetLimits(Limits{})
	if res := mustQuery(t, d, "SELECT 1"); len(res.Rows) != 1 {
		t.Fatalf("after the timeout: %v", res)
	}
}

func TestQueryCancelled(t *testing.T) {
	d := mustOpen(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := d.Query(ctx, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c")
	wantAppErr(t, err, apperr.Cancelled, "stopped")
}

func TestQueryTruncates(t *testing.T) {
	var b strings.Builder
	b.WriteString("n,label\n")
	for i := 1; i <= 500; i++ {
		fmt.Fprintf(&b, "%d,%s\n", i, strings.Repeat("x", i%100))
	}
	d := mustOpen(t)
	d.SetLimits(Limits{MaxRows: 10})
	mustAttach(t, d, "nums.csv", b.String())

	res := mustQuery(t, d, "SELECT n FROM nums ORDER BY n")
	if len(res.Rows) != 10 || !res.Truncated || res.TotalRows != 500 || res.Rows[9][0] != int64(10) {
		t.Fatalf("rows %d, truncated %v, total %d", len(res.Rows), res.Truncated, res.TotalRows)
	}
	if tbl := res.Table(); !strings.Contains(tbl, "showing the first 10 of 500 rows") {
		t.Errorf("Table() =\n%s", tbl)
	}
	res = mustQuery(t, d, "SELECT n FROM nums WHERE n <= 10")
	if len(res.Rows) != 10 || res.Truncated || res.TotalRows != 10 {
		t.Fatalf("exactly MaxRows: rows %d, truncated %v, total %d", len(res.Rows), res.Truncated, res.TotalRows)
	}
	// Too many rows to count: the total is unknown.
	d.countCap = 100
	res = mustQuery(t, d, "SELECT n FROM nums")
	if !res.Truncated || res.TotalRows != -1 {
		t.Fatalf("uncounted: truncated %v, total %d", res.Truncated, res.TotalRows)
	}
	if tbl := res.Table(); !strings.Contains(tbl, "showing the first 10 rows; there are more") {
		t.Errorf("Table() =\n%s", tbl)
	}
}

func TestQueryErrorsKeepSQLiteWords(t *testing.T) {
	d := mustOpen(t)
	mustAttach(t, d, "sales.csv", salesCSV)
	tests := []struct{ sql, want string }{
		{"SELECT nosuch FROM sales", "SQLite error: no such column: nosuch. Call list_data"},
		{"SELECT * FROM nosuch", "SQLite error: no such table: nosuch. Call list_data"},
		{"SELECT FROM", "SQLite error: "},
		{"SELECT zeroblob(1000000000)", "string or blob too big"},
	}
	for _, tt := range tests {
		_, err := d.Query(context.Background(), tt.sql)
		wantAppErr(t, err, apperr.Invalid, tt.want)
	}
}

func TestResultTable(t *testing.T) {
	res := QueryResult{
		Columns: []string{"name", "n|x", "f", "b", "blob"},
		Rows: [][]any{
			{"a|b\nc", int64(3), 1.5, true, []byte{0xff}},
			{strings.Repeat("é", 100), nil, 1e20, false, nil},
		},
		TotalRows: 2,
	}
	want := "| name | n\\|x | f | b | blob |\n" +
		"| --- | --- | --- | --- | --- |\n" +
		"| a\\|b\\nc | 3 | 1.5 | true | <blob, 1 bytes> |\n" +
		"| " + strings.Repeat("é", 59) + "… | NULL | 1e+20 | false | NULL |\n"
	if got := res.Table(); got != want {
		t.Fatalf("Table() =\n%s\nwant\n%s", got, want)
	}
	if got := (QueryResult{Columns: []string{"a"}, TotalRows: 0}).Table(); got != "| a |\n| --- |\n(no rows)\n" {
		t.Fatalf("empty Table() = %q", got)
	}
}

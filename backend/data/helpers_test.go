package data

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

// mustOpen opens a fresh DB in a temp dir and closes it with the test.
func mustOpen(t testing.TB) *DB {
	t.Helper()
	d, err := Open(context.Background(), filepath.Join(t.TempDir(), "session", "data.db"))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// writeFile writes content to a file called name in a fresh temp dir.
func writeFile(t testing.TB, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// mustAttach attaches a file with the given name and content.
func mustAttach(t testing.TB, d *DB, name, content string) Table {
	t.Helper()
	tbl, err := d.Attach(context.Background(), writeFile(t, name, content))
	if err != nil {
		t.Fatalf("Attach(%s): %v", name, err)
	}
	return tbl
}

// mustQuery runs q and fails the test on an error.
func mustQuery(t testing.TB, d *DB, q string) QueryResult {
	t.Helper()
	res, err := d.Query(context.Background(), q)
	if err != nil {
		t.Fatalf("Query(%q): %v", q, err)
	}
	return res
}

// schemaNames lists every object in the database but the metadata table,
// read through the writer so nothing can hide it.
func schemaNames(t testing.TB, d *DB) []string {
	t.Helper()
	rows, err := d.writer.Query(`SELECT name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_autoindex%' AND name != ?`, metaTable)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// wantAppErr checks that err is an *apperr.Error with code and a message
// containing every fragment (case-insensitively).
func wantAppErr(t testing.TB, err error, code apperr.Code, fragments ...string) {
	t.Helper()
	var ae *apperr.Error
	if !errors.As(err, &ae) {
		t.Fatalf("error %v (%T) is not an *apperr.Error", err, err)
	}
	if ae.Code != code {
		t.Errorf("code = %s, want %s (message %q)", ae.Code, code, ae.Message)
	}
	for _, f := range fragments {
		if !strings.Contains(strings.ToLower(ae.Message), strings.ToLower(f)) {
			t.Errorf("message %q does not contain %q", ae.Message, f)
		}
	}
}

// count returns the rows of table, read through the writer.
func count(t testing.TB, d *DB, table string) int {
	t.Helper()
	var n int
	if err := d.writer.QueryRow("SELECT count(*) FROM " + quoteIdent(table)).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

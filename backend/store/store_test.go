package store

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

// mustOpen opens a fresh database in a temp dir and closes it with the test.
func mustOpen(t *testing.T) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "agentdeck.db"), Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestOpenAppliesEveryMigration(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	ms, err := loadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	v, err := db.SchemaVersion(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if v != len(ms) || v == 0 {
		t.Fatalf("schema version %d, want %d", v, len(ms))
	}
	var mode string
	if err := db.writer.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v; want wal", mode, err)
	}
	var fk int
	if err := db.reader.QueryRow("PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
		t.Fatalf("foreign_keys = %d, %v; want 1", fk, err)
	}
}

func TestReopenIsIdempotent(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "a.db")
	for i := 0; i < 3; i++ {
		db, err := Open(context.Background(), path, Options{})
		if err != nil {
			t.Fatalf("open #%d: %v", i+1, err)
		}
		var n int
		db.reader.QueryRow("SELECT COUNT(*) FROM schema_migrations").Scan(&n)
		db.Close()
		if ms, _ := loadMigrations(migrationFiles); n != len(ms) {
			t.Fatalf("open #%d: %d migration rows, want %d", i+1, n, len(ms))
		}
	}
}

func TestReadersCannotWrite(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	_, err := db.reader.Exec(`INSERT INTO app_meta (key, value) VALUES ('k', 'v')`)
	if err == nil {
		t.Fatal("a write through the reader pool succeeded")
	}
}

func TestNewerDatabaseIsRefusedAndLeftAlone(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "future.db")
	db, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.writer.Exec(`INSERT INTO schema_migrations VALUES (999, '0999_future.sql', 'x')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before := readDBFile(t, path)

	_, err = Open(context.Background(), path, Options{})
	if err == nil {
		t.Fatal("a database from a newer version was opened")
	}
	if apperr.CodeOf(err) != apperr.Unavailable || !strings.Contains(apperr.MessageOf(err), "newer Agentdeck") {
		t.Fatalf("unclear error: %v", err)
	}
	if !bytes.Equal(before, readDBFile(t, path)) {
		t.Fatal("the newer database was modified")
	}
}

func TestGarbageFileGivesClearError(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "notes.db")
	os.WriteFile(path, bytes.Repeat([]byte("this is not sqlite "), 400), 0o600)
	_, err := Open(context.Background(), path, Options{})
	if err == nil {
		t.Fatal("opened a file that is not a database")
	}
	if msg := apperr.MessageOf(err); !strings.Contains(msg, "not an Agentdeck database") || !strings.Contains(msg, path) {
		t.Fatalf("message %q should name the file and the problem", msg)
	}
}

func TestUnwritableFolderGivesClearError(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		// root ignores permission bits; use a path under a regular file instead.
		dir := t.TempDir()
		file := filepath.Join(dir, "file")
		os.WriteFile(file, nil, 0o600)
		_, err := Open(context.Background(), filepath.Join(file, "sub", "a.db"), Options{})
		if err == nil || !strings.Contains(apperr.MessageOf(err), "--db") {
			t.Fatalf("want a clear error pointing at --db, got %v", err)
		}
		return
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o500)
	defer os.Chmod(dir, 0o700)
	_, err := Open(context.Background(), filepath.Join(dir, "sub", "a.db"), Options{})
	if err == nil || !strings.Contains(apperr.MessageOf(err), "--db") {
		t.Fatalf("want a clear error pointing at --db, got %v", err)
	}
}

func TestMigrationsRunInOrderEachInItsOwnTransaction(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"migrations/0001_a.sql": {Data: []byte(`CREATE TABLE a (x INTEGER);`)},
		"migrations/0002_b.sql": {Data: []byte(`CREATE TABLE b (x INTEGER);`)},
		"migrations/0003_c.sql": {Data: []byte(`CREATE TABLE c (x INTEGER); INSERT INTO nope VALUES (1);`)},
	}
	db, err := sql.Open("sqlite", dsn(filepath.Join(t.TempDir(), "m.db"), false))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = migrate(context.Background(), db, fsys)
	if err == nil {
		t.Fatal("a failing migration reported success")
	}
	// What a person is shown names the step and SQLite's cause.
	if msg := apperr.MessageOf(err); !strings.Contains(msg, "applying migration 0003_c.sql failed") || !strings.Contains(msg, "no such table: nope") {
		t.Fatalf("the message does not say what failed and why: %q", msg)
	}
	v, _ := currentVersion(context.Background(), db)
	if v != 2 {
		t.Fatalf("version after a failed third migration = %d, want 2", v)
	}
	var n int
	db.QueryRow(`SELECT COUNT(*) FROM sqlite_schema WHERE name = 'c'`).Scan(&n)
	if n != 0 {
		t.Fatal("the failed migration left table c behind")
	}
}

func TestMigrationNumberingIsChecked(t *testing.T) {
	t.Parallel()
	tests := map[string]fstest.MapFS{
		"gap":       {"migrations/0001_a.sql": {}, "migrations/0003_c.sql": {}},
		"no number": {"migrations/init.sql": {}},
	}
	for name, fsys := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := loadMigrations(fsys); err == nil {
				t.Fatal("bad numbering accepted")
			}
		})
	}
}

func readDBFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

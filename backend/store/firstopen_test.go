package store

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The first use of a new database by several processes at once: each
// opens the file, creates the schema if nobody has yet, and must neither
// fail nor apply a migration twice. The children are this test binary run
// again with firstOpenChildEnv set (TestFirstOpenChild); they wait on
// their stdin, which the parent closes for all of them at once.

const (
	firstOpenChildEnv = "AGENTDECK_FIRST_OPEN_CHILD"
	firstOpenDBEnv    = "AGENTDECK_FIRST_OPEN_DB"
	firstOpeners      = 20
)

// TestFirstOpenChild is the child process of TestConcurrentFirstOpen.
func TestFirstOpenChild(t *testing.T) {
	t.Parallel()
	if os.Getenv(firstOpenChildEnv) != "1" {
		t.Skip("helper process for TestConcurrentFirstOpen")
	}
	io.Copy(io.Discard, os.Stdin) // the start signal: the parent closes it
	db, err := Open(context.Background(), os.Getenv(firstOpenDBEnv), Options{})
	if err != nil {
		// The whole error, cause included: what a person would need.
		fmt.Fprintf(os.Stderr, "OPEN FAILED: %v\n", err)
		os.Exit(3)
	}
	if err := db.Close(); err != nil {
		fmt.Fprintf(os.Stderr, "CLOSE FAILED: %v\n", err)
		os.Exit(4)
	}
}

func TestConcurrentFirstOpen(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts 20 child processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "new.db")
	type child struct {
		cmd    *exec.Cmd
		start  io.WriteCloser
		stderr strings.Builder
	}
	children := make([]*child, firstOpeners)
	for i := range children {
		c := &child{cmd: exec.Command(exe, "-test.run=^TestFirstOpenChild$", "-test.count=1")}
		c.cmd.Env = append(os.Environ(), firstOpenChildEnv+"=1", firstOpenDBEnv+"="+path)
		c.cmd.Stderr = &c.stderr
		if c.start, err = c.cmd.StdinPipe(); err != nil {
			t.Fatal(err)
		}
		if err := c.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		children[i] = c
	}
	for _, c := range children {
		c.start.Close()
	}
	var wg sync.WaitGroup
	errs := make([]error, firstOpeners)
	for i, c := range children {
		wg.Go(func() { errs[i] = c.cmd.Wait() })
	}
	wg.Wait()
	failed := 0
	for i, c := range children {
		if errs[i] != nil {
			failed++
			t.Errorf("process %d: %v\n%s", i+1, errs[i], c.stderr.String())
		}
	}
	if failed > 0 {
		t.Fatalf("%d of %d processes failed to open a new database at once", failed, firstOpeners)
	}
	checkSchemaOnce(t, path)
}

// The same from goroutines of one process, each with its own pools.
func TestConcurrentFirstOpenInProcess(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "new.db")
	var wg sync.WaitGroup
	errs := make([]error, firstOpeners)
	start := make(chan struct{})
	for i := range firstOpeners {
		wg.Go(func() {
			<-start
			db, err := Open(context.Background(), path, Options{})
			if err == nil {
				err = db.Close()
			}
			errs[i] = err
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("opener %d: %v", i+1, err)
		}
	}
	checkSchemaOnce(t, path)
}

// checkSchemaOnce checks that every migration was applied exactly once and
// that the schema is the one a single opener makes.
func checkSchemaOnce(t *testing.T, path string) {
	t.Helper()
	db, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ms, err := loadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	got, err := queryColumn[string](ctx, db.reader, `SELECT version || ' ' || name FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, m := range ms {
		want = append(want, fmt.Sprintf("%d %s", m.version, m.name))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("schema_migrations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	schema := func(db *DB) string {
		rows, err := queryColumn[string](ctx, db.reader, `SELECT type || ' ' || name || ': ' || COALESCE(sql, '') FROM sqlite_master ORDER BY type, name`)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(rows, "\n")
	}
	if got, want := schema(db), schema(mustOpen(t)); got != want {
		t.Fatalf("the schema differs from a database opened alone:\n%s\nwant:\n%s", got, want)
	}
	var mode string
	if err := db.writer.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v; want wal", mode, err)
	}
}

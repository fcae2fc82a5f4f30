// Package setuptest builds a real engine for tests: a fresh database in a
// temp dir and everything setup.Build puts beside it, closed with the test.
package setuptest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agentdeck/agentdeck/backend/setup"
	"github.com/agentdeck/agentdeck/backend/store"
)

// NewEngine returns the data directory, the database and the engine;
// opts may change the engine's options before it is built.
func NewEngine(t testing.TB, opts ...func(*setup.Options)) (string, *store.DB, *setup.Engine) {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(context.Background(), filepath.Join(dir, "agentdeck.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	o := setup.Options{DataDir: dir}
	for _, f := range opts {
		f(&o)
	}
	eng, err := setup.Build(context.Background(), db, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return dir, db, eng
}

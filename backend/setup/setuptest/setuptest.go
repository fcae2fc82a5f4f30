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

// NewEngine returns the data directory, the database and the engine.
func NewEngine(t testing.TB) (string, *store.DB, *setup.Engine) {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(context.Background(), filepath.Join(dir, "agentdeck.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	eng, err := setup.Build(context.Background(), db, setup.Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return dir, db, eng
}

package store_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/store"
)

// A 0-byte file is an empty database, as SQLite reads it: Open sets it up
// as a new one, and a command that only reads says the file is empty and
// what to do, not to check its permissions.
func TestAZeroByteFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		readOnly bool
		wantCode apperr.Code // "" opens
		wantMsg  string
	}{
		{name: "opened to write: a new database", readOnly: false},
		{name: "opened to read: said empty", readOnly: true, wantCode: apperr.NotFound,
			wantMsg: "is empty (0 bytes): it holds no Agentdeck data, so there is nothing to check or copy. If it is new, any other command (agentdeck, agentdeck run) sets it up as a new database; if it held your history, it was cut to nothing: restore it from a backup"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "empty.db")
			if err := os.WriteFile(path, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			open := func() (*store.DB, error) { return store.Open(bg, path, store.Options{}) }
			if tt.readOnly {
				open = func() (*store.DB, error) { return store.OpenReadOnly(bg, path) }
			}
			db, err := open()
			if tt.wantCode == "" {
				if err != nil {
					t.Fatalf("Open of a 0-byte file: %v", err)
				}
				defer db.Close()
				if _, err := db.CreateSession(bg, store.Session{Title: "first"}); err != nil {
					t.Fatalf("the new database does not work: %v", err)
				}
				return
			}
			var ae *apperr.Error
			if !errors.As(err, &ae) || ae.Code != tt.wantCode || !strings.HasSuffix(ae.Message, tt.wantMsg) || strings.Contains(ae.Message, "readable") {
				t.Fatalf("got %v, want %s saying %q", err, tt.wantCode, tt.wantMsg)
			}
			if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
				t.Fatalf("a read-only open changed the file: %v %v", fi, err)
			}
		})
	}
}

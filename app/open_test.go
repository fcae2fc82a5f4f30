package app

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/setup"
	"github.com/agentdeck/agentdeck/backend/store"
)

// The desktop path with a database that did not open: Open builds no
// engine, and the window gets a Service whose Status carries the opening
// error (the UI's error screen) and whose calls that need the database say
// why. That holds too when the failed store reaches Open as an interface
// holding a nil *store.DB, the trap of typing OpenConfig.DB by an
// interface; a store that opened gets an engine.
func TestOpenWithAFailedDatabaseShowsWhy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	opened, err := store.Open(ctx, filepath.Join(t.TempDir(), "agentdeck.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer opened.Close()
	const msg = "The database is in use by another program."
	openErr := apperr.Wrap(errors.New("sqlite: locked by pid 4242"), apperr.Unavailable, msg)
	tests := []struct {
		name  string
		db    setup.AppStore
		dbErr error
	}{
		{name: "nil store", dbErr: openErr},
		{name: "nil *store.DB in the interface", db: (*store.DB)(nil), dbErr: openErr},
		{name: "opened", db: opened},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, closeEngine := Open(ctx, OpenConfig{DB: tt.db, DBPath: filepath.Join(t.TempDir(), "agentdeck.db"), DBErr: tt.dbErr})
			defer closeEngine()
			st, err := svc.api.Status()
			if err != nil {
				t.Fatal(err)
			}
			_, listErr := svc.api.ListSessions(store.Page{})
			var ae *apperr.Error
			if tt.dbErr == nil {
				if st.DBError != nil || st.SchemaVersion < 1 || listErr != nil {
					t.Fatalf("opened: status %+v, list error %v; want the engine", st, listErr)
				}
				return
			}
			if st.DBError == nil || st.DBError.Message != msg || st.DBError.Err != nil {
				t.Fatalf("status's db_error = %#v, want the opening error without its cause", st.DBError)
			}
			if !errors.As(listErr, &ae) || ae.Code != apperr.Unavailable || ae.Message != msg {
				t.Fatalf("ListSessions: %v, want the opening error", listErr)
			}
		})
	}
}

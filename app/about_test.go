package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/buildinfo"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
)

// An untagged build's version, long enough to test where it is shown.
var aboutBuild = buildinfo.Info{Version: "0.0.0~git20261203.f3138d4.dirty", Commit: "f3138d4a9b2c", GoVersion: "go1.26.8"}

// The About box names the build it runs, the platform, the data folder
// (the database's) and what the database takes on disk, the file and its
// -wal and -shm together.
func TestAboutOfARealDatabase(t *testing.T) {
	t.Parallel()
	dir, db, eng := setuptest.NewEngine(t)
	svc := NewService(Config{Info: aboutBuild, DB: db, DBPath: db.Path(), Runner: eng.Runner, Secrets: eng.Secrets, Workflows: eng.Workflows})
	ctx := context.Background()
	if _, err := db.CreateSession(ctx, store.Session{Title: "Something to store"}); err != nil {
		t.Fatal(err)
	}
	// Copy the log into the file and empty it, so that no checkpoint
	// changes a file's size while the sizes are compared.
	if err := db.Compact(ctx); err != nil {
		t.Fatal(err)
	}

	got, err := svc.api.About()
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, f := range []string{"agentdeck.db", "agentdeck.db-wal", "agentdeck.db-shm"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err == nil {
			sum += st.Size()
		}
	}
	main, err := os.Stat(db.Path())
	if err != nil {
		t.Fatal(err)
	}
	if got.DBBytes <= 0 || got.DBBytes != sum || sum <= main.Size() {
		t.Errorf("db_bytes %d, want the sum of the files %d (more than the main file's %d: the -shm is counted)", got.DBBytes, sum, main.Size())
	}
	want := AboutInfo{
		Version: aboutBuild.Version, Commit: aboutBuild.Commit, GoVersion: aboutBuild.GoVersion,
		OS: runtime.GOOS, Arch: runtime.GOARCH,
		DataDir: dir, DBPath: db.Path(), DBBytes: got.DBBytes,
		Links: []Link{
			{Label: "Project home", URL: "https://github.com/agentdeck/agentdeck"},
			{Label: "Report a problem", URL: "https://github.com/agentdeck/agentdeck/issues"},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("About = %+v\nwant %+v", got, want)
	}
}

// The sizes, the log and the opening error, from files laid out by hand:
// a missing file counts 0, and About answers even when the database did
// not open, which is when a person most needs it.
func TestAboutOfFilesOnDisk(t *testing.T) {
	t.Parallel()
	locked := apperr.Wrap(errors.New("sqlite: database is locked (pid 4242)"), apperr.Unavailable, "The database is in use by another program.")
	cases := []struct {
		name    string
		files   map[string]int // name → size
		dbErr   error
		bytes   int64
		withLog bool
	}{
		{"the file alone", map[string]int{"agentdeck.db": 4096}, nil, 4096, false},
		{"with its log and index", map[string]int{"agentdeck.db": 8192, "agentdeck.db-wal": 1000, "agentdeck.db-shm": 32768}, nil, 8192 + 1000 + 32768, false},
		{"a log without an index, and the app's log", map[string]int{"agentdeck.db": 4096, "agentdeck.db-wal": 7, "agentdeck.log": 300}, nil, 4096 + 7, true},
		{"not opened", map[string]int{"agentdeck.db": 4096}, locked, 4096, false},
		{"nothing on disk yet", nil, locked, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, size := range c.files {
				if err := os.WriteFile(filepath.Join(dir, name), make([]byte, size), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(dir, "agentdeck.db")
			got, err := NewService(Config{Info: aboutBuild, DBPath: path, DBErr: c.dbErr}).api.About()
			if err != nil {
				t.Fatal(err)
			}
			if got.DBBytes != c.bytes || got.DataDir != dir || got.DBPath != path || got.Version != aboutBuild.Version || got.Commit != aboutBuild.Commit {
				t.Errorf("About = %+v; want %d bytes in %s", got, c.bytes, dir)
			}
			if wantLog := filepath.Join(dir, "agentdeck.log"); (got.LogPath == wantLog) != c.withLog || (!c.withLog && got.LogPath != "") {
				t.Errorf("log_path %q; a log on disk: %v", got.LogPath, c.withLog)
			}
			switch {
			case c.dbErr == nil && got.DBError != nil:
				t.Errorf("db_error %+v, want none", got.DBError)
			case c.dbErr != nil && (got.DBError == nil || got.DBError.Message != "The database is in use by another program." || got.DBError.Err != nil):
				t.Errorf("db_error %#v, want the opening error's message without its cause", got.DBError)
			}
		})
	}
}

// With no place for the data at all, About still answers: the build and
// the links, and why there is no database.
func TestAboutWithoutADataFolder(t *testing.T) {
	t.Parallel()
	got, err := NewService(Config{Info: aboutBuild, DBErr: apperr.New(apperr.Unavailable, "No folder for Agentdeck's data: $HOME is not set.")}).api.About()
	if err != nil {
		t.Fatal(err)
	}
	if got.DataDir != "" || got.DBPath != "" || got.DBBytes != 0 || got.DBError == nil || got.Version != aboutBuild.Version || len(got.Links) != 2 {
		t.Errorf("About = %+v", got)
	}
}

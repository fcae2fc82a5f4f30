package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/turn"
)

func TestCheckHealthyDatabase(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := newSession(t, db, "checked")
	_, events := storeTurn(t, db, s.ID, "q1", "a1")
	storeTurn(t, db, s.ID, "q2", "a2")
	newSession(t, db, "empty")

	rep, err := db.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := loadMigrations(migrationFiles)
	if !rep.OK || len(rep.Problems) != 0 || rep.SchemaVersion != len(ms) || rep.Sessions != 2 || rep.Turns != 2 || rep.Events != int64(2*len(events)) || rep.SizeBytes <= 0 {
		t.Fatalf("report %+v", rep)
	}
}

func TestCheckFindsDamage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		damage func(t *testing.T, db *DB) *DB // returns the handle to check
		want   string                         // in one of the problems
	}{
		{"missing parent row", func(t *testing.T, db *DB) *DB {
			careExec(t, db.writer, `PRAGMA foreign_keys = OFF`)
			careExec(t, db.writer, `INSERT INTO turns (id, session_id, seq, user_message, state, started_at) VALUES ('orphan', 'no-such-session', 1, 'x', 'completed', 'now')`)
			careExec(t, db.writer, `PRAGMA foreign_keys = ON`)
			return db
		}, "turns row"},
		{"search index out of step with its text", func(t *testing.T, db *DB) *DB {
			careExec(t, db.writer, `UPDATE search_content SET c0 = 'words the index never saw'`)
			return db
		}, "search"},
		{"damaged index page", func(t *testing.T, db *DB) *DB {
			var root, pageSize int64
			if err := db.reader.QueryRow(`SELECT rootpage FROM sqlite_schema WHERE name = 'sessions_updated'`).Scan(&root); err != nil {
				t.Fatal(err)
			}
			db.reader.QueryRow(`PRAGMA page_size`).Scan(&pageSize)
			path := db.path
			db.Close()
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			// Keep the page a leaf index page but point its first cell
			// far outside the page.
			hdr := make([]byte, 12)
			f.ReadAt(hdr, (root-1)*pageSize)
			binary.BigEndian.PutUint16(hdr[3:], 40) // cell count
			if _, err := f.WriteAt(hdr, (root-1)*pageSize); err != nil {
				t.Fatal(err)
			}
			f.WriteAt(bytes.Repeat([]byte{0xff}, 80), (root-1)*pageSize+8)
			f.Close()
			again, err := Open(ctx, path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { again.Close() })
			return again
		}, "sessions_updated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := mustOpen(t)
			s := newSession(t, db, "damaged")
			for range 5 {
				storeTurn(t, db, s.ID, "question", "answer")
			}
			if err := db.Compact(ctx); err != nil {
				t.Fatal(err)
			}
			db = tt.damage(t, db)
			rep, err := db.Check(ctx)
			if err != nil {
				t.Fatalf("Check: %v", err)
			}
			if rep.OK || !strings.Contains(strings.Join(rep.Problems, "\n"), tt.want) {
				t.Fatalf("report %+v should name %q", rep, tt.want)
			}
		})
	}
}

func TestBackup(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := newSession(t, db, "backed up")
	storeTurn(t, db, s.ID, "what is a kumquat?", "A small citrus fruit.")
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "backup.db")

	if err := db.Backup(ctx, path); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("backup file %v, %v; want mode 0600", st, err)
	}
	raw, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	var ok string
	if err := raw.QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check of the backup: %q %v", ok, err)
	}
	raw.Close()
	backup, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatalf("the backup does not open: %v", err)
	}
	if got, err := backup.GetSession(ctx, s.ID); err != nil || got.Title != s.Title {
		t.Fatalf("session in the backup: %+v %v", got, err)
	}
	if hits, _ := backup.Search(ctx, "kumquat", 5); len(hits) != 1 {
		t.Fatalf("search in the backup: %+v", hits)
	}
	// Closed, so that its own checkpointer cannot touch the file while
	// the next test compares its bytes.
	if err := backup.Close(); err != nil {
		t.Fatal(err)
	}

	t.Run("refuses to overwrite", func(t *testing.T) {
		other := filepath.Join(dir, "notes.txt")
		os.WriteFile(other, []byte("precious"), 0o600)
		for _, p := range []string{path, other, db.Path()} {
			// The live database's file changes under its own background
			// workers, so for it the test asserts what it holds instead.
			live := p == db.Path()
			var before []byte
			if !live {
				before = readDBFile(t, p)
			}
			err := db.Backup(ctx, p)
			if apperr.CodeOf(err) != apperr.Conflict || !strings.Contains(apperr.MessageOf(err), "already exists") || !strings.Contains(apperr.MessageOf(err), p) {
				t.Fatalf("Backup over %s: %v", p, err)
			}
			if live {
				if got, err := db.GetSession(ctx, s.ID); err != nil || got.Title != s.Title {
					t.Fatalf("the live database after a refused backup over it: %+v %v", got, err)
				}
				continue
			}
			if !bytes.Equal(before, readDBFile(t, p)) {
				t.Fatalf("%s was changed", p)
			}
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		p := filepath.Join(dir, "cancelled.db")
		if err := db.Backup(cctx, p); apperr.CodeOf(err) != apperr.Cancelled {
			t.Fatalf("cancelled backup: %v", err)
		}
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Fatalf("a cancelled backup left %s behind (%v)", p, err)
		}
	})
	t.Run("needs a path", func(t *testing.T) {
		if err := db.Backup(ctx, " "); apperr.CodeOf(err) != apperr.Invalid {
			t.Fatalf("empty path: %v", err)
		}
	})
}

// TestDiskFull fills the database up to SQLite's page limit (what a full
// disk looks like to SQLite: SQLITE_FULL) and checks that the failing
// writes say so, keep what was stored, and work again once there is room.
func TestDiskFull(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := newSession(t, db, "before the disk filled up")
	tr, err := db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "fill it"})
	if err != nil {
		t.Fatal(err)
	}
	var pages int
	db.writer.QueryRow(`PRAGMA page_count`).Scan(&pages)
	careExec(t, db.writer, `PRAGMA max_page_count = `+strconv.Itoa(pages+8))

	var titles []string
	var fullErr error
	for i := 0; i < 1000 && fullErr == nil; i++ {
		title := strings.Repeat("x", 1500) + strconv.Itoa(i)
		if _, fullErr = db.CreateSession(ctx, Session{Title: title}); fullErr == nil {
			titles = append(titles, title)
		}
	}
	assertClearWriteError(t, fullErr, "the disk is full")
	if len(titles) == 0 {
		t.Fatal("nothing fitted before the limit; the test needs more pages")
	}

	// Every other write path fails the same way, and leaves no half-write.
	events := db.NewEventLog(tr.ID, EventLogOptions{})
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: s.ID, TurnID: tr.ID, Sinks: []turn.Sink{events}})
	em.Emit(turn.Draft{Data: turn.TokenData{Text: strings.Repeat("y", 20_000)}})
	assertClearWriteError(t, events.Flush(), "the disk is full")
	big := turn.Result{OK: true, FinalText: strings.Repeat("z", 50_000), Messages: []llm.Message{{Role: llm.RoleUser, Content: "fill it"}, {Role: llm.RoleAssistant, Content: strings.Repeat("z", 50_000)}}}
	assertClearWriteError(t, db.FinishTurn(ctx, tr.ID, 0, big), "the disk is full")

	// Reads work and everything committed before is there.
	page, err := db.ListSessions(ctx, Page{Limit: 500})
	if err != nil || len(page.Sessions) != len(titles)+1 {
		t.Fatalf("%d sessions after the disk filled, want %d: %v", len(page.Sessions), len(titles)+1, err)
	}
	if d, err := db.GetTurn(ctx, tr.ID, true); err != nil || d.State != StateRunning || len(d.Messages) != 0 || len(d.Events) != 0 {
		t.Fatalf("the failed writes left part of themselves: %+v %v", d, err)
	}

	// Space frees up: the same writes go through, the buffered events too.
	careExec(t, db.writer, `PRAGMA max_page_count = 1073741823`)
	if err := events.Close(); err != nil {
		t.Fatalf("the kept events were not written once there was room: %v", err)
	}
	if err := db.FinishTurn(ctx, tr.ID, 0, big); err != nil {
		t.Fatal(err)
	}
	d, err := db.GetTurn(ctx, tr.ID, true)
	if err != nil || d.State != StateCompleted || len(d.Events) != 1 || len(d.Messages) != 2 {
		t.Fatalf("after freeing space: %+v %v", d.Turn, err)
	}
	if rep, err := db.Check(ctx); err != nil || !rep.OK {
		t.Fatalf("check after a full disk: %+v %v", rep, err)
	}
}

// TestReadOnlyDatabase makes the database unwritable in the ways SQLite
// can see it and checks the store's write paths give a clear error while
// reads go on.
func TestReadOnlyDatabase(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// readOnly returns a handle whose writes fail, and a function that
		// makes the database writable again (nil when it cannot).
		readOnly func(t *testing.T, db *DB) (*DB, func())
	}{
		{"query_only on the writer", func(t *testing.T, db *DB) (*DB, func()) {
			careExec(t, db.writer, `PRAGMA query_only = 1`)
			return db, func() { careExec(t, db.writer, `PRAGMA query_only = 0`) }
		}},
		{"second handle opened with mode=ro", func(t *testing.T, db *DB) (*DB, func()) {
			w, err := sql.Open("sqlite", dsn(db.path, false)+"&mode=ro")
			if err != nil {
				t.Fatal(err)
			}
			w.SetMaxOpenConns(1)
			t.Cleanup(func() { w.Close() })
			return &DB{path: db.path, writer: w, reader: db.reader, owner: db.owner}, nil
		}},
		{"file mode 0444", func(t *testing.T, db *DB) (*DB, func()) {
			if os.Geteuid() == 0 {
				t.Skip("root ignores file permissions; the other cases cover SQLite's read-only error")
			}
			db.Close()
			if err := os.Chmod(db.path, 0o444); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(db.path, 0o600) })
			ro, err := Open(ctx, db.path, Options{})
			if err != nil {
				// Refusing to open is acceptable if it says why.
				if msg := apperr.MessageOf(err); !strings.Contains(msg, "readable and writable") {
					t.Fatalf("unclear error opening a read-only file: %v", err)
				}
				t.Skip("this SQLite refuses to open a read-only file; the message is clear")
			}
			t.Cleanup(func() { ro.Close() })
			return ro, nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := mustOpen(t)
			s := newSession(t, db, "kept while read-only")
			tr, _ := storeTurn(t, db, s.ID, "question about herons", "answer about herons")
			// A turn's search entries are written after it; a file that
			// turns read-only first keeps the turn marked and unsearchable
			// until it is writable again (indexer.go).
			if err := db.IndexPending(ctx); err != nil {
				t.Fatal(err)
			}
			ro, restore := tt.readOnly(t, db)

			for _, op := range careWriteOps(s.ID, tr.ID) {
				assertClearWriteError(t, op.write(ro), "read-only", op.name)
			}
			if got, err := ro.GetSession(ctx, s.ID); err != nil || got.Title != s.Title {
				t.Fatalf("read while read-only: %+v %v", got, err)
			}
			if hits, err := ro.Search(ctx, "herons", 10); err != nil || len(hits) != 2 {
				t.Fatalf("search while read-only: %+v %v", hits, err)
			}
			if restore == nil {
				return
			}
			restore()
			for _, op := range careWriteOps(s.ID, tr.ID) {
				if err := op.write(ro); err != nil {
					t.Fatalf("%s once writable again: %v", op.name, err)
				}
			}
		})
	}
}

type careWriteOp struct {
	name  string
	write func(*DB) error
}

// careWriteOps is one of each kind of write the store does.
func careWriteOps(sessionID, turnID string) []careWriteOp {
	return []careWriteOp{
		{"create session", func(db *DB) error { _, err := db.CreateSession(ctx, Session{Title: "new"}); return err }},
		{"rename session", func(db *DB) error { return db.RenameSession(ctx, sessionID, "renamed") }},
		{"start turn", func(db *DB) error {
			t, err := db.StartTurn(ctx, Turn{SessionID: sessionID, UserMessage: "more"})
			if err == nil {
				err = db.FinishTurn(ctx, t.ID, 0, turn.Result{OK: true})
			}
			return err
		}},
		{"set setting", func(db *DB) error { return db.setSetting(ctx, "theme", "dark") }},
		{"save provider", func(db *DB) error { return db.SaveProvider(ctx, catalog.Presets()[0]) }},
		{"record approval", func(db *DB) error {
			_, err := db.RecordApproval(ctx, Approval{TurnID: turnID, CallID: "c", Tool: "write_file", Args: json.RawMessage(`{}`), Guard: "side_effects", Answer: turn.Deny})
			return err
		}},
		{"write events", func(db *DB) error {
			l := db.NewEventLog(turnID, EventLogOptions{}).(*eventLog)
			l.Emit(turn.Event{TurnID: turnID, Seq: 1000, Type: turn.EventToken, Data: json.RawMessage(`{}`)})
			err := l.Close()
			if err != nil {
				l.mu.Lock()
				l.buf = nil // do not retry in the background after the test
				l.mu.Unlock()
			}
			return err
		}},
	}
}

func assertClearWriteError(t *testing.T, err error, want string, context ...string) {
	t.Helper()
	var ae *apperr.Error
	if !errors.As(err, &ae) {
		t.Fatalf("%v: want an *apperr.Error saying %q, got %v", context, want, err)
	}
	if ae.Code != apperr.Unavailable || !strings.Contains(ae.Message, want) || !strings.Contains(ae.Message, "nothing already saved was lost") {
		t.Fatalf("%v: unclear error %q (%s)", context, ae.Message, ae.Code)
	}
}

func careExec(t *testing.T, db *sql.DB, q string) {
	t.Helper()
	if _, err := db.Exec(q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

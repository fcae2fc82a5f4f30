package store

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/turn"
)

func TestIsDiskFull(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	careExec(t, db.writer, `PRAGMA max_page_count = 1`)
	_, sqliteFull := db.CreateSession(ctx, Session{Title: strings.Repeat("x", 10_000)})
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"SQLite's SQLITE_FULL through the store", sqliteFull, true},
		{"ENOSPC from the file system", fmt.Errorf("writing: %w", &os.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC}), true},
		{"told as text", errors.New("recording failed: database or disk is full (13)"), true},
		{"read-only", apperr.Wrap(errors.New("attempt to write a readonly database"), apperr.Unavailable, "no"), false},
		{"another error", errors.New("no such table"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsDiskFull(tt.err); got != tt.want {
				t.Fatalf("IsDiskFull(%v) = %v", tt.err, got)
			}
		})
	}
}

// The event log tells its owner once that the disk is full, keeps what it
// could not write, and says how much of the answer under way is stored.
func TestEventLogOnAFullDisk(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := newSession(t, db, "full")
	tr, err := db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "fill it"})
	if err != nil {
		t.Fatal(err)
	}
	log := db.NewEventLog(tr.ID, EventLogOptions{FlushEvery: 1 << 40}) // flushed by hand only
	var told atomic.Int32
	log.OnFull(func(err error) {
		if !IsDiskFull(err) {
			t.Errorf("told of %v", err)
		}
		told.Add(1)
	})
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: s.ID, TurnID: tr.ID, Sinks: []turn.Sink{log}})
	em.Emit(turn.Draft{Data: turn.ThinkStartData{}}) // a checkpoint: written at once
	stored := "The first words fit. "
	em.Emit(turn.Draft{Data: turn.TokenData{Text: stored}})
	if err := log.Flush(); err != nil {
		t.Fatal(err)
	}

	careExec(t, db.writer, `PRAGMA max_page_count = `+strconv.Itoa(pageCount(t, db)))
	var rest strings.Builder
	for i := range 3 {
		piece := strings.Repeat("more words ", 20_000) + strconv.Itoa(i) + " " // 220 KB: more than the file's free pages
		rest.WriteString(piece)
		em.Emit(turn.Draft{Data: turn.TokenData{Text: piece}})
		if err := log.Flush(); !IsDiskFull(err) {
			t.Fatalf("flush %d on a full disk: %v", i, err)
		}
	}
	if told.Load() != 1 {
		t.Fatalf("told %d times, want once", told.Load())
	}
	gotStored, emitted, err := log.Answer(ctx)
	if err != nil || gotStored != stored || emitted != stored+rest.String() {
		t.Fatalf("answer: stored %q, emitted %d bytes (want %d): %v", gotStored, len(emitted), len(stored+rest.String()), err)
	}

	// Room again: Close stores what was kept, and stops.
	careExec(t, db.writer, `PRAGMA max_page_count = 1073741823`)
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	if gotStored, emitted, err = log.Answer(ctx); err != nil || gotStored != emitted {
		t.Fatalf("after Close: stored %d of %d bytes: %v", len(gotStored), len(emitted), err)
	}
}

// A new model call starts a new answer: the stored tokens of the call
// before are not part of it.
func TestEventLogAnswerIsTheCallUnderWay(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := newSession(t, db, "calls")
	tr, _ := db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "two calls"})
	log := db.NewEventLog(tr.ID, EventLogOptions{FlushEvery: 1 << 40})
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: s.ID, TurnID: tr.ID, Sinks: []turn.Sink{log}})
	em.Emit(turn.Draft{Data: turn.ThinkStartData{}})
	em.Emit(turn.Draft{Data: turn.TokenData{Text: "first call"}})
	log.Flush()
	careExec(t, db.writer, `PRAGMA max_page_count = `+strconv.Itoa(pageCount(t, db)))
	em.Emit(turn.Draft{Data: turn.ThinkStartData{}}) // fails: kept
	em.Emit(turn.Draft{Data: turn.TokenData{Text: strings.Repeat("second ", 30_000)}})
	log.Flush()
	stored, emitted, err := log.Answer(ctx)
	if err != nil || stored != "" || emitted != strings.Repeat("second ", 30_000) {
		t.Fatalf("stored %q, emitted %d bytes: %v", stored, len(emitted), err)
	}
}

func TestReserve(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	path := ReservePath(db.Path())
	if err := db.KeepReserve(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != ReserveSize {
		t.Fatalf("reserve: %v %v", fi, err)
	}
	if err := os.Truncate(path, 1000); err != nil { // cut short by a full disk
		t.Fatal(err)
	}
	if err := db.KeepReserve(); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Size() != ReserveSize {
		t.Fatalf("a short reserve is made whole: %d bytes", fi.Size())
	}
	if freed := db.ReleaseReserve(ctx); freed != ReserveSize {
		t.Fatalf("freed %d", freed)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the reserve is still there: %v", err)
	}
	if freed := db.ReleaseReserve(ctx); freed != 0 {
		t.Fatalf("released twice: %d", freed)
	}
	// A folder in its place (nothing can be written): an error, no panic.
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := db.KeepReserve(); err == nil {
		t.Fatal("no error for a reserve that cannot be written")
	}
}

// The write-ahead log stays small however long a turn streams: the
// checkpointer copies it into the file after every write
// (checkpoint.go), the next write starts it again, and the file is cut
// back to 512 KB, where SQLite's defaults let it reach 4 MB and keep that
// size. The test waits for the checkpointer's run after each batch, as a
// turn's 50 ms between batches would; with no other reader each run
// copies the whole log, so the bound is deterministic.
func TestWriteAheadLogStaysSmall(t *testing.T) {
	t.Parallel()
	db, _, ckpt := openWatched(t)
	s := newSession(t, db, "long")
	tr, _ := db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "a long answer"})
	log := db.NewEventLog(tr.ID, EventLogOptions{FlushEvery: 1 << 40})
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: s.ID, TurnID: tr.ID, Sinks: []turn.Sink{log}})
	em.Emit(turn.Draft{Data: turn.ThinkStartData{}})
	var peak int64
	for batch := range 400 { // about 10 MB of events, in 50 ms batches of a fast stream
		for i := range 100 {
			em.Emit(turn.Draft{Data: turn.TokenData{Text: "token " + strconv.Itoa(batch*100+i) + " "}})
		}
		if err := log.Flush(); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(db.Path() + "-wal"); err == nil {
			peak = max(peak, fi.Size())
		}
		ckpt.wait(t, db.ckpt.w)
	}
	dbSize, _ := os.Stat(db.Path())
	t.Logf("database %d bytes, write-ahead log at most %d bytes", dbSize.Size(), peak)
	if peak > 1<<20 {
		t.Fatalf("the write-ahead log reached %d bytes", peak)
	}
}

func pageCount(t *testing.T, db *DB) int {
	t.Helper()
	var n int
	if err := db.writer.QueryRow(`PRAGMA page_count`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

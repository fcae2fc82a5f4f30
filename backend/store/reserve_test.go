package store_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/store/storetest"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// The reserve is never what fills the disk: with 2.8 MB free it is not
// made (4 MB would take the last of it, and a turn of 20 KB would then
// fail as "disk full"); it is made when the disk has room for it and
// for the turns beside it; a short reserve is not grown on a short disk.
// On a real small file system (tmpfs, as root) where it can mount one,
// and with a measured free space the test sets where it cannot.
func TestReserveNeverFillsTheDisk(t *testing.T) {
	t.Parallel()
	const mb = 1 << 20
	tests := []struct {
		name string
		// tmpfs, if set, is the size of the small disk the database is
		// made on; free, if tmpfs is empty, the free space the store is
		// told there is beside a database in a temp dir.
		tmpfs string
		free  int64
		// leave fills the small disk to leave about this much free.
		leave int64
		// shortReserve, if set, is the size of a reserve an earlier turn
		// left cut short.
		shortReserve int64
		wantReserve  int64 // the reserve's size afterwards (0: none)
		wantShort    bool  // KeepReserve says the disk is short
	}{
		{name: "2.8 MB free on a small disk", tmpfs: "32m", leave: 2_800_000, wantShort: true},
		{name: "2.8 MB free, measured", free: 2_800_000, wantShort: true},
		{name: "room for the reserve and the turns", tmpfs: "32m", leave: 20 * mb, wantReserve: store.ReserveSize},
		{name: "a short reserve on a short disk is not grown", free: 5 * mb, shortReserve: 1000, wantReserve: 1000, wantShort: true},
		{name: "a short reserve with room is made whole", free: 20 * mb, shortReserve: 1000, wantReserve: store.ReserveSize},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.tmpfs != "" {
				var whyNot string
				if dir, whyNot = storetest.SmallDisk(t, tt.tmpfs); dir == "" {
					t.Skipf("cannot mount a small disk here (%s); the measured cases cover the rule", whyNot)
				}
			}
			path := filepath.Join(dir, "agentdeck.db")
			db, err := store.Open(bg, path, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if tt.tmpfs != "" {
				storetest.FillDisk(t, dir, tt.leave)
			} else {
				store.SetDiskFree(db, func(string) (int64, error) { return tt.free, nil })
			}
			if tt.shortReserve > 0 {
				if err := os.WriteFile(store.ReservePath(path), make([]byte, tt.shortReserve), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			freeBefore, _ := store.DiskFree(dir)

			err = db.KeepReserve()
			freeAfter, _ := store.DiskFree(dir)
			// A turn of about 20 KB is stored in what is left.
			storeTurn(t, db, strings.Repeat("twenty kilobytes ", 1200))

			var short *store.ShortOfSpaceError
			if gotShort := errors.As(err, &short); gotShort != tt.wantShort || (!tt.wantShort && err != nil) {
				t.Fatalf("KeepReserve: %v; want short of space: %v", err, tt.wantShort)
			}
			var size int64
			if fi, err := os.Stat(store.ReservePath(path)); err == nil {
				size = fi.Size()
			}
			if size != tt.wantReserve {
				t.Fatalf("the reserve holds %d bytes, want %d", size, tt.wantReserve)
			}
			if short != nil {
				// It says how much is free, how much it needs and why.
				t.Logf("KeepReserve: %v", short)
				if short.Dir != dir || short.Need < store.ReserveHeadroom || short.Need > store.ReserveRoom {
					t.Fatalf("short of space: %+v", short)
				}
				for _, want := range []string{" is free on the disk that holds " + dir, store.MB(short.Need), "can still save its ending"} {
					if !strings.Contains(short.Error(), want) {
						t.Fatalf("the error lacks %q: %s", want, short)
					}
				}
				if tt.tmpfs != "" {
					if freeAfter < freeBefore {
						t.Fatalf("a refused reserve took space: %d bytes free, %d before", freeAfter, freeBefore)
					}
				}
			}
		})
	}
}

// storeTurn stores a finished turn whose answer is answer.
func storeTurn(t *testing.T, db *store.DB, answer string) {
	t.Helper()
	s, err := db.CreateSession(bg, store.Session{Title: "small disk", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := db.StartTurn(bg, store.Turn{SessionID: s.ID, UserMessage: "write 20 KB"})
	if err != nil {
		t.Fatalf("starting a turn: %v", err)
	}
	res := turn.Result{OK: true, Outcome: turn.OutcomeSucceeded, Termination: turn.Termination{Kind: turn.TermNaturalCompletion}, FinalText: answer,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "write 20 KB"}, {Role: llm.RoleAssistant, Content: answer}}}
	if err := db.FinishTurn(bg, tr.ID, 0, res); err != nil {
		t.Fatalf("storing a turn of %d bytes: %v", len(answer), err)
	}
}

package store_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/store/storetest"
	"github.com/agentdeck/agentdeck/backend/turn"
)

var bg = context.Background()

// damagedTables are the tables the damage tests write zeros into.
var damagedTables = []string{"sessions", "turns", "messages", "events"}

// history builds a real history once per test and returns a copy maker:
// each call gives a fresh closed, checkpointed copy of it.
func history(t *testing.T) (storetest.History, func(t *testing.T) string) {
	t.Helper()
	base := filepath.Join(t.TempDir(), "base.db")
	db, err := store.Open(bg, base, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := storetest.BuildHistory(t, db, 100, 2)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	storetest.Checkpoint(t, base)
	return h, func(t *testing.T) string {
		p := filepath.Join(t.TempDir(), "agentdeck.db")
		storetest.CopyFile(t, base, p)
		return p
	}
}

// eventRows is how many rows the events table of a file holds.
func eventRows(t *testing.T, path string) int64 {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var n int64
	if err := raw.QueryRow(`SELECT COUNT(*) FROM events`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// damaged is a copy of the history with zeros over a page of table.
func damaged(t *testing.T, fresh func(*testing.T) string, table string) (path string, page int) {
	t.Helper()
	path = fresh(t)
	return path, storetest.ZeroMiddlePage(t, path, table)
}

// wantDamaged checks that err is the Damaged error for the file at path,
// naming the table and the next steps.
func wantDamaged(t *testing.T, err error, path, table string) {
	t.Helper()
	if apperr.CodeOf(err) != apperr.Damaged {
		t.Fatalf("code %q, want damaged: %v", apperr.CodeOf(err), err)
	}
	msg := apperr.MessageOf(err)
	for _, want := range []string{path, "damaged", table, "What is readable can still be read", "agentdeck db check", "agentdeck db salvage"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q: %s", want, msg)
		}
	}
	var de *store.DamageError
	if !errors.As(err, &de) || de.Path != path {
		t.Errorf("the cause is not a DamageError for %s: %#v", path, de)
	}
}

// TestDamagedFile writes zeros over a page of each main table of a real
// history (built once: it takes seconds under -race) and checks each
// promise about a damaged file.
func TestDamagedFile(t *testing.T) {
	t.Parallel()
	h, fresh := history(t)
	for _, tt := range []struct {
		name string
		test func(*testing.T, storetest.History, func(*testing.T) string)
	}{
		{"named where first met", damageIsNamedWhereItIsFirstMet},
		{"met by many readers at once", metByManyReadersAtOnce},
		{"ReadTurn keeps what is readable", readTurnKeepsWhatIsReadable},
		{"lists keep what is readable", listsKeepWhatIsReadable},
		{"check counts each table on its own", checkCountsEachTableOnItsOwn},
		{"salvage copies every intact turn", salvageCopiesEveryIntactTurn},
		{"salvage of a whole file loses nothing", salvageOfAWholeFileLosesNothing},
		{"recovery leaves it alone", recoveryLeavesADamagedFileAlone},
		{"backup names the cause", backupNamesTheCause},
	} {
		t.Run(tt.name, func(t *testing.T) { tt.test(t, h, fresh) })
	}
}

func damageIsNamedWhereItIsFirstMet(t *testing.T, h storetest.History, fresh func(*testing.T) string) {
	for _, table := range damagedTables {
		t.Run(table, func(t *testing.T) {
			path, _ := damaged(t, fresh, table)
			var notices atomic.Int32
			var reason atomic.Value
			db, err := store.Open(bg, path, store.Options{OnDamage: func(r string) { notices.Add(1); reason.Store(r) }})
			if err != nil {
				t.Fatalf("a damaged data page must not stop the file from opening: %v", err)
			}
			defer db.Close()
			if met, _ := db.Damaged(); met {
				t.Fatal("damage is known before anything read it: opening must not check the whole file")
			}

			// The first read that meets the page: the list for sessions,
			// a turn's own reads for the others.
			var first error
			if table == "sessions" {
				_, first = db.ListSessions(bg, store.Page{Limit: 500})
			}
			unreadable := 0
			for _, tr := range h.Turns {
				d, err := db.ReadTurn(bg, tr.ID, true)
				if err != nil || len(d.Unreadable) > 0 {
					unreadable++
				}
				if _, err := db.GetTurn(bg, tr.ID, true); err != nil && first == nil {
					first = err
				}
			}
			if first == nil {
				t.Fatal("no read met the damaged page")
			}
			wantDamaged(t, first, path, table)
			if table != "sessions" && unreadable == 0 {
				t.Fatal("every turn read whole")
			}
			if n := notices.Load(); n != 1 {
				t.Fatalf("OnDamage called %d times, want once", n)
			}
			met, why := db.Damaged()
			if !met || !strings.Contains(why, table) || !strings.Contains(reason.Load().(string), table) {
				t.Fatalf("Damaged() = %v %q (first notice %q), want it to name %s", met, why, reason.Load(), table)
			}

			// No new turn goes into the file unless forced, and a refusal
			// writes nothing.
			intact := intactSession(t, db, h)
			before := storetest.Files(t, path)
			_, err = db.StartTurn(bg, store.Turn{SessionID: intact, UserMessage: "more"})
			if apperr.CodeOf(err) != apperr.Damaged || !strings.Contains(apperr.MessageOf(err), "did not start the turn") ||
				!strings.Contains(apperr.MessageOf(err), "--force") {
				t.Fatalf("StartTurn into a damaged file: %v", err)
			}
			if !slices.Equal(before, storetest.Files(t, path)) {
				t.Fatal("a refused turn changed the file")
			}
			tr, err := db.StartTurn(bg, store.Turn{SessionID: intact, UserMessage: "more"}, store.StartOptions{Force: true})
			if err != nil {
				t.Fatalf("StartTurn with Force: %v", err)
			}
			if got, err := db.GetTurn(bg, tr.ID, false); err != nil || got.UserMessage != "more" {
				t.Fatalf("the forced turn: %+v %v", got.Turn, err)
			}
		})
	}
}

// intactSession is a session whose row and latest turn can be read.
func intactSession(t *testing.T, db *store.DB, h storetest.History) string {
	t.Helper()
	for _, s := range h.Sessions {
		if _, err := db.GetSession(bg, s.ID); err != nil {
			continue
		}
		ok := true
		for _, tr := range h.Turns {
			if tr.SessionID == s.ID {
				if d, err := db.ReadTurn(bg, tr.ID, true); err != nil || len(d.Unreadable) > 0 {
					ok = false
				}
			}
		}
		if ok {
			return s.ID
		}
	}
	t.Fatal("no intact session")
	return ""
}

func readTurnKeepsWhatIsReadable(t *testing.T, h storetest.History, fresh func(*testing.T) string) {
	for _, tt := range []struct{ table, part string }{{"events", "events"}, {"messages", "messages"}} {
		t.Run(tt.table, func(t *testing.T) {
			path, _ := damaged(t, fresh, tt.table)
			db, err := store.Open(bg, path, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, tr := range h.Turns {
				d, err := db.ReadTurn(bg, tr.ID, true)
				if err != nil {
					t.Fatalf("ReadTurn: %v", err)
				}
				if len(d.Unreadable) == 0 {
					continue
				}
				if !slices.Equal(d.Unreadable, []string{tt.part}) {
					t.Fatalf("unreadable %v, want only %s", d.Unreadable, tt.part)
				}
				// The turn's own row is whole: its question and answer.
				if d.UserMessage != tr.User || d.FinalText != tr.Final {
					t.Fatalf("turn %s read as %q / %q", tr.ID, d.UserMessage, d.FinalText)
				}
				if _, err := db.GetTurn(bg, tr.ID, true); !strings.Contains(apperr.MessageOf(err), "Reading the "+tt.part+" of turn "+tr.ID+" failed") {
					t.Fatalf("GetTurn names %q", apperr.MessageOf(err))
				}
				return
			}
			t.Fatal("no turn lost its " + tt.part)
		})
	}
}

func checkCountsEachTableOnItsOwn(t *testing.T, h storetest.History, fresh func(*testing.T) string) {
	want := map[string]int64{"sessions": int64(len(h.Sessions)), "turns": int64(len(h.Turns)), "events": eventRows(t, fresh(t)), "messages": int64(2 * len(h.Turns))}
	for _, table := range damagedTables {
		t.Run(table, func(t *testing.T) {
			path, page := damaged(t, fresh, table)
			db, err := store.OpenReadOnly(bg, path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			rep, err := db.Check(bg)
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK || !slices.Equal(rep.Unreadable, []string{table}) {
				t.Fatalf("report ok=%v unreadable=%v", rep.OK, rep.Unreadable)
			}
			if !slices.Contains(rep.DamagedPages, store.DamagedPage{Table: table, Page: int64(page)}) {
				t.Fatalf("damaged pages %v lack page %d of %s", rep.DamagedPages, page, table)
			}
			for _, c := range rep.Tables {
				switch {
				case c.Name == table && (c.Complete || c.Rows <= 0 || c.Rows >= want[table]):
					t.Errorf("%s: %+v, want a partial count in (0, %d)", table, c, want[table])
				case c.Name != table && (!c.Complete || c.Rows != want[c.Name]):
					t.Errorf("%s: %+v, want all %d rows", c.Name, c, want[c.Name])
				}
			}
			if len(rep.Tables) != 4 || rep.Sessions == 0 || rep.Turns == 0 || rep.Events == 0 || rep.Messages == 0 {
				t.Fatalf("a count is missing or a false zero: %+v", rep.Tables)
			}
		})
	}
}

func salvageCopiesEveryIntactTurn(t *testing.T, h storetest.History, fresh func(*testing.T) string) {
	for _, table := range damagedTables {
		t.Run(table, func(t *testing.T) {
			path, _ := damaged(t, fresh, table)
			src, err := store.OpenReadOnly(bg, path)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			// What is intact in the source: turns that read whole, with
			// their session.
			intact := map[string]bool{}
			for _, tr := range h.Turns {
				d, err := src.ReadTurn(bg, tr.ID, true)
				if err == nil && len(d.Unreadable) == 0 && len(d.Events) == tr.Events && len(d.Messages) == tr.Messages {
					intact[tr.ID] = true
				}
			}
			if len(intact) == 0 || len(intact) == len(h.Turns) && table != "sessions" {
				t.Fatalf("%d of %d turns intact", len(intact), len(h.Turns))
			}
			out := filepath.Join(t.TempDir(), "salvaged", "agentdeck.db")
			rep, err := src.Salvage(bg, out)
			if err != nil {
				t.Fatalf("Salvage: %v", err)
			}
			if rep.Complete {
				t.Fatal("the report says nothing was lost")
			}
			row := map[string]store.SalvageTable{}
			for _, st := range rep.Tables {
				row[st.Name] = st
			}
			st := row[table]
			if st.Unreadable == 0 || st.Read == 0 {
				t.Fatalf("%s: %+v, want unreadable stretches", table, st)
			}
			if table == "events" {
				// No index counts events: the report names the turns
				// whose events may be incomplete, every damaged one among
				// them, and a lower bound.
				if st.LostCount != "at_least" || st.Read == 0 {
					t.Fatalf("events: %+v", st)
				}
				for _, tr := range h.Turns {
					if !intact[tr.ID] && !slices.Contains(st.Affected, tr.ID) {
						t.Fatalf("turn %s lost events but is not among the affected %v", tr.ID, st.Affected)
					}
				}
			} else if st.Lost <= 0 || st.LostCount != "exact" || st.Read+st.Lost != wantRows(h, table) {
				t.Fatalf("%s: lost %d (%s), read %d of %d", table, st.Lost, st.LostCount, st.Read, wantRows(h, table))
			}

			db, err := store.Open(bg, out, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if chk, err := db.Check(bg); err != nil || !chk.OK {
				t.Fatalf("the salvaged file does not pass check: %+v %v", chk, err)
			}
			for _, tr := range h.Turns {
				d, err := db.GetTurn(bg, tr.ID, true)
				if !intact[tr.ID] {
					continue
				}
				if err != nil {
					t.Fatalf("intact turn %s: %v", tr.ID, err)
				}
				if d.UserMessage != tr.User || d.FinalText != tr.Final || len(d.Events) != tr.Events || len(d.Messages) != tr.Messages || d.SessionID != tr.SessionID {
					t.Fatalf("turn %s: %q %q %d events %d messages, want %q %q %d %d", tr.ID, d.UserMessage, d.FinalText, len(d.Events), len(d.Messages), tr.User, tr.Final, tr.Events, tr.Messages)
				}
			}
			switch table {
			case "sessions":
				// Every turn is kept; those whose session was lost are in
				// a placeholder.
				if rep.PlaceholderSessions == 0 || int64(rep.PlaceholderSessions) != st.Lost {
					t.Fatalf("%d placeholders for %d lost sessions", rep.PlaceholderSessions, st.Lost)
				}
				for _, tr := range h.Turns {
					if _, err := db.GetTurn(bg, tr.ID, false); err != nil {
						t.Fatalf("turn %s of a lost session: %v", tr.ID, err)
					}
				}
			case "turns":
				// Turns whose row was lost come back from their messages.
				if int64(rep.RecoveredTurns) != st.Lost {
					t.Fatalf("%d turns remade for %d lost", rep.RecoveredTurns, st.Lost)
				}
				for _, tr := range h.Turns {
					d, err := db.GetTurn(bg, tr.ID, false)
					if err != nil || d.UserMessage != tr.User || d.FinalText != tr.Final {
						t.Fatalf("turn %s: %q %q %v", tr.ID, d.UserMessage, d.FinalText, err)
					}
				}
			}
			// The search index was built from the copy.
			if hits, err := db.Search(bg, "margin widened", 5); err != nil || len(hits) == 0 || rep.SearchEntries == 0 {
				t.Fatalf("search: %d hits, %v, %d entries", len(hits), err, rep.SearchEntries)
			}
			// A salvage never overwrites a file.
			before := storetest.Files(t, out)
			if _, err := src.Salvage(bg, out); apperr.CodeOf(err) != apperr.Conflict {
				t.Fatalf("a second salvage into %s: %v", out, err)
			}
			if !slices.Equal(before, storetest.Files(t, out)) {
				t.Fatal("the second salvage changed the first one's file")
			}
		})
	}
}

func wantRows(h storetest.History, table string) int64 {
	switch table {
	case "sessions":
		return int64(len(h.Sessions))
	case "turns":
		return int64(len(h.Turns))
	case "messages":
		return int64(2 * len(h.Turns))
	}
	return 0
}

func salvageOfAWholeFileLosesNothing(t *testing.T, _ storetest.History, fresh func(*testing.T) string) {
	src, err := store.OpenReadOnly(bg, fresh(t))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	rep, err := src.Salvage(bg, filepath.Join(t.TempDir(), "copy.db"))
	if err != nil || !rep.Complete || rep.PlaceholderSessions != 0 || rep.RecoveredTurns != 0 {
		t.Fatalf("%+v %v", rep, err)
	}
	for _, st := range rep.Tables {
		if st.Read != st.Copied || st.Dropped != 0 || st.Lost != 0 || st.Unreadable != 0 {
			t.Fatalf("%+v", st)
		}
	}
}

func recoveryLeavesADamagedFileAlone(t *testing.T, _ storetest.History, fresh func(*testing.T) string) {
	path := fresh(t)
	// A turn left running by a process that is gone.
	cmd := exec.Command("sleep", "3600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	dead := store.OwnerOf(cmd.Process.Pid)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	as, err := store.Open(bg, path, store.Options{Owner: &dead})
	if err != nil {
		t.Fatal(err)
	}
	s, err := as.CreateSession(bg, store.Session{Title: "killed"})
	if err != nil {
		t.Fatal(err)
	}
	orphan, err := as.StartTurn(bg, store.Turn{SessionID: s.ID, UserMessage: "tell me"})
	if err != nil {
		t.Fatal(err)
	}
	as.Close()
	storetest.ZeroMiddlePage(t, path, "events")

	db, err := store.Open(bg, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rep, err := db.Check(bg) // meets the damage
	if err != nil || rep.OK {
		t.Fatalf("%+v %v", rep, err)
	}
	if met, _ := db.Damaged(); !met {
		t.Fatal("the check met no damage")
	}
	before := storetest.Files(t, path)
	if got, err := db.RecoverOrphans(bg, ""); err != nil || len(got) != 0 {
		t.Fatalf("RecoverOrphans in a damaged file: %v %v", got, err)
	}
	if _, err := db.RecoverTurn(bg, orphan.ID); apperr.CodeOf(err) != apperr.Damaged {
		t.Fatalf("RecoverTurn in a damaged file: %v", err)
	}
	if !slices.Equal(before, storetest.Files(t, path)) {
		t.Fatal("recovery wrote into the damaged file")
	}
	if d, err := db.GetTurn(bg, orphan.ID, false); err != nil || d.State != store.StateRunning {
		t.Fatalf("the dead turn: %v %v", d.State, err)
	}
}

func backupNamesTheCause(t *testing.T, _ storetest.History, fresh func(*testing.T) string) {
	t.Run("damaged source", func(t *testing.T) {
		path, _ := damaged(t, fresh, "events")
		db, err := store.OpenReadOnly(bg, path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		out := filepath.Join(t.TempDir(), "backup.db")
		err = db.Backup(bg, out)
		if apperr.CodeOf(err) != apperr.Damaged || !strings.Contains(apperr.MessageOf(err), "db salvage "+out) {
			t.Fatalf("backup of a damaged file: %v", err)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Fatal("the failed backup left its file")
		}
	})
	t.Run("folder is a file", func(t *testing.T) {
		db, err := store.OpenReadOnly(bg, fresh(t))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		file := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(file, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		err = db.Backup(bg, filepath.Join(file, "b.db"))
		if apperr.CodeOf(err) != apperr.Unavailable || !strings.Contains(apperr.MessageOf(err), "not a directory") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("folder not writable", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root writes anywhere")
		}
		db, err := store.OpenReadOnly(bg, fresh(t))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		dir := t.TempDir()
		os.Chmod(dir, 0o500)
		defer os.Chmod(dir, 0o700)
		err = db.Backup(bg, filepath.Join(dir, "b.db"))
		if apperr.CodeOf(err) != apperr.Unavailable || !strings.Contains(apperr.MessageOf(err), "permission denied") {
			t.Fatalf("%v", err)
		}
	})
}

func listsKeepWhatIsReadable(t *testing.T, h storetest.History, fresh func(*testing.T) string) {
	t.Run("sessions", func(t *testing.T) {
		path, _ := damaged(t, fresh, "sessions")
		db, err := store.Open(bg, path, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		got, lost, err := db.ReadSessions(bg)
		if err != nil || lost == 0 || len(got)+lost != len(h.Sessions) {
			t.Fatalf("%d sessions read, %d lost of %d: %v", len(got), lost, len(h.Sessions), err)
		}
		for i := 1; i < len(got); i++ {
			if got[i].UpdatedAt.After(got[i-1].UpdatedAt) {
				t.Fatal("not most recent first")
			}
		}
		if got[0].Turns != 2 {
			t.Fatalf("turn count %d", got[0].Turns)
		}
	})
	t.Run("turns", func(t *testing.T) {
		path, _ := damaged(t, fresh, "turns")
		db, err := store.Open(bg, path, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		read, lost := 0, 0
		for _, s := range h.Sessions {
			turns, seqs, err := db.SessionTurns(bg, s.ID)
			if err != nil {
				t.Fatal(err)
			}
			for i, tr := range turns {
				if tr.SessionID != s.ID || i > 0 && tr.Seq <= turns[i-1].Seq {
					t.Fatalf("turns %+v", turns)
				}
			}
			read, lost = read+len(turns), lost+len(seqs)
		}
		if lost == 0 || read+lost != len(h.Turns) {
			t.Fatalf("%d turns read, %d lost of %d", read, lost, len(h.Turns))
		}
	})
}

// pagesOf lists the pages of table of one kind ('internal', 'leaf',
// 'overflow'), the root aside.
func pagesOf(t *testing.T, path, table, kind string) []int {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	rows, err := raw.Query(`SELECT pageno FROM dbstat WHERE name = ? AND pagetype = ? AND path != '/' ORDER BY path`, table, kind)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var p int
		rows.Scan(&p)
		out = append(out, p)
	}
	return out
}

func TestSalvageStepsOverAnInteriorPageAndABrokenRow(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "agentdeck.db")
	db, err := store.Open(bg, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := storetest.BuildHistory(t, db, 100, 2)
	// One answer long enough to spill over several overflow pages.
	long := strings.Repeat("A very long answer, line after line. ", 600)
	tr, err := db.StartTurn(bg, store.Turn{SessionID: h.Sessions[0].ID, UserMessage: "Say a lot"})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.FinishTurn(bg, tr.ID, 0, turn.Result{OK: true, Outcome: turn.OutcomeSucceeded, FinalText: "long",
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "Say a lot"}, {Role: llm.RoleAssistant, Content: long}}}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	storetest.Checkpoint(t, path)
	interior := pagesOf(t, path, "events", "internal")
	overflow := pagesOf(t, path, "messages", "overflow")
	if len(interior) == 0 || len(overflow) < 2 {
		t.Fatalf("%d interior events pages, %d overflow messages pages", len(interior), len(overflow))
	}
	total := eventRows(t, path)
	storetest.ZeroPage(t, path, interior[0])
	storetest.ZeroPage(t, path, overflow[1])

	src, err := store.OpenReadOnly(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	rep, err := src.Salvage(bg, filepath.Join(t.TempDir(), "out.db"))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]store.SalvageTable{}
	for _, st := range rep.Tables {
		byName[st.Name] = st
	}
	// The broken row alone is lost; its turn is kept with the other
	// message.
	if m := byName["messages"]; m.Lost != 1 || m.LostCount != "exact" || m.Copied != int64(2*len(h.Turns)+1) {
		t.Fatalf("messages: %+v", m)
	}
	// An interior page loses the leaves under it, and the walk goes on
	// after them.
	e := byName["events"]
	if e.Unreadable == 0 || e.Read == 0 || e.Read >= total || len(e.Affected) < 2 {
		t.Fatalf("events: read %d of %d, %d stretches, %d affected turns", e.Read, total, e.Unreadable, len(e.Affected))
	}
	last := h.Turns[len(h.Turns)-1]
	out, err := store.Open(bg, rep.Out, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if d, err := out.GetTurn(bg, last.ID, true); !slices.Contains(e.Affected, last.ID) && (err != nil || len(d.Events) != last.Events) {
		t.Fatalf("the last turn, after the damaged interior page: %d events, %v", len(d.Events), err)
	}
	if chk, err := out.Check(bg); err != nil || !chk.OK {
		t.Fatalf("%+v %v", chk, err)
	}
}

// metByManyReadersAtOnce: readers meeting the damage together mark it
// once and all get the Damaged error (run with -race).
func metByManyReadersAtOnce(t *testing.T, h storetest.History, fresh func(*testing.T) string) {
	path, _ := damaged(t, fresh, "events")
	var notices atomic.Int32
	db, err := store.Open(bg, path, store.Options{Readers: 8, OnDamage: func(string) { notices.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 8*len(h.Turns))
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, tr := range h.Turns {
				if _, err := db.GetTurn(bg, tr.ID, true); err != nil {
					errs <- err
				}
				db.Damaged()
			}
		}()
	}
	wg.Wait()
	close(errs)
	n := 0
	for err := range errs {
		n++
		if apperr.CodeOf(err) != apperr.Damaged {
			t.Fatalf("%v", err)
		}
	}
	if n == 0 || notices.Load() != 1 {
		t.Fatalf("%d failed reads, %d notices", n, notices.Load())
	}
}

package cli

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/store/storetest"
)

// The advice every damage notice ends with; a command prints it once.
const salvageAdvice = "agentdeck db salvage NEW_FILE"

// TestDamagedDatabase writes zeros over a page of each main table of a
// real history (made once, by the store's write path) and runs the
// commands a person would on it.
func TestDamagedDatabase(t *testing.T) {
	// Not parallel: goleak would count the goroutines of tests running beside it.
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() {
		goleak.VerifyNone(t, opt)
	})
	ctx := context.Background()
	base := filepath.Join(t.TempDir(), "base.db")
	db, err := store.Open(ctx, base, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := storetest.BuildHistory(t, db, 100, 2)
	db.Close()
	storetest.Checkpoint(t, base)
	counts := map[string]int{"sessions": len(h.Sessions), "turns": len(h.Turns), "messages": 2 * len(h.Turns), "events": 0}
	for _, tr := range h.Turns {
		counts["events"] += tr.Events
	}

	for _, table := range []string{"sessions", "turns", "messages", "events"} {
		t.Run(table, func(t *testing.T) {
			// A page whose damage a run into some session meets before
			// it writes (see damagedSession): the middle one, or the next.
			var path, victim string
			var page int
			for after := 0; victim == "" && after < 4; after++ {
				path = filepath.Join(t.TempDir(), "agentdeck.db")
				storetest.CopyFile(t, base, path)
				page = storetest.ZeroLeafPage(t, path, table, after)
				victim = damagedSession(t, path, h, table)
			}
			if victim == "" {
				t.Fatalf("no session meets the damaged %s pages", table)
			}
			srv := llmtest.NewServer(t)

			t.Run("db check", func(t *testing.T) {
				r := agentdeck(t, path, srv.URL(), nil, nil, "db", "check")
				if r.code != ExitFailed {
					t.Fatalf("exit %d: %s %s", r.code, r.stdout, r.stderr)
				}
				for name, n := range counts {
					if name == table {
						continue
					}
					if !strings.Contains(r.stdout, " "+itoa(n)+" "+name) {
						t.Errorf("the count of %s (%d) is missing: %s", name, n, r.stdout)
					}
				}
				for _, want := range []string{table + " unreadable in part", "damaged: page " + itoa(page) + " (" + table + ")", "next: " + strings.Replace(salvageAdvice, "NEW_FILE", "NEW_FILE --db "+path, 1)} {
					if !strings.Contains(r.stdout, want) {
						t.Errorf("db check does not say %q:\n%s", want, r.stdout)
					}
				}
				if strings.Contains(r.stdout, " 0 ") {
					t.Errorf("a false zero: %s", r.stdout)
				}
				var rep store.CheckReport
				j := agentdeck(t, path, srv.URL(), nil, nil, "db", "check", "--json")
				if err := json.Unmarshal([]byte(j.stdout), &rep); err != nil || j.code != ExitFailed || !slices.Equal(rep.Unreadable, []string{table}) {
					t.Fatalf("db check --json: %d %v %+v", j.code, err, rep)
				}
			})

			t.Run("sessions show", func(t *testing.T) {
				r := agentdeck(t, path, srv.URL(), nil, nil, "sessions", "show", victim)
				if r.code != ExitFailed || !strings.Contains(r.stderr, "could not be read") {
					t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
				}
				onceNotice(t, r, path, table)
				// It shows the turns it can read.
				shown := 0
				for _, tr := range h.Turns {
					if tr.SessionID == victim && strings.Contains(r.stdout, tr.ID) {
						shown++
					}
				}
				if shown == 0 && table != "turns" {
					t.Fatalf("no turn shown:\n%s", r.stdout)
				}
				if strings.Contains(r.stdout+r.stderr, "charts") {
					t.Fatalf("blames charts:\n%s", r.stderr)
				}
			})

			t.Run("turns show", func(t *testing.T) {
				id := damagedTurn(t, path, h)
				if id == "" {
					return // the sessions table's damage spares the turns
				}
				r := agentdeck(t, path, srv.URL(), nil, nil, "turns", "show", id)
				if r.code != ExitFailed {
					t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
				}
				onceNotice(t, r, path, table)
				if table != "turns" && !strings.Contains(r.stderr, "turn's "+table+" could not be read") {
					t.Fatalf("does not say what of the turn is missing:\n%s", r.stderr)
				}
			})

			t.Run("sessions list", func(t *testing.T) {
				r := agentdeck(t, path, srv.URL(), nil, nil, "sessions", "list")
				lines := strings.Count(r.stdout, "\n")
				if table != "sessions" {
					// The list reads no damaged page.
					if r.code != ExitOK || lines != len(h.Sessions) {
						t.Fatalf("exit %d, %d lines: %s", r.code, lines, r.stderr)
					}
					return
				}
				if r.code != ExitFailed || lines == 0 || lines >= len(h.Sessions) || !strings.Contains(r.stderr, "could not be read") {
					t.Fatalf("exit %d, %d of %d sessions listed:\n%s", r.code, lines, len(h.Sessions), r.stderr)
				}
				onceNotice(t, r, path, table)
			})

			t.Run("run refuses", func(t *testing.T) {
				before := storetest.Files(t, path)
				r := agentdeck(t, path, srv.URL(), nil, nil, "run", "--session", victim, "And then?")
				if r.code != ExitFailed {
					t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
				}
				onceNotice(t, r, path, table)
				if !slices.Equal(before, storetest.Files(t, path)) {
					t.Fatal("a refused run wrote into the damaged file")
				}
				if table == "events" && !strings.Contains(r.stderr, "did not start the turn") && !strings.Contains(r.stderr, "--force") {
					t.Fatalf("the refusal does not say why or how to insist:\n%s", r.stderr)
				}
			})

			if table == "events" {
				// The session's history is readable; only its latest turn's
				// events are not: --force writes the turn.
				t.Run("run --force writes", func(t *testing.T) {
					srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("Then it rained.", 3)})
					r := agentdeck(t, path, srv.URL(), nil, nil, "run", "--force", "--session", victim, "And then?")
					if r.code != ExitOK || !strings.Contains(r.stdout, "Then it rained.") {
						t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
					}
					show := agentdeck(t, path, srv.URL(), nil, nil, "sessions", "show", victim, "--json")
					var v struct{ Turns []TurnView }
					if err := json.Unmarshal([]byte(show.stdout), &v); err != nil || len(v.Turns) != 3 || v.Turns[2].FinalText != "Then it rained." {
						t.Fatalf("after --force: %v %+v", err, v.Turns)
					}
				})
			}

			t.Run("db salvage", func(t *testing.T) {
				out := filepath.Join(t.TempDir(), "salvaged.db")
				r := agentdeck(t, path, srv.URL(), nil, nil, "db", "salvage", out)
				if r.code != ExitOK || !strings.Contains(r.stdout, "salvaged "+path+" into "+out) || !strings.Contains(r.stdout, "unreadable stretch") {
					t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
				}
				if chk := agentdeck(t, out, srv.URL(), nil, nil, "db", "check"); chk.code != ExitOK || !strings.Contains(chk.stdout, "integrity: ok") {
					t.Fatalf("the salvaged file: %d %s", chk.code, chk.stdout)
				}
				var rep store.SalvageReport
				j := agentdeck(t, path, srv.URL(), nil, nil, "db", "salvage", filepath.Join(t.TempDir(), "again.db"), "--json")
				if err := json.Unmarshal([]byte(j.stdout), &rep); err != nil || j.code != ExitOK || rep.Complete {
					t.Fatalf("db salvage --json: %d %v %+v", j.code, err, rep)
				}
				if again := agentdeck(t, path, srv.URL(), nil, nil, "db", "salvage", out); again.code != ExitFailed || !strings.Contains(again.stderr, "never overwrites") {
					t.Fatalf("salvage over an existing file: %d %s", again.code, again.stderr)
				}
				// The salvaged file serves the intact turns: every turn of
				// a session that was not damaged.
				list := agentdeck(t, out, srv.URL(), nil, nil, "sessions", "list")
				if list.code != ExitOK || strings.Count(list.stdout, "\n") != len(h.Sessions) {
					t.Fatalf("sessions of the salvaged file: %d\n%s", list.code, list.stderr)
				}
			})

			t.Run("db backup names the damage", func(t *testing.T) {
				out := filepath.Join(t.TempDir(), "backup.db")
				r := agentdeck(t, path, srv.URL(), nil, nil, "db", "backup", out)
				if r.code != ExitFailed || !strings.Contains(r.stderr, "is damaged") || !strings.Contains(r.stderr, "db salvage "+out) {
					t.Fatalf("exit %d: %s", r.code, r.stderr)
				}
			})
		})
	}
}

// onceNotice checks that a command said once that the file is damaged,
// naming it and the table.
func onceNotice(t *testing.T, r cliRun, path, table string) {
	t.Helper()
	if n := strings.Count(r.stderr, salvageAdvice); n != 1 {
		t.Fatalf("the advice is given %d times, want once:\n%s", n, r.stderr)
	}
	if !strings.Contains(r.stderr, path+" is damaged") || !strings.Contains(r.stderr, table) {
		t.Fatalf("the notice does not name the file and the %s table:\n%s", table, r.stderr)
	}
	if strings.Contains(r.stderr, "Something went wrong") || strings.Contains(r.stderr, "goroutine") {
		t.Fatalf("a generic error:\n%s", r.stderr)
	}
}

// damagedSession is a session whose damage a run into it meets before it
// writes: its own row (sessions), its conversation (turns, messages), or
// its latest turn's events (events); "" if none does.
func damagedSession(t *testing.T, path string, h storetest.History, table string) string {
	t.Helper()
	ctx := context.Background()
	db, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	raw, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, s := range h.Sessions {
		var err error
		switch table {
		case "sessions":
			_, err = db.GetSession(ctx, s.ID)
		case "turns", "messages":
			_, err = db.History(ctx, s.ID, 0)
		case "events":
			var latest string
			for _, tr := range h.Turns {
				if tr.SessionID == s.ID {
					latest = tr.ID
				}
			}
			var n int64
			err = raw.QueryRow(`SELECT COUNT(*) FROM events WHERE turn_id = ?`, latest).Scan(&n)
			if err == nil {
				if _, herr := db.History(ctx, s.ID, 0); herr != nil {
					t.Fatalf("the history of %s: %v", s.ID, herr)
				}
			}
		}
		if err != nil {
			if table != "events" && apperr.CodeOf(err) != apperr.Damaged {
				t.Fatalf("reading session %s: %v", s.ID, err)
			}
			return s.ID
		}
	}
	return ""
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// damagedTurn is a turn that cannot be read whole, "" if none.
func damagedTurn(t *testing.T, path string, h storetest.History) string {
	t.Helper()
	ctx := context.Background()
	db, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tr := range h.Turns {
		if _, err := db.GetTurn(ctx, tr.ID, true); err != nil {
			return tr.ID
		}
	}
	return ""
}

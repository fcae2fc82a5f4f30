package store

import (
	"bytes"
	"database/sql"
	"math"
	"path/filepath"
	"reflect"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// usageSeen is everything a sum of usage gives: the report (totals, rows,
// series, costliest sessions and turns), a provider's spend against its
// budget, and the original session's usage.
type usageSeen struct {
	Report  UsageReport
	Spent   float64
	Session UsageSum
}

func seeUsage(t *testing.T, db *DB, sessionID string) usageSeen {
	t.Helper()
	rep, err := db.Usage(ctx, UsageQuery{})
	if err != nil {
		t.Fatal(err)
	}
	spent, err := db.ProviderSpend(ctx, "cloud", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := db.SessionUsage(ctx, sessionID)
	if err != nil {
		t.Fatal(err)
	}
	return usageSeen{rep, spent, sum}
}

// exportSession is the session's JSON export.
func exportSession(t *testing.T, db *DB, sessionID string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := export.Write(ctx, db, sessionID, export.JSON, &buf, export.Options{}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func importBytes(t *testing.T, db *DB, b []byte) Session {
	t.Helper()
	s, err := db.Import(ctx, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func forkAt(t *testing.T, db *DB, turnID string) Session {
	t.Helper()
	s, err := db.ForkSession(ctx, turnID)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func sessionTurnList(t *testing.T, db *DB, sessionID string) []Turn {
	t.Helper()
	page, err := db.ListTurns(ctx, sessionID, Page{})
	if err != nil {
		t.Fatal(err)
	}
	return page.Turns
}

// TestCopiedTurnsAreNotCounted: a fork or an import copies turns with
// their model calls; the copies are marked as copied, keep their figures,
// and no sum counts them: usage, a provider's spend (its budget) and the
// sessions' usage are the same after as before, however many copies are
// made. A turn run in the copy afterwards is this database's, and counts.
func TestCopiedTurnsAreNotCounted(t *testing.T) {
	t.Parallel()
	price := &llm.Price{InputPerM: 3, OutputPerM: 15, Source: llm.PriceUser}
	at := time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		name string
		// copy makes the copies of s (whose last turn is last) and returns
		// the session whose turns are checked, and how they are marked.
		copy func(t *testing.T, db *DB, s Session, last Turn) (Session, Copied)
	}{
		{"a fork", func(t *testing.T, db *DB, s Session, last Turn) (Session, Copied) {
			return forkAt(t, db, last.ID), CopiedFork
		}},
		{"a fork of a fork", func(t *testing.T, db *DB, s Session, last Turn) (Session, Copied) {
			f := forkAt(t, db, last.ID)
			return forkAt(t, db, f.ActiveTurnID), CopiedFork
		}},
		{"an import of a session that is here", func(t *testing.T, db *DB, s Session, last Turn) (Session, Copied) {
			return importBytes(t, db, exportSession(t, db, s.ID)), CopiedImport
		}},
		{"two imports", func(t *testing.T, db *DB, s Session, last Turn) (Session, Copied) {
			b := exportSession(t, db, s.ID)
			importBytes(t, db, b)
			return importBytes(t, db, b), CopiedImport
		}},
		{"an import of a fork", func(t *testing.T, db *DB, s Session, last Turn) (Session, Copied) {
			f := forkAt(t, db, last.ID)
			return importBytes(t, db, exportSession(t, db, f.ID)), CopiedImport
		}},
		{"an import into another database", func(t *testing.T, db *DB, s Session, last Turn) (Session, Copied) {
			b := exportSession(t, db, s.ID)
			other := mustOpen(t)
			cp := importBytes(t, other, b)
			if rep, err := other.Usage(ctx, UsageQuery{}); err != nil || rep.Total.Calls != 0 || len(rep.TopTurns) != 0 {
				t.Fatalf("the other database counts the imported calls: %+v %v", rep.Total, err)
			}
			for _, tr := range sessionTurnList(t, other, cp.ID) {
				if tr.Copied != CopiedImport {
					t.Fatalf("turn %d imported into another database is marked %q", tr.Seq, tr.Copied)
				}
			}
			return s, ""
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db := mustOpen(t)
			s := newSession(t, db, "Original")
			storeCalls(t, db, s.ID, "chat", "first question", pricedCall("cloud", "big", price, at, 1_000, 200), pricedCall("cloud", "big", price, at.Add(time.Second), 500, 50))
			last := storeCalls(t, db, s.ID, "chat", "second question", pricedCall("cloud", "big", price, at.Add(time.Minute), 2_000, 100))
			before := seeUsage(t, db, s.ID)
			if before.Report.Total.Calls != 3 || before.Spent == 0 {
				t.Fatalf("before: %+v", before)
			}

			cp, mark := tc.copy(t, db, s, last)
			if after := seeUsage(t, db, s.ID); !reflect.DeepEqual(after, before) {
				t.Fatalf("usage changed with the copy:\nbefore %+v\nafter  %+v", before, after)
			}
			if cp.ID == s.ID {
				return // the copy is in another database
			}
			turns := sessionTurnList(t, db, cp.ID)
			if len(turns) != 2 {
				t.Fatalf("the copy has %d turns", len(turns))
			}
			for _, tr := range turns {
				if tr.Copied != mark {
					t.Errorf("copied turn %d is marked %q, want %q", tr.Seq, tr.Copied, mark)
				}
				// Its figures are kept, to show.
				d, err := db.GetTurn(ctx, tr.ID, false)
				if err != nil || d.Copied != mark || len(d.Result) < 3 {
					t.Fatalf("copied turn %d: %+v %v", tr.Seq, d.Turn, err)
				}
			}
			if u, err := db.SessionUsage(ctx, cp.ID); err != nil || u != (UsageSum{}) {
				t.Fatalf("the copy's own usage: %+v %v", u, err)
			}

			// A turn run in the copy is this database's: it counts, once.
			own := storeCalls(t, db, cp.ID, "chat", "a new question", pricedCall("cloud", "big", price, at.Add(time.Hour), 100, 10))
			if d, err := db.GetTurn(ctx, own.ID, false); err != nil || d.Copied != "" {
				t.Fatalf("a turn run in the copy is marked %q (%v)", d.Copied, err)
			}
			rep, err := db.Usage(ctx, UsageQuery{})
			if err != nil || rep.Total.Calls != 4 || rep.TopTurns[len(rep.TopTurns)-1].TurnID != own.ID {
				t.Fatalf("after a turn in the copy: %+v %+v %v", rep.Total, rep.TopTurns, err)
			}
			if u, err := db.SessionUsage(ctx, cp.ID); err != nil || u.Calls != 1 || u.InputTokens != 100 {
				t.Fatalf("the copy's own usage after its own turn: %+v %v", u, err)
			}
		})
	}
}

// TestCollectedTurnsCount: a session an evaluation run of this database
// ran on another machine, collected (ImportCollected), is this database's
// work: its calls count.
func TestCollectedTurnsCount(t *testing.T) {
	t.Parallel()
	price := &llm.Price{InputPerM: 3, OutputPerM: 15, Source: llm.PriceUser}
	worker := mustOpen(t)
	s := newSession(t, worker, "Case 1")
	storeCalls(t, worker, s.ID, "chat", "the case", pricedCall("cloud", "big", price, time.Now().UTC(), 1_000, 200))
	db := mustOpen(t)
	got, err := db.ImportCollected(ctx, bytes.NewReader(exportSession(t, worker, s.ID)))
	if err != nil || got.ID != s.ID {
		t.Fatalf("collected %+v %v", got, err)
	}
	want, _ := worker.Usage(ctx, UsageQuery{})
	if rep, err := db.Usage(ctx, UsageQuery{}); err != nil || rep.Total != want.Total || rep.Total.Calls != 1 {
		t.Fatalf("collected usage %+v, the worker's %+v (%v)", rep.Total, want.Total, err)
	}
}

// TestTopTurnsNameTheMessageAContinuationContinues: a continuation's own
// message is the instruction sent to the model (or nothing, when the
// answer was continued as a prefix); the costliest turns show the
// person's message it continues the answer to.
func TestTopTurnsNameTheMessageAContinuationContinues(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := newSession(t, db, "Essay")
	price := &llm.Price{InputPerM: 3, OutputPerM: 15, Source: llm.PriceUser}
	at := time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)
	first := storeCalls(t, db, s.ID, "chat", "write the long essay", pricedCall("cloud", "big", price, at, 10, 10))
	continueTurn := func(message string, in int) Turn {
		tr, err := db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: message, Workflow: "chat", Model: "big", Continues: true})
		if err != nil {
			t.Fatal(err)
		}
		c := pricedCall("cloud", "big", price, at.Add(time.Duration(in)*time.Second), in, 100)
		res := turn.Result{OK: true, Outcome: turn.OutcomeSucceeded, Termination: turn.Termination{Kind: turn.TermNaturalCompletion}, FinalText: "more",
			Usage: c.Usage, Cost: llm.CallsCost([]llm.CallDiagnostics{c}), ModelCalls: []llm.CallDiagnostics{c}}
		if err := db.FinishTurn(ctx, tr.ID, 0, res); err != nil {
			t.Fatal(err)
		}
		return tr
	}
	// An instruction, then a prefix continuation of the continuation.
	second := continueTurn("Continue your previous answer exactly where it stopped.", 2_000)
	third := continueTurn("", 1_000)
	rep, err := db.Usage(ctx, UsageQuery{})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		id, message string
		continues   bool
	}
	var got []row
	for _, it := range rep.TopTurns {
		got = append(got, row{it.TurnID, it.Message, it.Continues})
	}
	want := []row{{second.ID, "write the long essay", true}, {third.ID, "write the long essay", true}, {first.ID, "write the long essay", false}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("top turns %+v, want %+v", got, want)
	}
}

// TestMigrationFindsCopiesMadeBefore: in a database from before turns were
// marked, the copies a fork or an import into the same database left are
// found when it is opened (the same start, number and message as a turn
// stored before them) and stop counting; the originals, and a turn that
// only looks alike in another way, keep counting.
func TestMigrationFindsCopiesMadeBefore(t *testing.T) {
	t.Parallel()
	ms, err := loadMigrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "old.db")
	old, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{}
	for _, m := range ms {
		if m.name == "0012_copied_turns.sql" {
			break
		}
		fsys["migrations/"+m.name] = &fstest.MapFile{Data: []byte(m.sql)}
	}
	if err := migrate(ctx, old, fsys); err != nil {
		t.Fatal(err)
	}
	const at, at2 = "2026-11-03T10:00:00.123456789Z", "2026-11-03T10:05:00.5Z"
	for _, q := range []string{
		`INSERT INTO sessions (id, title, created_at, updated_at, model) VALUES ('orig', 'Original', '` + at + `', '` + at + `', 'm')`,
		`INSERT INTO sessions (id, title, created_at, updated_at, model, forked_from_session_id, forked_from_turn_id) VALUES ('fork', 'Original (fork)', '` + at + `', '` + at + `', 'm', 'orig', 'o1')`,
		`INSERT INTO sessions (id, title, created_at, updated_at, model) VALUES ('imp', 'Original (imported)', '` + at + `', '` + at + `', 'm')`,
		`INSERT INTO sessions (id, title, created_at, updated_at, model) VALUES ('other', 'Other', '` + at + `', '` + at + `', 'm')`,
		// The original, then its copies (stored later), then a new turn of the fork.
		`INSERT INTO turns (id, session_id, seq, user_message, state, started_at) VALUES ('o1', 'orig', 1, 'hello', 'completed', '` + at + `')`,
		`INSERT INTO turns (id, session_id, seq, user_message, state, started_at) VALUES ('f1', 'fork', 1, 'hello', 'completed', '` + at + `')`,
		`INSERT INTO turns (id, session_id, seq, user_message, state, started_at) VALUES ('i1', 'imp', 1, 'hello', 'completed', '` + at + `')`,
		`INSERT INTO turns (id, session_id, seq, user_message, state, started_at) VALUES ('f2', 'fork', 2, 'hello', 'completed', '` + at2 + `')`,
		// Alike but for the message: not a copy.
		`INSERT INTO turns (id, session_id, seq, user_message, state, started_at) VALUES ('x1', 'other', 1, 'hello there', 'completed', '` + at + `')`,
	} {
		if _, err := old.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, id := range []string{"o1", "f1", "i1", "f2", "x1"} {
		if _, err := old.Exec(`INSERT INTO model_calls (turn_id, stage_id, idx, model, started_at, duration_ms, ttft_ms, input_tokens, output_tokens, cached_tokens, reasoning_tokens, estimated, ok, error, provider, cost_usd)
			VALUES (?, ?, 0, 'm', ?, 10, 5, 100, 10, 0, 0, 0, 1, '', 'cloud', 0.5)`, id, id, at); err != nil {
			t.Fatal(err)
		}
	}
	old.Close()

	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want := map[string]Copied{"o1": "", "f1": CopiedFork, "i1": CopiedImport, "f2": "", "x1": ""}
	for id, mark := range want {
		d, err := db.GetTurn(ctx, id, false)
		if err != nil || d.Copied != mark {
			t.Errorf("turn %s is marked %q, want %q (%v)", id, d.Copied, mark, err)
		}
	}
	rep, err := db.Usage(ctx, UsageQuery{})
	if err != nil || rep.Total.Calls != 3 {
		t.Fatalf("usage after the migration: %+v %v", rep.Total, err)
	}
	if spent, err := db.ProviderSpend(ctx, "cloud", time.Time{}); err != nil || math.Abs(spent-1.5) > 1e-9 {
		t.Fatalf("spent %v (%v)", spent, err)
	}
}

package store

import (
	"database/sql"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// searchEntries counts a turn's search entries and reads its mark.
func searchEntries(t *testing.T, db *DB, turnID string) (entries, pending int) {
	t.Helper()
	if err := db.reader.QueryRow(`SELECT (SELECT COUNT(*) FROM search WHERE turn_id = ?1), COALESCE((SELECT search_pending FROM turns WHERE id = ?1), 0)`, turnID).Scan(&entries, &pending); err != nil {
		t.Fatal(err)
	}
	return entries, pending
}

// TestSearchEntriesFollowTheTurn: the indexer writes a finished turn's
// entries; and a search finds a turn still marked, with no entries and
// the indexer not woken for it, by indexing it first: once, with the mark
// gone.
func TestSearchEntriesFollowTheTurn(t *testing.T) {
	// Not parallel: goleak would count the goroutines of tests running beside it.
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	db, err := Open(ctx, filepath.Join(t.TempDir(), "a.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := newSession(t, db, "birds")
	tr, _ := storeTurn(t, db, s.ID, "where do avocets nest", "avocets nest on bare mud")
	if err := db.IndexPending(ctx); err != nil {
		t.Fatal(err)
	}
	if entries, pending := searchEntries(t, db, tr.ID); entries != 2 || pending != 0 {
		t.Fatalf("after indexing: %d entries, mark %d; want 2 and cleared", entries, pending)
	}
	// What FinishTurn leaves before the indexer runs, without waking it.
	for _, q := range []string{`DELETE FROM search WHERE turn_id = ?`, `UPDATE turns SET search_pending = 1 WHERE id = ?`} {
		if _, err := db.writer.ExecContext(ctx, q, tr.ID); err != nil {
			t.Fatal(err)
		}
	}
	hits, err := db.Search(ctx, "avocets", 10)
	if err != nil || len(hits) != 2 {
		t.Fatalf("search right after the turn: %+v %v, want the question and the answer", hits, err)
	}
	if entries, pending := searchEntries(t, db, tr.ID); entries != 2 || pending != 0 {
		t.Fatalf("%d entries, mark %d: want 2 and cleared", entries, pending)
	}
	if err := db.IndexPending(ctx); err != nil {
		t.Fatal(err)
	}
	if entries, _ := searchEntries(t, db, tr.ID); entries != 2 {
		t.Fatalf("indexing again left %d entries, want 2", entries)
	}
}

// TestIndexerFollowsTheClosedLog: once a turn's event log closes, after
// FinishTurn and the ending events as the runner does it, the indexer
// writes the turn's entries with nobody searching; and it has not held
// the writer before that, while the turn still had events to store.
func TestIndexerFollowsTheClosedLog(t *testing.T) {
	t.Parallel()
	db, index, _ := openWatched(t)
	index.wait(t, db.idx.w) // the run at Open, which finds nothing
	s := newSession(t, db, "birds")
	tr, err := db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "where do terns fish"})
	if err != nil {
		t.Fatal(err)
	}
	log := db.NewEventLog(tr.ID, EventLogOptions{})
	res := turn.Result{OK: true, Outcome: turn.OutcomeSucceeded, Termination: turn.Termination{Kind: turn.TermNaturalCompletion}, FinalText: "terns fish offshore",
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "where do terns fish"}, {Role: llm.RoleAssistant, Content: "terns fish offshore"}}}
	before := db.idx.w.pokes.Load()
	if err := db.FinishTurn(ctx, tr.ID, 0, res); err != nil {
		t.Fatal(err)
	}
	if n := db.idx.w.pokes.Load(); n != before {
		t.Fatal("FinishTurn woke the indexer while the turn's ending events were still to be stored")
	}
	if err := log.Emit(turn.Event{ID: "e1", TurnID: tr.ID, Seq: 1, Type: turn.EventFinalAnswer, Data: []byte(`{"text":"terns fish offshore"}`)}); err != nil {
		t.Fatal(err)
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	index.wait(t, db.idx.w)
	if entries, pending := searchEntries(t, db, tr.ID); entries != 2 || pending != 0 {
		t.Fatalf("after the log closed: %d entries, mark %d; want 2 and cleared", entries, pending)
	}
}

// TestMarkedTurnIndexedByTheNextProcess: a process killed between
// FinishTurn and the indexing leaves the turn marked with no entries; the
// next process's search finds it, and a deleted marked turn leaves none.
func TestMarkedTurnIndexedByTheNextProcess(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "a.db")
	db, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(t, db, "birds")
	kept, _ := storeTurn(t, db, s.ID, "how do stilts feed", "stilts wade and pick")
	gone, _ := storeTurn(t, db, s.ID, "how do stilts sleep", "stilts sleep standing")
	db.Close()

	// What a kill before the indexer ran leaves: the mark and no entries.
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DELETE FROM search WHERE turn_id <> ''`, `UPDATE turns SET search_pending = 1`} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()

	db, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.DeleteTurn(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	hits, err := db.Search(ctx, "stilts", 10)
	if err != nil || len(hits) != 2 {
		t.Fatalf("search in the next process: %+v %v, want the kept turn's question and answer", hits, err)
	}
	for _, h := range hits {
		if h.TurnID != kept.ID {
			t.Fatalf("hit of turn %s, want only %s", h.TurnID, kept.ID)
		}
	}
	if entries, _ := searchEntries(t, db, gone.ID); entries != 0 {
		t.Fatalf("the deleted turn has %d entries", entries)
	}
}

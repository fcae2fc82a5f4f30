package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"

	_ "modernc.org/sqlite" // the raw connection that finds and checkpoints pages
)

// History is what BuildHistory stored: what a salvage must give back.
type History struct {
	Sessions []store.Session
	Turns    []StoredTurn
}

// StoredTurn is one turn as BuildHistory wrote it.
type StoredTurn struct {
	ID, SessionID, User, Final string
	// Events is how many events its log holds; Messages how many messages.
	Events, Messages int
}

// BuildHistory writes sessions × turnsEach turns through the store's own
// write path (CreateSession, StartTurn, the event log, FinishTurn), with
// enough text that the sessions, turns, messages and events tables each
// span several pages.
func BuildHistory(t testing.TB, db *store.DB, sessions, turnsEach int) History {
	t.Helper()
	ctx := context.Background()
	var h History
	for i := range sessions {
		s, err := db.CreateSession(ctx, store.Session{
			Title: fmt.Sprintf("Session %03d about %s", i, strings.Repeat("the quarterly figures and what they mean ", 3)),
			Model: "test-model", Workflow: "chat"})
		if err != nil {
			t.Fatal(err)
		}
		h.Sessions = append(h.Sessions, s)
		for j := range turnsEach {
			user := fmt.Sprintf("Question %d of session %d: what changed since the last report?", j, i)
			answer := fmt.Sprintf("Answer %d.%d: revenue rose, costs held, and the margin widened by a point in the quarter.", i, j)
			h.Turns = append(h.Turns, storeTurn(t, db, s.ID, user, answer))
		}
	}
	return h
}

func storeTurn(t testing.TB, db *store.DB, sessionID, user, answer string) StoredTurn {
	t.Helper()
	ctx := context.Background()
	tr, err := db.StartTurn(ctx, store.Turn{SessionID: sessionID, UserMessage: user, Workflow: "chat", Model: "test-model"})
	if err != nil {
		t.Fatal(err)
	}
	log := db.NewEventLog(tr.ID, store.EventLogOptions{})
	events := 0
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: sessionID, TurnID: tr.ID, Sinks: []turn.Sink{log, turn.SinkFunc(func(turn.Event) error {
		events++
		return nil
	})}})
	res := turn.RunTurn(ctx, em, func(context.Context) turn.Result {
		em.Emit(turn.Draft{Data: turn.ThinkStartData{}})
		for _, w := range strings.SplitAfter(answer, " ") {
			em.Emit(turn.Draft{Data: turn.TokenData{Text: w}})
		}
		em.Emit(turn.Draft{Data: turn.ThinkEndData{}})
		return turn.Result{OK: true, Outcome: turn.OutcomeSucceeded, Termination: turn.Termination{Kind: turn.TermNaturalCompletion}, FinalText: answer,
			Messages: []llm.Message{{Role: llm.RoleUser, Content: user}, {Role: llm.RoleAssistant, Content: answer}}}
	})
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.FinishTurn(ctx, tr.ID, 0, res); err != nil {
		t.Fatal(err)
	}
	return StoredTurn{ID: tr.ID, SessionID: sessionID, User: user, Final: answer, Events: events, Messages: 2}
}

// Checkpoint moves everything in the write-ahead log into the database
// file, so the file alone holds every page. The database must be closed.
func Checkpoint(t testing.TB, path string) {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var busy, frames, done int
	if err := raw.QueryRow(`PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &frames, &done); err != nil || busy != 0 {
		t.Fatalf("checkpoint: busy %d, %v", busy, err)
	}
}

// LeafPages lists the leaf pages of a table's b-tree in key order, as
// SQLite's dbstat table sees them.
func LeafPages(t testing.TB, path, table string) []int {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	rows, err := raw.Query(`SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY path`, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var pages []int
	for rows.Next() {
		var p int
		if err := rows.Scan(&p); err != nil {
			t.Fatal(err)
		}
		pages = append(pages, p)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return pages
}

// ZeroMiddlePage checkpoints the closed database at path and writes zeros
// over the middle leaf page of table (as a failing disk or a stray write
// would), so some of its rows lie before and after the damage. It
// returns the page's number.
func ZeroMiddlePage(t testing.TB, path, table string) int {
	t.Helper()
	return ZeroLeafPage(t, path, table, 0)
}

// ZeroLeafPage is ZeroMiddlePage for the leaf page after the middle one
// (before it when after is negative), for a test that needs the damage
// to fall on particular rows.
func ZeroLeafPage(t testing.TB, path, table string, after int) int {
	t.Helper()
	Checkpoint(t, path)
	pages := LeafPages(t, path, table)
	i := len(pages)/2 + after
	if len(pages) < 3 || i <= 0 || i >= len(pages)-1 {
		t.Fatalf("table %s spans %d leaf pages; the test needs one before and after page %d", table, len(pages), i)
	}
	page := pages[i]
	ZeroPage(t, path, page)
	return page
}

// ZeroPage writes zeros over page number page (from 1) of the file.
func ZeroPage(t testing.TB, path string, page int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hdr := make([]byte, 18)
	if _, err := io.ReadFull(f, hdr); err != nil {
		t.Fatal(err)
	}
	size := int64(hdr[16])<<8 | int64(hdr[17])
	if size == 1 {
		size = 65536
	}
	if _, err := f.WriteAt(make([]byte, size), int64(page-1)*size); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
}

// CopyFile copies a closed, checkpointed database to dst.
func CopyFile(t testing.TB, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/knowledge"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

var ctx = context.Background()

func newSession(t *testing.T, db *DB, title string) Session {
	t.Helper()
	s, err := db.CreateSession(ctx, Session{Title: title, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// storeTurn runs a fake turn through the real write path: StartTurn, the
// event log, FinishTurn.
func storeTurn(t *testing.T, db *DB, sessionID, user, answer string) (Turn, []turn.Event) {
	t.Helper()
	tr, err := db.StartTurn(ctx, Turn{SessionID: sessionID, UserMessage: user, Workflow: "chat", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	log := db.NewEventLog(tr.ID, EventLogOptions{})
	rec := &turntest.Recorder{}
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: sessionID, TurnID: tr.ID, Sinks: []turn.Sink{log, rec}})
	turn.RunTurn(ctx, em, func(context.Context) turn.Result {
		em.Emit(turn.Draft{Data: turn.ThinkStartData{}})
		for _, w := range strings.SplitAfter(answer, " ") {
			em.Emit(turn.Draft{Data: turn.TokenData{Text: w}})
		}
		em.Emit(turn.Draft{Data: turn.ThinkEndData{}})
		return turn.Result{OK: true, Outcome: turn.OutcomeSucceeded, Termination: turn.Termination{Kind: turn.TermNaturalCompletion}, FinalText: answer,
			Messages:  []llm.Message{{Role: llm.RoleSystem, Content: "sys"}, {Role: llm.RoleUser, Content: user}, {Role: llm.RoleAssistant, Content: answer}},
			PlanSteps: []turn.PlanStep{{Title: "answer", Status: "done"}}}
	}, func(res turn.Result) {
		// What the runner does: the result stored before the ending
		// events, and the log closed after them.
		if err := db.FinishTurn(ctx, tr.ID, 0, res); err != nil {
			t.Error(err)
		}
	})
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	events := rec.Events()
	turntest.Check(t, events)
	return tr, events
}

func TestSessionLifecycle(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	a := newSession(t, db, "Budget review")
	b := newSession(t, db, "Travel")
	storeTurn(t, db, a.ID, "hello", "hi there")

	page, err := db.ListSessions(ctx, Page{Limit: 1})
	if err != nil || len(page.Sessions) != 1 || page.Sessions[0].ID != a.ID || page.NextCursor == "" {
		t.Fatalf("first page %+v %v", page, err)
	}
	next, err := db.ListSessions(ctx, Page{Limit: 1, Cursor: page.NextCursor})
	if err != nil || len(next.Sessions) != 1 || next.Sessions[0].ID != b.ID || next.NextCursor != "" {
		t.Fatalf("second page %+v %v", next, err)
	}
	if err := db.RenameSession(ctx, b.ID, "Trip to Bergen"); err != nil {
		t.Fatal(err)
	}
	got, _ := db.GetSession(ctx, b.ID)
	if got.Title != "Trip to Bergen" {
		t.Fatalf("title %q", got.Title)
	}
	if err := db.RenameSession(ctx, "nope", "x"); err == nil {
		t.Fatal("renaming a missing session succeeded")
	}
}

func TestTurnRoundTrip(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := newSession(t, db, "t")
	tr, events := storeTurn(t, db, s.ID, "What is WAL?", "Write-ahead logging keeps readers and a writer apart.")
	d, err := db.GetTurn(ctx, tr.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	if d.State != StateCompleted || d.FinalText == "" || d.Seq != 1 || d.Outcome != turn.OutcomeSucceeded {
		t.Fatalf("turn %+v", d.Turn)
	}
	if len(d.Messages) != 2 || d.Messages[0].Content != "What is WAL?" || d.Messages[1].Role != llm.RoleAssistant {
		t.Fatalf("messages %+v", d.Messages)
	}
	if len(d.Events) != len(events) || d.LastSeq != int64(len(events)) {
		t.Fatalf("%d events stored, %d emitted", len(d.Events), len(events))
	}
	for i := range events {
		a, _ := json.Marshal(events[i])
		b, _ := json.Marshal(d.Events[i])
		if !bytes.Equal(a, b) {
			t.Fatalf("event %d differs:\n%s\n%s", i, a, b)
		}
	}
	if len(d.Stages) != 1 || d.Stages[0].Outcome != turn.OutcomeSucceeded || len(d.Plan) != 1 {
		t.Fatalf("stages %+v plan %+v", d.Stages, d.Plan)
	}
	after, _ := db.EventsAfter(ctx, tr.ID, 3, 2)
	if len(after) != 2 || after[0].Seq != 4 {
		t.Fatalf("EventsAfter %+v", after)
	}
	hist, _ := db.History(ctx, s.ID, 0)
	if len(hist) != 2 {
		t.Fatalf("history %+v", hist)
	}
}

func TestOneRunningTurnPerSession(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := newSession(t, db, "t")
	if _, err := db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "b"}); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Fatalf("second running turn: %v", err)
	}
}

func TestTurnStates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		res  turn.Result
		want TurnState
	}{
		{turn.Result{OK: true}, StateCompleted},
		{turn.Result{Cancelled: true, FinalText: "half"}, StateCancelled},
		{turn.Result{Error: "boom"}, StateFailed},
	}
	db := mustOpen(t)
	for _, tt := range tests {
		t.Run(string(tt.want), func(t *testing.T) {
			s := newSession(t, db, "s")
			tr, err := db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "x"})
			if err != nil {
				t.Fatal(err)
			}
			if err := db.FinishTurn(ctx, tr.ID, 0, tt.res); err != nil {
				t.Fatal(err)
			}
			d, _ := db.GetTurn(ctx, tr.ID, false)
			if d.State != tt.want || d.FinalText != tt.res.FinalText {
				t.Fatalf("state %s final %q", d.State, d.FinalText)
			}
		})
	}
}

func TestListTurnsPages(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := newSession(t, db, "long")
	for i := 0; i < 7; i++ {
		storeTurn(t, db, s.ID, "q", "a")
	}
	var seqs []int
	cursor := ""
	for {
		p, err := db.ListTurns(ctx, s.ID, Page{Limit: 3, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range p.Turns {
			seqs = append(seqs, tr.Seq)
		}
		if p.NextCursor == "" {
			break
		}
		cursor = p.NextCursor
	}
	if len(seqs) != 7 || seqs[0] != 7 || seqs[6] != 1 {
		t.Fatalf("pages gave %v", seqs)
	}
}

func TestRecoverInterruptedOnlyForDeadOwners(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := newSession(t, db, "t")
	dead := Owner{PID: 1 << 30, Start: "1"}
	live := CurrentOwner()
	for _, o := range []Owner{dead, live} {
		other := &DB{path: db.path, writer: db.writer, reader: db.reader, owner: o}
		s2 := newSession(t, db, "x")
		if o == dead {
			s2 = s
		}
		tr, err := other.StartTurn(ctx, Turn{SessionID: s2.ID, UserMessage: "tell me"})
		if err != nil {
			t.Fatal(err)
		}
		log := other.NewEventLog(tr.ID, EventLogOptions{})
		em := turn.NewEmitter(turn.EmitterConfig{SessionID: s2.ID, TurnID: tr.ID, Sinks: []turn.Sink{log}})
		em.Emit(turn.Draft{Data: turn.ThinkStartData{}})
		em.Emit(turn.Draft{Data: turn.TokenData{Text: "partial "}})
		em.Emit(turn.Draft{Data: turn.TokenData{Text: "answer"}})
		log.Close()
	}
	// A third process opens the database: only the dead owner's turn is recovered.
	third := &DB{path: db.path, writer: db.writer, reader: db.reader, owner: Owner{PID: 7, Start: "x"}}
	n, err := third.RecoverInterrupted(ctx)
	if err != nil || n != 1 {
		t.Fatalf("recovered %d, %v", n, err)
	}
	page, _ := db.ListTurns(ctx, s.ID, Page{})
	d, _ := db.GetTurn(ctx, page.Turns[0].ID, false)
	if d.State != StateInterrupted || d.FinalText != "partial answer" || d.Termination.Kind != turn.TermInterrupted {
		t.Fatalf("recovered turn %+v", d.Turn)
	}
	if len(d.Messages) != 2 || d.Messages[1].Content != "partial answer" {
		t.Fatalf("messages %+v", d.Messages)
	}
	var running int
	db.reader.QueryRow(`SELECT COUNT(*) FROM turns WHERE state = 'running'`).Scan(&running)
	if running != 1 {
		t.Fatalf("the live owner's turn must stay running; %d running", running)
	}
}

// TestDeleteMeansDelete: what a delete removes is gone from the files on
// disk (the database and its write-ahead log), not merely unlinked: a
// session's text, its recordings, and the bytes of its images (larger
// than a page, so on overflow pages), and the image of a deleted turn.
func TestDeleteMeansDelete(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	keep := newSession(t, db, "keep")
	gone := newSession(t, db, "gone")
	secret := "ZEBRA-PASSPHRASE-4471"
	storeTurn(t, db, gone.ID, "remember "+secret, "I will remember "+secret)
	storeTurn(t, db, keep.ID, "other", "text")
	gonePage, _ := db.ListTurns(ctx, gone.ID, Page{})
	keepPage, _ := db.ListTurns(ctx, keep.ID, Page{})
	goneCaps := db.Captures(gonePage.Turns[0].ID)
	if err := goneCaps.PutCapture(ctx, &recording.Capture{Key: "k1", Model: "m", Request: json.RawMessage(`{"secret":"` + secret + `"}`)}); err != nil {
		t.Fatal(err)
	}
	// A recording both sessions used (the kept one replayed it) stays.
	shared := &recording.Capture{Key: "k-shared", Model: "m", Request: json.RawMessage(`{"shared":true}`)}
	if err := goneCaps.PutCapture(ctx, shared); err != nil {
		t.Fatal(err)
	}
	if err := db.Captures(keepPage.Turns[0].ID).LinkCapture(ctx, shared); err != nil {
		t.Fatal(err)
	}
	// An artifact is an event of its turn (the word is in its event only).
	artifactWord := "AARDVARK-ARTIFACT-8812"
	artifactTurn(t, db, gone.ID, artifactWord)
	sessionImage, turnImage := []byte("OKAPI-IMAGE-OF-THE-SESSION-5160"), []byte("OKAPI-IMAGE-OF-THE-TURN-2291")
	storeImageTurn(t, db, gone.ID, gonePage.Turns[0].ID, llm.Image{MIME: "image/png", Name: "gone.png", Data: bytes.Repeat(sessionImage, 3000)})
	extra := storeImageTurn(t, db, keep.ID, keepPage.Turns[0].ID, llm.Image{MIME: "image/png", Name: "turn.png", Data: bytes.Repeat(turnImage, 3000)})
	caps := db.Captures("")
	db.Compact(ctx)
	for _, b := range [][]byte{[]byte(secret), sessionImage, turnImage, []byte(artifactWord)} {
		if fileHolding(t, db, b) == "" {
			t.Fatalf("%s is not in the files before the delete: the test would prove nothing", b)
		}
	}

	if _, err := db.DeleteTurn(ctx, extra.ID); err != nil {
		t.Fatal(err)
	}
	if f := fileHolding(t, db, turnImage); f != "" {
		t.Fatalf("%s still holds the image of the deleted turn", f)
	}
	if fileHolding(t, db, sessionImage) == "" {
		t.Fatal("deleting a turn of one session took another session's image")
	}
	if err := db.DeleteSession(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	for _, b := range [][]byte{[]byte(secret), sessionImage, []byte(artifactWord)} {
		if f := fileHolding(t, db, b); f != "" {
			t.Fatalf("%s still holds the deleted %s", f, b)
		}
	}
	if _, err := db.GetSession(ctx, gone.ID); err == nil {
		t.Fatal("the session is still there")
	}
	if c, _ := caps.GetCapture(ctx, "k1"); c != nil {
		t.Fatal("a recording only the deleted session used survived")
	}
	if c, _ := db.TurnRecordings(keepPage.Turns[0].ID).TurnCall(ctx, 0); c == nil || c.Key != "k-shared" {
		t.Fatalf("a recording the kept session uses was deleted: %+v", c)
	}
	if hist, _ := db.History(ctx, keep.ID, 0); len(hist) != 2 {
		t.Fatal("the other session was harmed")
	}
}

// TestDeleteMeansDeleteForDocuments: a document's text, its full-text
// index entries and its embeddings are gone from the files on disk once
// it is removed (RemoveDocument), once its session is deleted
// (DeleteSession), and once its project is deleted with its sessions
// (DeleteProject): the project's own document and its session's. The
// text is written in mixed case and the index holds it lower-cased, so
// each is looked for apart (the index's term without its first letter,
// which a neighbouring term may share).
func TestDeleteMeansDeleteForDocuments(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	keep := newSession(t, db, "keep")
	p := mustProject(t, db, "Doomed", turn.RunSettings{})
	inProject, err := db.CreateSession(ctx, Session{Title: "in the project", ProjectID: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	gone := newSession(t, db, "gone")

	type doc struct {
		d           knowledge.Document
		text, index []byte // the text's bytes, the index's
		embedding   []byte
	}
	add := func(place knowledge.Document, word string, n int) doc {
		t.Helper()
		d := mustAddDocument(t, db, place, "Passage about "+word+" and nothing else.", "Second page, "+word+" again.")
		emb := bytes.Repeat([]byte(fmt.Sprintf("EMBEDDING-%d-", n)), 200) // 2.4 KB, as a 768-float vector is 3 KB
		if _, err := db.writer.ExecContext(ctx, `UPDATE passages SET embedding = ? WHERE document_id = ?`, emb, d.ID); err != nil {
			t.Fatal(err)
		}
		return doc{d, []byte(word), []byte(strings.ToLower(word)[1:]), emb[:24]}
	}
	removed := add(knowledge.Document{SessionID: keep.ID, Name: "removed.md", Format: knowledge.FormatMarkdown, Version: "v1"}, "WoMbAtQuArTz7781", 1)
	kept := add(knowledge.Document{SessionID: keep.ID, Name: "kept.md", Format: knowledge.FormatMarkdown, Version: "v2"}, "KeStReLsLaTe2204", 2)
	ofSession := add(knowledge.Document{SessionID: gone.ID, Name: "session.txt", Format: knowledge.FormatText, Version: "v3"}, "CaPyBaRaFlInT5512", 3)
	ofProject := add(knowledge.Document{ProjectID: p.ID, Name: "project.pdf", Format: knowledge.FormatPDF, Version: "v4"}, "OcElOtMaRbLe6620", 4)
	ofProjectSession := add(knowledge.Document{SessionID: inProject.ID, Name: "inner.txt", Format: knowledge.FormatText, Version: "v5"}, "NaRwHaLgRaVeL4408", 5)
	if err := db.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	all := []doc{removed, kept, ofSession, ofProject, ofProjectSession}
	for _, d := range all {
		for _, b := range [][]byte{d.text, d.index, d.embedding} {
			if fileHolding(t, db, b) == "" {
				t.Fatalf("%s is not in the files before the delete: the test would prove nothing", b)
			}
		}
	}
	goneFrom := func(what string, ds ...doc) {
		t.Helper()
		for _, d := range ds {
			for _, b := range [][]byte{d.text, d.index, d.embedding} {
				if f := fileHolding(t, db, b); f != "" {
					t.Errorf("after %s, %s still holds %s of %s", what, f, b, d.d.Name)
				}
			}
		}
	}

	if err := db.RemoveDocument(ctx, removed.d.ID); err != nil {
		t.Fatal(err)
	}
	goneFrom("RemoveDocument", removed)
	if err := db.DeleteSession(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	goneFrom("DeleteSession", ofSession)
	if _, err := db.DeleteProject(ctx, p.ID, DeleteSessions); err != nil {
		t.Fatal(err)
	}
	goneFrom("DeleteProject", ofProject, ofProjectSession)

	for _, b := range [][]byte{kept.text, kept.index, kept.embedding} {
		if fileHolding(t, db, b) == "" {
			t.Fatalf("the deletes took %s of a document they did not delete", b)
		}
	}
	if hits, err := db.SearchPassages(ctx, knowledge.Place{SessionID: keep.ID}, "kestrelslate2204", 5); err != nil || len(hits) != 2 {
		t.Fatalf("the kept document's search: %+v, %v", hits, err)
	}
}

// fileHolding is the database file (or its write-ahead log) that holds b,
// "" if none does.
func fileHolding(t *testing.T, db *DB, b []byte) string {
	t.Helper()
	for _, f := range []string{db.path, db.path + "-wal"} {
		data, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(data, b) {
			return f
		}
	}
	return ""
}

// The list says which sessions have a running turn, so the sidebar can mark
// them after a reload; it stops saying so when the turn ends.
func TestListSessionsNamesTheRunningTurn(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	idle := newSession(t, db, "idle")
	storeTurn(t, db, idle.ID, "q", "a")
	busy := newSession(t, db, "busy")
	storeTurn(t, db, busy.ID, "q", "a")
	tr, err := db.StartTurn(ctx, Turn{SessionID: busy.ID, UserMessage: "still going"})
	if err != nil {
		t.Fatal(err)
	}
	running := func() map[string]string {
		t.Helper()
		page, err := db.ListSessions(ctx, Page{})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, s := range page.Sessions {
			out[s.ID] = s.RunningTurn
		}
		return out
	}

	tests := []struct {
		name string
		do   func(t *testing.T)
		want map[string]string
	}{
		{"while the turn runs", func(*testing.T) {}, map[string]string{idle.ID: "", busy.ID: tr.ID}},
		{"after it ends", func(t *testing.T) {
			if err := db.FinishTurn(ctx, tr.ID, 0, turn.Result{OK: true, FinalText: "done"}); err != nil {
				t.Fatal(err)
			}
		}, map[string]string{idle.ID: "", busy.ID: ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.do(t)
			got := running()
			for id, want := range tt.want {
				if got[id] != want {
					t.Errorf("session %s: running turn %q, want %q", id, got[id], want)
				}
			}
			one, err := db.GetSession(ctx, busy.ID)
			if err != nil || one.RunningTurn != tt.want[busy.ID] {
				t.Errorf("GetSession: running turn %q (%v), want %q", one.RunningTurn, err, tt.want[busy.ID])
			}
		})
	}
}

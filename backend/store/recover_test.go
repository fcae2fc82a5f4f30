package store

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// deadOwner returns the identity of a process that ran and is gone (exited
// and reaped), as a killed `agentdeck run` is.
func deadOwner(t *testing.T) Owner {
	t.Helper()
	cmd := exec.Command("sleep", "3600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	o := OwnerOf(cmd.Process.Pid)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if o.Start == "" {
		t.Fatal("cannot read a process start time from /proc")
	}
	return o
}

// liveOwner returns the identity of another process that runs until the
// test ends.
func liveOwner(t *testing.T) Owner {
	t.Helper()
	cmd := exec.Command("sleep", "3600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	o := OwnerOf(cmd.Process.Pid)
	if o.Start == "" {
		t.Fatal("cannot read a process start time from /proc")
	}
	return o
}

// startTurnAs stores a running turn owned by o in session, with a partial
// answer streamed: what a process that died mid-turn leaves behind.
func startTurnAs(t *testing.T, db *DB, o Owner, sessionID, partial string) Turn {
	t.Helper()
	as := &DB{path: db.path, writer: db.writer, reader: db.reader, owner: o}
	tr, err := as.StartTurn(ctx, Turn{SessionID: sessionID, UserMessage: "tell me", Workflow: "chat", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	log := as.NewEventLog(tr.ID, EventLogOptions{})
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: sessionID, TurnID: tr.ID, Sinks: []turn.Sink{log}})
	em.Emit(turn.Draft{Data: turn.ThinkStartData{}})
	for _, w := range strings.SplitAfter(partial, " ") {
		em.Emit(turn.Draft{Data: turn.TokenData{Text: w}})
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	return tr
}

func turnState(t *testing.T, db *DB, id string) TurnDetail {
	t.Helper()
	d, err := db.GetTurn(ctx, id, false)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestStartTurnWhenTheSessionHasARunningTurn(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		owner func(t *testing.T, db *DB) Owner
		// conflict is the text the refusal must hold; "" means the new
		// turn starts and the old one is marked interrupted.
		conflict string
		not      string
	}{
		{name: "its process is gone", owner: func(t *testing.T, _ *DB) Owner { return deadOwner(t) }},
		{name: "another live process runs it", owner: func(t *testing.T, _ *DB) Owner { return liveOwner(t) }, conflict: "another Agentdeck process (pid "},
		{name: "this process runs it", owner: func(_ *testing.T, db *DB) Owner { return db.owner }, conflict: "already running", not: "another"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := mustOpen(t)
			s := newSession(t, db, "s")
			o := tt.owner(t, db)
			old := startTurnAs(t, db, o, s.ID, "partial answer")

			next, err := db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "again", Workflow: "chat", Model: "m"})
			if tt.conflict != "" {
				if apperr.CodeOf(err) != apperr.Conflict || !strings.Contains(apperr.MessageOf(err), tt.conflict) {
					t.Fatalf("StartTurn = %v; want a conflict saying %q", err, tt.conflict)
				}
				if tt.not != "" && strings.Contains(apperr.MessageOf(err), tt.not) {
					t.Fatalf("the refusal %q should not say %q", apperr.MessageOf(err), tt.not)
				}
				if o != db.owner && !strings.Contains(apperr.MessageOf(err), strconv.Itoa(o.PID)) {
					t.Fatalf("the refusal %q should name pid %d", apperr.MessageOf(err), o.PID)
				}
				if d := turnState(t, db, old.ID); d.State != StateRunning {
					t.Fatalf("the running turn became %s", d.State)
				}
				return
			}
			if err != nil {
				t.Fatalf("StartTurn after a dead owner's turn: %v", err)
			}
			d := turnState(t, db, old.ID)
			if d.State != StateInterrupted || d.FinalText != "partial answer" || d.Termination.Kind != turn.TermInterrupted {
				t.Fatalf("the dead owner's turn: state %s, final %q, termination %s", d.State, d.FinalText, d.Termination.Kind)
			}
			if len(d.Messages) != 2 || d.Messages[1].Content != "partial answer" {
				t.Fatalf("the dead owner's turn keeps its messages: %+v", d.Messages)
			}
			if n := turnState(t, db, next.ID); n.State != StateRunning || n.Seq != old.Seq+1 {
				t.Fatalf("the new turn: state %s seq %d", n.State, n.Seq)
			}
		})
	}
}

func TestOwnershipAndOrphans(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	dead, live := deadOwner(t), liveOwner(t)
	turns := map[string]Turn{}
	for name, o := range map[string]Owner{"dead": dead, "live": live, "mine": db.owner} {
		turns[name] = startTurnAs(t, db, o, newSession(t, db, name).ID, "so far")
	}
	finished, _ := storeTurn(t, db, newSession(t, db, "done").ID, "q", "a")
	turns["finished"] = finished

	tests := []struct {
		turn       string
		state      TurnState
		mine, gone bool
	}{
		{turn: "dead", state: StateRunning, gone: true},
		{turn: "live", state: StateRunning},
		{turn: "mine", state: StateRunning, mine: true},
		{turn: "finished", state: StateCompleted},
	}
	for _, tt := range tests {
		t.Run(tt.turn, func(t *testing.T) {
			o, err := db.TurnOwnership(ctx, turns[tt.turn].ID)
			if err != nil || o.State != tt.state || o.Mine != tt.mine || o.Gone != tt.gone {
				t.Fatalf("TurnOwnership = %+v, %v; want state %s mine %v gone %v", o, err, tt.state, tt.mine, tt.gone)
			}
		})
	}
	if _, err := db.TurnOwnership(ctx, "nope"); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("an unknown turn: %v", err)
	}

	orphans, err := db.Orphans(ctx)
	if err != nil || len(orphans) != 1 || orphans[0].TurnID != turns["dead"].ID || orphans[0].OwnerPID != dead.PID {
		t.Fatalf("Orphans = %+v, %v; want only the dead owner's turn", orphans, err)
	}
	if d := turnState(t, db, turns["dead"].ID); d.State != StateRunning {
		t.Fatal("Orphans must not change anything")
	}
	for _, name := range []string{"live", "mine", "finished"} {
		if ok, err := db.RecoverTurn(ctx, turns[name].ID); ok || err != nil {
			t.Fatalf("RecoverTurn(%s) = %v, %v; only a dead owner's turn is recovered", name, ok, err)
		}
	}
	if got, err := db.RecoverOrphans(ctx, turns["live"].SessionID); len(got) != 0 || err != nil {
		t.Fatalf("RecoverOrphans of another session = %+v, %v", got, err)
	}
	if ok, err := db.RecoverTurn(ctx, turns["dead"].ID); !ok || err != nil {
		t.Fatalf("RecoverTurn(dead) = %v, %v", ok, err)
	}
	if ok, _ := db.RecoverTurn(ctx, turns["dead"].ID); ok {
		t.Fatal("a turn is recovered once")
	}
	if d := turnState(t, db, turns["dead"].ID); d.State != StateInterrupted || d.FinalText != "so far" {
		t.Fatalf("recovered: state %s final %q", d.State, d.FinalText)
	}
	if d := turnState(t, db, turns["live"].ID); d.State != StateRunning {
		t.Fatalf("the live process's turn became %s", d.State)
	}
}

func TestRecoverOrphansOneSessionOrAll(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	a, b := newSession(t, db, "a"), newSession(t, db, "b")
	ta := startTurnAs(t, db, deadOwner(t), a.ID, "A so far")
	tb := startTurnAs(t, db, deadOwner(t), b.ID, "B so far")
	got, err := db.RecoverOrphans(ctx, a.ID)
	if err != nil || len(got) != 1 || got[0] != (Orphan{TurnID: ta.ID, SessionID: a.ID, OwnerPID: got[0].OwnerPID}) {
		t.Fatalf("RecoverOrphans(a) = %+v, %v", got, err)
	}
	if d := turnState(t, db, tb.ID); d.State != StateRunning {
		t.Fatal("session b was touched")
	}
	if n, err := db.RecoverInterrupted(ctx); n != 1 || err != nil {
		t.Fatalf("RecoverInterrupted = %d, %v; want b's turn", n, err)
	}
}

// OpenReadOnly is what db check looks through: on a database a killed
// process left (its write-ahead log not yet checkpointed) it reports the
// orphan and changes no byte of the file or its log.
func TestOpenReadOnlyChangesNothing(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := newSession(t, db, "s")
	tr := startTurnAs(t, db, deadOwner(t), s.ID, "partial answer")
	// A crash snapshot: the files as they are while a writer has them open.
	dir := t.TempDir()
	path := filepath.Join(dir, "crashed.db")
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(db.path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path+suffix, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	before := fileBytes(t, path)
	if len(before["-wal"]) == 0 {
		t.Fatal("the snapshot should have a write-ahead log to keep")
	}

	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := ro.Check(ctx)
	if err != nil || !rep.OK || rep.Turns != 1 {
		t.Fatalf("Check = %+v, %v", rep, err)
	}
	orphans, err := ro.Orphans(ctx)
	if err != nil || len(orphans) != 1 || orphans[0].TurnID != tr.ID {
		t.Fatalf("Orphans = %+v, %v", orphans, err)
	}
	if _, err := ro.CreateSession(ctx, Session{Title: "x"}); err == nil {
		t.Fatal("a write through a read-only database succeeded")
	}
	if n, err := ro.RecoverInterrupted(ctx); n != 0 || err == nil {
		t.Fatalf("RecoverInterrupted through a read-only database = %d, %v", n, err)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	after := fileBytes(t, path)
	for suffix, b := range before {
		if !bytes.Equal(b, after[suffix]) {
			t.Fatalf("the file %s changed", filepath.Base(path+suffix))
		}
	}

	missing := filepath.Join(dir, "none", "missing.db")
	if _, err := OpenReadOnly(ctx, missing); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("a missing database: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(missing)); !os.IsNotExist(err) {
		t.Fatal("OpenReadOnly created a folder")
	}
}

func fileBytes(t *testing.T, path string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(path + suffix)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		out[suffix] = b
	}
	return out
}

// A turn whose process kept its ending in a note (a full disk left no room
// for the ending) is recovered with that ending's cause and message, not
// as interrupted, whichever way it is recovered; the note then goes. A
// turn with no note is interrupted as before.
func TestRecoveryEndsATurnAsItsNoteSays(t *testing.T) {
	t.Parallel()
	full := turn.Result{Outcome: turn.OutcomeFailed, ErrorSource: "storage",
		Termination: turn.Termination{Kind: turn.TermDiskFull, Used: 2, Limit: 2, Error: "The disk is full: all 2 are stored."},
		Error:       "The disk is full: all 2 are stored."}
	tests := []struct {
		name    string
		note    bool
		recover func(db *DB, tr Turn) error
	}{
		{"RecoverInterrupted", true, func(db *DB, _ Turn) error { _, err := db.RecoverInterrupted(ctx); return err }},
		{"RecoverTurn", true, func(db *DB, tr Turn) error { _, err := db.RecoverTurn(ctx, tr.ID); return err }},
		{"a new turn in the session", true, func(db *DB, tr Turn) error {
			_, err := db.StartTurn(ctx, Turn{SessionID: tr.SessionID, UserMessage: "again"})
			return err
		}},
		{"no note", false, func(db *DB, _ Turn) error { _, err := db.RecoverInterrupted(ctx); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := mustOpen(t)
			s := newSession(t, db, "full")
			tr := startTurnAs(t, db, deadOwner(t), s.ID, "two words")
			if tt.note {
				if err := db.NoteEnding(tr.ID, full); err != nil {
					t.Fatal(err)
				}
			}
			if err := tt.recover(db, tr); err != nil {
				t.Fatal(err)
			}
			d, err := db.GetTurn(ctx, tr.ID, false)
			if err != nil {
				t.Fatal(err)
			}
			wantState, wantKind := StateInterrupted, turn.TermInterrupted
			if tt.note {
				wantState, wantKind = StateFailed, turn.TermDiskFull
			}
			if d.State != wantState || d.Termination.Kind != wantKind || d.FinalText != "two words" {
				t.Fatalf("recovered: %s %+v, final text %q", d.State, d.Termination, d.FinalText)
			}
			if tt.note && d.Termination.Error != full.Error {
				t.Fatalf("the note's message was not kept: %q", d.Termination.Error)
			}
			if _, err := os.Stat(endingNotePath(db.path, tr.ID)); !os.IsNotExist(err) {
				t.Fatalf("the note is still there: %v", err)
			}
		})
	}
}

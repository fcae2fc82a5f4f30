package store

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// targetsOf are local targets of the models named; their labels are
// "model · local".
func targetsOf(models ...string) []GroupTarget {
	out := make([]GroupTarget, len(models))
	for i, m := range models {
		out[i] = GroupTarget{Provider: "local", Model: m}
	}
	return out
}

// startGroup sends message side by side to the models as a group of
// session, every column following parent ("" for a first message), and
// leaves the columns running. o runs them (nil: db's process).
func startGroup(t *testing.T, db *DB, o *Owner, sessionID, parent, follows, message string, blind bool, models ...string) (TurnGroup, []Turn) {
	t.Helper()
	as := db
	if o != nil {
		as = &DB{path: db.path, writer: db.writer, reader: db.reader, owner: *o}
	}
	g, err := as.CreateGroup(ctx, TurnGroup{SessionID: sessionID, FollowsGroupID: follows, Blind: blind, Targets: targetsOf(models...)})
	if err != nil {
		t.Fatal(err)
	}
	var turns []Turn
	for slot, target := range g.Targets {
		tr, err := as.StartTurn(ctx, Turn{SessionID: sessionID, UserMessage: message, Workflow: "chat", Model: target.Model, ParentTurnID: parent},
			StartOptions{Follows: true, Group: g.ID, Slot: slot, Target: target.Label()})
		if err != nil {
			t.Fatalf("starting column %d: %v", slot, err)
		}
		turns = append(turns, tr)
	}
	return g, turns
}

// finishColumn stores the column's answer.
func finishColumn(t *testing.T, db *DB, tr Turn) {
	t.Helper()
	answer := "answer of " + tr.Target
	res := turn.Result{OK: true, Outcome: turn.OutcomeSucceeded, Termination: turn.Termination{Kind: turn.TermNaturalCompletion}, FinalText: answer,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: tr.UserMessage}, {Role: llm.RoleAssistant, Content: answer}}}
	if err := db.FinishTurn(ctx, tr.ID, 0, res); err != nil {
		t.Fatal(err)
	}
}

// sideBySide is startGroup with every column finished.
func sideBySide(t *testing.T, db *DB, sessionID, parent, message string, blind bool, models ...string) (TurnGroup, []Turn) {
	t.Helper()
	g, turns := startGroup(t, db, nil, sessionID, parent, "", message, blind, models...)
	for _, tr := range turns {
		finishColumn(t, db, tr)
	}
	return g, turns
}

func mustVote(t *testing.T, db *DB, v Vote) Vote {
	t.Helper()
	v, err := db.SaveVote(ctx, v)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func countRows(t *testing.T, db *DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.reader.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSaveVote(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := newSession(t, db, "arena")
	g, cols := sideBySide(t, db, s.ID, "", "which is better?", true, "alpha", "beta", "gamma")
	other, otherCols := sideBySide(t, db, s.ID, "", "another", false, "alpha", "beta")
	single, _ := sideBySide(t, db, s.ID, "", "alone", false, "alpha")
	running, _ := startGroup(t, db, nil, newSession(t, db, "busy").ID, "", "", "still going", false, "alpha", "beta")

	tests := []struct {
		name string
		vote Vote
		code apperr.Code // "" when the vote is saved
		says string
		want Vote // what GetGroup reads back, when saved
	}{
		{name: "a win names a column", vote: Vote{GroupID: g.ID, Outcome: VoteWin, WinnerTurnID: cols[1].ID, Note: "  clearer  "},
			want: Vote{GroupID: g.ID, Outcome: VoteWin, WinnerTurnID: cols[1].ID, Note: "clearer", Blind: true}},
		{name: "a win must name a member", vote: Vote{GroupID: g.ID, Outcome: VoteWin, WinnerTurnID: otherCols[0].ID}, code: apperr.Invalid, says: "not one of this group's answers"},
		{name: "a win must name a turn", vote: Vote{GroupID: g.ID, Outcome: VoteWin}, code: apperr.Invalid, says: "which answer won"},
		{name: "a tie clears the winner", vote: Vote{GroupID: other.ID, Outcome: VoteTie, WinnerTurnID: otherCols[0].ID},
			want: Vote{GroupID: other.ID, Outcome: VoteTie}},
		{name: "both bad clears the winner", vote: Vote{GroupID: other.ID, Outcome: VoteBothBad, WinnerTurnID: otherCols[1].ID, Note: "neither"},
			want: Vote{GroupID: other.ID, Outcome: VoteBothBad, Note: "neither"}},
		{name: "an unknown outcome", vote: Vote{GroupID: g.ID, Outcome: "meh"}, code: apperr.Invalid, says: "not a vote"},
		{name: "refused while a column runs", vote: Vote{GroupID: running.ID, Outcome: VoteTie}, code: apperr.Conflict, says: "finish"},
		{name: "refused for a group of one", vote: Vote{GroupID: single.ID, Outcome: VoteTie}, code: apperr.Invalid, says: "at least two"},
		{name: "a note too long", vote: Vote{GroupID: g.ID, Outcome: VoteTie, Note: strings.Repeat("x", MaxVoteNote+1)}, code: apperr.Invalid, says: "too long"},
		{name: "an unknown group", vote: Vote{GroupID: "nope", Outcome: VoteTie}, code: apperr.NotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := db.GetGroup(ctx, tt.vote.GroupID)
			saved, err := db.SaveVote(ctx, tt.vote)
			if tt.code != "" {
				if apperr.CodeOf(err) != tt.code || !strings.Contains(apperr.MessageOf(err), tt.says) {
					t.Fatalf("SaveVote = %v; want %s saying %q", err, tt.code, tt.says)
				}
				if after, _ := db.GetGroup(ctx, tt.vote.GroupID); !reflect.DeepEqual(after.Vote, before.Vote) {
					t.Fatalf("a refused vote changed the group's: %+v", after.Vote)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := db.GetGroup(ctx, tt.vote.GroupID)
			if err != nil || got.Vote == nil {
				t.Fatalf("GetGroup = %+v, %v", got, err)
			}
			if got.Vote.ID != saved.ID || got.Vote.CreatedAt.IsZero() {
				t.Fatalf("read back %+v; saved %+v", got.Vote, saved)
			}
			g := *got.Vote
			g.ID, g.CreatedAt = "", time.Time{}
			if g != tt.want {
				t.Fatalf("read back %+v; want %+v", g, tt.want)
			}
		})
	}
	// The tie, then "both bad", on the same group: the second replaced
	// the first.
	if n := countRows(t, db, `SELECT COUNT(*) FROM votes WHERE group_id = ?`, other.ID); n != 1 {
		t.Fatalf("the group has %d votes; a second replaces the first", n)
	}
	if n := countRows(t, db, `SELECT COUNT(*) FROM votes`); n != 2 {
		t.Fatalf("%d votes stored; want 2", n)
	}
}

func TestListVotes(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	p := mustProject(t, db, "Work", turn.RunSettings{})
	inProject, err := db.CreateSession(ctx, Session{Title: "in work", Model: "m", ProjectID: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	loose := newSession(t, db, "loose")
	old, oldCols := sideBySide(t, db, inProject.ID, "", "first question", false, "alpha", "beta")
	mid, _ := sideBySide(t, db, inProject.ID, oldCols[0].ID, "second question", true, "alpha", "beta", "gamma")
	free, freeCols := sideBySide(t, db, loose.ID, "", "loose question", false, "gamma", "alpha")
	sideBySide(t, db, inProject.ID, "", "never voted on", false, "delta", "alpha")
	mustVote(t, db, Vote{GroupID: old.ID, Outcome: VoteWin, WinnerTurnID: oldCols[1].ID, Note: "b is shorter"})
	mustVote(t, db, Vote{GroupID: mid.ID, Outcome: VoteTie})
	mustVote(t, db, Vote{GroupID: free.ID, Outcome: VoteWin, WinnerTurnID: freeCols[0].ID})
	// Cast a day apart, oldest first.
	base := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	for i, id := range []string{old.ID, mid.ID, free.ID} {
		if _, err := db.writer.ExecContext(ctx, `UPDATE votes SET created_at = ? WHERE group_id = ?`, fmtTime(base.Add(time.Duration(i)*24*time.Hour)), id); err != nil {
			t.Fatal(err)
		}
	}
	since := base.Add(12 * time.Hour)

	tests := []struct {
		name   string
		filter VoteFilter
		want   []string // groups, newest first
	}{
		{"all", VoteFilter{}, []string{free.ID, mid.ID, old.ID}},
		{"a project", VoteFilter{Project: p.ID}, []string{mid.ID, old.ID}},
		{"no project", VoteFilter{Project: NoProject}, []string{free.ID}},
		{"a session", VoteFilter{SessionID: inProject.ID}, []string{mid.ID, old.ID}},
		{"since", VoteFilter{Since: &since}, []string{free.ID, mid.ID}},
		{"a limit", VoteFilter{Limit: 1}, []string{free.ID}},
		{"a project since", VoteFilter{Project: p.ID, Since: &since}, []string{mid.ID}},
		{"an unknown project", VoteFilter{Project: "nope"}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, err := db.ListVotes(ctx, tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			got := []string{}
			for _, r := range recs {
				got = append(got, r.GroupID)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("groups %v; want %v", got, tt.want)
			}
		})
	}

	for _, tt := range []struct {
		filter VoteFilter
		want   []string
	}{
		{VoteFilter{}, []string{"alpha · local", "beta · local", "delta · local", "gamma · local"}},
		{VoteFilter{Project: NoProject}, []string{"alpha · local", "gamma · local"}},
		{VoteFilter{Project: p.ID}, []string{"alpha · local", "beta · local", "delta · local", "gamma · local"}},
		{VoteFilter{SessionID: loose.ID}, []string{"alpha · local", "gamma · local"}},
	} {
		if got, err := db.VoteTargets(ctx, tt.filter); err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("VoteTargets(%+v) = %v, %v; want %v", tt.filter, got, err, tt.want)
		}
	}

	recs, err := db.ListVotes(ctx, VoteFilter{SessionID: inProject.ID})
	if err != nil {
		t.Fatal(err)
	}
	first := recs[1]
	if first.Message != "first question" || first.SessionTitle != "in work" || first.ProjectID != p.ID || first.SessionID != inProject.ID ||
		!reflect.DeepEqual(first.Targets, []string{"alpha · local", "beta · local"}) || first.Winner != "beta · local" ||
		first.Outcome != VoteWin || first.WinnerTurnID != oldCols[1].ID || first.Note != "b is shorter" || first.Blind || !first.CreatedAt.Equal(base) {
		t.Fatalf("the win reads %+v", first)
	}
	tie := recs[0]
	if tie.Winner != "" || tie.WinnerTurnID != "" || !tie.Blind || len(tie.Targets) != 3 || tie.Targets[2] != "gamma · local" || tie.Message != "second question" {
		t.Fatalf("the tie reads %+v", tie)
	}
}

func TestGroupReadsBackAndContinues(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := newSession(t, db, "side by side")
	first, firstCols := sideBySide(t, db, s.ID, "", "hello", true, "alpha", "beta", "gamma")

	got, err := db.GetGroup(ctx, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Blind || got.SessionID != s.ID || got.Vote != nil || !reflect.DeepEqual(got.Targets, targetsOf("alpha", "beta", "gamma")) || got.CreatedAt.IsZero() {
		t.Fatalf("GetGroup = %+v", got)
	}
	for i, c := range got.Columns {
		if c != (GroupColumn{Slot: i, TurnID: firstCols[i].ID, Target: got.Targets[i].Label(), State: StateCompleted}) {
			t.Fatalf("column %d = %+v", i, c)
		}
	}
	for _, c := range firstCols {
		if c.ParentTurnID != "" {
			t.Fatalf("the columns of a first message are versions of one another: %s follows %q", c.ID, c.ParentTurnID)
		}
	}
	sess, _ := db.GetSession(ctx, s.ID)
	if sess.OpenGroupID != first.ID || sess.ActiveTurnID != firstCols[0].ID {
		t.Fatalf("the session shows group %q, active %q; want %s, slot 0's turn", sess.OpenGroupID, sess.ActiveTurnID, first.ID)
	}

	// A second message in side-by-side mode: each column continues its own.
	second, err := db.CreateGroup(ctx, TurnGroup{SessionID: s.ID, FollowsGroupID: first.ID, Targets: first.Targets})
	if err != nil {
		t.Fatal(err)
	}
	var secondCols []Turn
	for slot, target := range second.Targets {
		tr, err := db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "go on", ParentTurnID: firstCols[slot].ID},
			StartOptions{Follows: true, Group: second.ID, Slot: slot, Target: target.Label()})
		if err != nil {
			t.Fatal(err)
		}
		finishColumn(t, db, tr)
		secondCols = append(secondCols, tr)
	}
	chain, err := db.GroupChain(ctx, second.ID)
	if err != nil || len(chain) != 2 || chain[0].ID != first.ID || chain[1].ID != second.ID || chain[1].Columns[2].TurnID != secondCols[2].ID {
		t.Fatalf("GroupChain = %+v, %v", chain, err)
	}
	if _, err := db.GetGroup(ctx, "nope"); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("an unknown group: %v", err)
	}
	if _, err := db.CreateGroup(ctx, TurnGroup{SessionID: newSession(t, db, "other").ID, FollowsGroupID: first.ID, Targets: first.Targets}); apperr.CodeOf(err) != apperr.Invalid {
		t.Fatalf("a group following another session's: %v", err)
	}

	// Continue with column C: its branch, to its end, is active; the
	// session reads as one conversation.
	active, err := db.ContinueWith(ctx, firstCols[2].ID)
	if err != nil || active != secondCols[2].ID {
		t.Fatalf("ContinueWith = %q, %v; want %s", active, err, secondCols[2].ID)
	}
	sess, _ = db.GetSession(ctx, s.ID)
	if sess.OpenGroupID != "" || sess.ActiveTurnID != secondCols[2].ID {
		t.Fatalf("after ContinueWith: open %q, active %q", sess.OpenGroupID, sess.ActiveTurnID)
	}
	// Opened again from the version switcher: side by side, slot 0's branch.
	if err := db.OpenGroup(ctx, first.ID); err != nil {
		t.Fatal(err)
	}
	sess, _ = db.GetSession(ctx, s.ID)
	if sess.OpenGroupID != first.ID || sess.ActiveTurnID != secondCols[0].ID {
		t.Fatalf("after OpenGroup: open %q, active %q", sess.OpenGroupID, sess.ActiveTurnID)
	}
	if err := db.OpenGroup(ctx, "nope"); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("opening an unknown group: %v", err)
	}
}

// A plain turn clears the open group; the columns of one group run
// together, and anything else is refused while they do.
func TestGroupRunningRule(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := newSession(t, db, "busy")
	g, cols := startGroup(t, db, nil, s.ID, "", "", "at once", false, "alpha", "beta")
	if sess, _ := db.GetSession(ctx, s.ID); sess.RunningTurn == "" {
		t.Fatal("the session should say a turn runs")
	}
	if _, err := db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "alone"}); apperr.CodeOf(err) != apperr.Conflict {
		t.Fatalf("a plain turn while the columns run: %v", err)
	}
	other, err := db.CreateGroup(ctx, TurnGroup{SessionID: s.ID, Targets: targetsOf("gamma", "delta")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "other group"}, StartOptions{Group: other.ID, Target: "gamma · local"}); apperr.CodeOf(err) != apperr.Conflict {
		t.Fatalf("another group's column while these run: %v", err)
	}
	if _, err := db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "at once", ParentTurnID: ""}, StartOptions{Follows: true, Group: g.ID, Slot: 2, Target: "gamma · local"}); err != nil {
		t.Fatalf("a third column of the running group: %v", err)
	}
	for _, c := range cols {
		finishColumn(t, db, c)
	}
}

// Recovery keeps right for groups: the columns of a process that died
// are all marked interrupted, by RecoverOrphans or by the next
// StartTurn; a live other process's group refuses a new turn.
func TestGroupRecovery(t *testing.T) {
	t.Parallel()
	interrupted := func(t *testing.T, db *DB, cols []Turn) {
		t.Helper()
		for _, c := range cols {
			if d := turnState(t, db, c.ID); d.State != StateInterrupted || d.Termination.Kind != turn.TermInterrupted {
				t.Fatalf("column %d: state %s", c.GroupSlot, d.State)
			}
		}
	}
	t.Run("RecoverOrphans marks every column", func(t *testing.T) {
		db := mustOpen(t)
		s := newSession(t, db, "died")
		dead := deadOwner(t)
		_, cols := startGroup(t, db, &dead, s.ID, "", "", "q", false, "alpha", "beta", "gamma")
		got, err := db.RecoverOrphans(ctx, s.ID)
		if err != nil || len(got) != 3 {
			t.Fatalf("RecoverOrphans = %+v, %v; want the 3 columns", got, err)
		}
		interrupted(t, db, cols)
	})
	t.Run("a new StartTurn recovers them", func(t *testing.T) {
		db := mustOpen(t)
		s := newSession(t, db, "died")
		dead := deadOwner(t)
		_, cols := startGroup(t, db, &dead, s.ID, "", "", "q", false, "alpha", "beta")
		if _, err := db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "again"}); err != nil {
			t.Fatal(err)
		}
		interrupted(t, db, cols)
	})
	t.Run("a live process's group refuses a new turn", func(t *testing.T) {
		db := mustOpen(t)
		s := newSession(t, db, "alive")
		live := liveOwner(t)
		g, cols := startGroup(t, db, &live, s.ID, "", "", "q", false, "alpha", "beta")
		if _, err := db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "again"}); apperr.CodeOf(err) != apperr.Conflict {
			t.Fatalf("a plain turn: %v", err)
		}
		// Not even a column of that group: another process runs it.
		if _, err := db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "q"}, StartOptions{Follows: true, Group: g.ID, Slot: 2, Target: "x"}); apperr.CodeOf(err) != apperr.Conflict {
			t.Fatalf("a column of the live group: %v", err)
		}
		if got, err := db.RecoverOrphans(ctx, s.ID); len(got) != 0 || err != nil {
			t.Fatalf("RecoverOrphans = %+v, %v", got, err)
		}
		for _, c := range cols {
			if d := turnState(t, db, c.ID); d.State != StateRunning {
				t.Fatalf("the live process's column became %s", d.State)
			}
		}
	})
}

// Votes go with their session, with their winning turn, and with a group
// left with fewer than two columns; a session stops showing a group side
// by side when it has fewer than two.
func TestVotesCascade(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := newSession(t, db, "s")
	win, winCols := sideBySide(t, db, s.ID, "", "q1", false, "alpha", "beta", "gamma")
	mustVote(t, db, Vote{GroupID: win.ID, Outcome: VoteWin, WinnerTurnID: winCols[2].ID})
	tie, tieCols := sideBySide(t, db, s.ID, "", "q2", false, "alpha", "beta", "gamma")
	mustVote(t, db, Vote{GroupID: tie.ID, Outcome: VoteTie})

	// A losing column of three: the win still compares two.
	if _, err := db.DeleteTurn(ctx, winCols[0].ID); err != nil {
		t.Fatal(err)
	}
	if g, _ := db.GetGroup(ctx, win.ID); g.Vote == nil || len(g.Columns) != 2 {
		t.Fatalf("after deleting a losing column: %+v", g)
	}
	// The winning turn: the vote goes.
	if _, err := db.DeleteTurn(ctx, winCols[2].ID); err != nil {
		t.Fatal(err)
	}
	if g, _ := db.GetGroup(ctx, win.ID); g.Vote != nil {
		t.Fatalf("the vote outlived its winning turn: %+v", g.Vote)
	}
	// The tie's group, open in the session, down to one column.
	if sess, _ := db.GetSession(ctx, s.ID); sess.OpenGroupID != tie.ID {
		t.Fatalf("the session shows %q; want the last group", sess.OpenGroupID)
	}
	for _, c := range tieCols[1:] {
		if _, err := db.DeleteTurn(ctx, c.ID); err != nil {
			t.Fatal(err)
		}
	}
	if g, _ := db.GetGroup(ctx, tie.ID); g.Vote != nil || len(g.Columns) != 1 {
		t.Fatalf("a group of one keeps no vote: %+v", g)
	}
	if sess, _ := db.GetSession(ctx, s.ID); sess.OpenGroupID != "" || sess.ActiveTurnID == "" {
		t.Fatalf("the session still shows a group of one: open %q, active %q", sess.OpenGroupID, sess.ActiveTurnID)
	}

	other := newSession(t, db, "other")
	g, cols := sideBySide(t, db, other.ID, "", "q", false, "alpha", "beta")
	mustVote(t, db, Vote{GroupID: g.ID, Outcome: VoteWin, WinnerTurnID: cols[0].ID})
	if err := db.DeleteSession(ctx, other.ID); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, db, `SELECT COUNT(*) FROM votes`); n != 0 {
		t.Fatalf("%d votes left", n)
	}
	if n := countRows(t, db, `SELECT COUNT(*) FROM turn_groups WHERE session_id = ?`, other.ID); n != 0 {
		t.Fatalf("%d groups of the deleted session left", n)
	}
}

// TestDeleteMeansDeleteForVotes: a vote's note is gone from the files on
// disk once its winning turn is deleted (DeleteTurn) and once its session
// is (DeleteSession).
func TestDeleteMeansDeleteForVotes(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	a, b := newSession(t, db, "a"), newSession(t, db, "b")
	ga, colsA := sideBySide(t, db, a.ID, "", "q", false, "alpha", "beta")
	gb, colsB := sideBySide(t, db, b.ID, "", "q", false, "alpha", "beta")
	noteA, noteB := "QuOkKaTuRnNoTe3391", "PaNgOlInSeSsIoN7720"
	mustVote(t, db, Vote{GroupID: ga.ID, Outcome: VoteWin, WinnerTurnID: colsA[1].ID, Note: noteA})
	mustVote(t, db, Vote{GroupID: gb.ID, Outcome: VoteWin, WinnerTurnID: colsB[0].ID, Note: noteB})
	if err := db.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{noteA, noteB} {
		if fileHolding(t, db, []byte(n)) == "" {
			t.Fatalf("%s is not in the files before the delete: the test would prove nothing", n)
		}
	}
	if _, err := db.DeleteTurn(ctx, colsA[1].ID); err != nil {
		t.Fatal(err)
	}
	if f := fileHolding(t, db, []byte(noteA)); f != "" {
		t.Errorf("after DeleteTurn, %s still holds the note", f)
	}
	if err := db.DeleteSession(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if f := fileHolding(t, db, []byte(noteB)); f != "" {
		t.Errorf("after DeleteSession, %s still holds the note", f)
	}
}

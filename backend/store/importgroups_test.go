package store

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/export"
)

// arenaSession is a session with a first plain turn and, after it, a
// blind group of three columns voted on (B won, with a note), and a
// second group following it, not voted on.
func arenaSession(t *testing.T, db *DB) (Session, TurnGroup, []Turn) {
	t.Helper()
	s := newSession(t, db, "arena")
	first, _ := storeTurn(t, db, s.ID, "hello", "hi")
	g, cols := sideBySide(t, db, s.ID, first.ID, "which is better?", true, "alpha", "beta", "gamma")
	mustVote(t, db, Vote{GroupID: g.ID, Outcome: VoteWin, WinnerTurnID: cols[1].ID, Note: "B cites its source"})
	next, err := db.CreateGroup(ctx, TurnGroup{SessionID: s.ID, FollowsGroupID: g.ID, Blind: true, Targets: g.Targets})
	if err != nil {
		t.Fatal(err)
	}
	for slot, target := range next.Targets {
		tr, err := db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "and then?", ParentTurnID: cols[slot].ID},
			StartOptions{Follows: true, Group: next.ID, Slot: slot, Target: target.Label()})
		if err != nil {
			t.Fatal(err)
		}
		finishColumn(t, db, tr)
	}
	g, err = db.GetGroup(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	return s, g, cols
}

func exportJSON(t *testing.T, db *DB, sessionID string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := export.Write(ctx, db, sessionID, export.JSON, &buf, export.Options{}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sameGroup fails unless the imported group has the columns, targets and
// vote of the exported one, its turns mapped by turnID.
func sameGroup(t *testing.T, got, want TurnGroup, turnID func(string) string) {
	t.Helper()
	if got.ID == want.ID || got.Blind != want.Blind || !reflect.DeepEqual(got.Targets, want.Targets) || !got.CreatedAt.Equal(want.CreatedAt) {
		t.Fatalf("imported group %+v; exported %+v", got, want)
	}
	if len(got.Columns) != len(want.Columns) {
		t.Fatalf("imported columns %+v; exported %+v", got.Columns, want.Columns)
	}
	for i, c := range want.Columns {
		c.TurnID = turnID(c.TurnID)
		if got.Columns[i] != c {
			t.Fatalf("imported column %d = %+v; want %+v", i, got.Columns[i], c)
		}
	}
	if (got.Vote == nil) != (want.Vote == nil) {
		t.Fatalf("imported vote %+v; exported %+v", got.Vote, want.Vote)
	}
	if want.Vote != nil {
		v, g := *want.Vote, *got.Vote
		v.ID, v.GroupID, v.WinnerTurnID = g.ID, got.ID, turnID(v.WinnerTurnID)
		if g.ID == want.Vote.ID || !g.CreatedAt.Equal(v.CreatedAt) {
			t.Fatalf("imported vote %+v; exported %+v", g, *want.Vote)
		}
		if g.CreatedAt = v.CreatedAt; g != v {
			t.Fatalf("imported vote %+v; want %+v", g, v)
		}
	}
}

// sessionTurns are the session's turns by seq.
func sessionTurns(t *testing.T, db *DB, sessionID string) []Turn {
	t.Helper()
	turns, _, err := db.SessionTurns(ctx, sessionID)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(turns, func(a, b Turn) int { return a.Seq - b.Seq })
	return turns
}

// openGroup is the group the session shows side by side.
func openGroup(t *testing.T, db *DB, sessionID string) string {
	t.Helper()
	got, err := db.GetSession(ctx, sessionID)
	if err != nil || got.OpenGroupID == "" {
		t.Fatalf("GetSession = %+v, %v; want an open group", got, err)
	}
	return got.OpenGroupID
}

// A session sent side by side goes through the JSON export and back with
// its groups, columns, targets and vote: into another database with its
// turns' ids, and into the same one as a copy under new ids.
func TestGroupsRoundTrip(t *testing.T) {
	t.Parallel()
	src := mustOpen(t)
	s, g, cols := arenaSession(t, src)
	file := exportJSON(t, src, s.ID)
	if v := fileVersion(t, file); v != 8 {
		t.Fatalf("a session with groups is written as version %d", v)
	}
	wantVotes, _ := src.ListVotes(ctx, VoteFilter{SessionID: s.ID})
	chain, err := src.GroupChain(ctx, openGroup(t, src, s.ID))
	if err != nil || len(chain) != 2 {
		t.Fatalf("GroupChain = %+v, %v", chain, err)
	}

	for _, into := range []struct {
		name string
		db   *DB
	}{{"another database", mustOpen(t)}, {"the same database, as a copy", src}} {
		t.Run(into.name, func(t *testing.T) {
			db := into.db
			imported, err := db.Import(ctx, bytes.NewReader(file))
			if err != nil {
				t.Fatal(err)
			}
			// The imported turns by seq stand for the exported ones.
			byOld := map[string]string{}
			oldTurns, newTurns := sessionTurns(t, src, s.ID), sessionTurns(t, db, imported.ID)
			for i := range oldTurns {
				byOld[oldTurns[i].ID] = newTurns[i].ID
			}
			turnID := func(id string) string { return byOld[id] }
			if into.db != src && turnID(cols[0].ID) != cols[0].ID {
				t.Fatal("into another database the turns keep their ids")
			}
			gotChain, err := db.GroupChain(ctx, openGroup(t, db, imported.ID))
			if err != nil || len(gotChain) != 2 {
				t.Fatalf("GroupChain of the imported open group = %+v, %v", gotChain, err)
			}
			for i := range chain {
				sameGroup(t, gotChain[i], chain[i], turnID)
			}
			if gotChain[1].FollowsGroupID != gotChain[0].ID {
				t.Fatal("the second group no longer follows the first")
			}
			votes, err := db.ListVotes(ctx, VoteFilter{SessionID: imported.ID})
			if err != nil || len(votes) != 1 {
				t.Fatalf("ListVotes = %+v, %v", votes, err)
			}
			want := wantVotes[0]
			got := votes[0]
			if !reflect.DeepEqual(got.Targets, want.Targets) || got.Winner != want.Winner || got.Winner != g.Columns[1].Target ||
				got.Message != want.Message || got.Note != want.Note || got.Blind != want.Blind || got.WinnerTurnID != turnID(cols[1].ID) {
				t.Fatalf("imported vote record %+v; exported %+v", got, want)
			}
		})
	}
}

// A file whose turns do not all come with it: a vote whose winner is
// missing is dropped, a group none of whose turns is there is dropped,
// and the others stay.
func TestImportDropsGroupsAndVotesWithoutTheirTurns(t *testing.T) {
	t.Parallel()
	src := mustOpen(t)
	s, g, cols := arenaSession(t, src)
	doc, err := export.Decode(ctx, bytes.NewReader(exportJSON(t, src, s.ID)), MaxImportBytes)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		drop func(export.Turn) bool
		// votes is how many votes the import keeps; groups how many groups.
		votes, groups int
	}{
		// A column goes with the turn that follows it.
		{"the winner is missing", func(t export.Turn) bool { return t.ID == cols[1].ID || t.ParentTurnID == cols[1].ID }, 0, 2},
		{"a losing column is missing", func(t export.Turn) bool { return t.ID == cols[2].ID || t.ParentTurnID == cols[2].ID }, 1, 2},
		{"two columns are missing: the vote compares one", func(t export.Turn) bool {
			return t.ID == cols[0].ID || t.ParentTurnID == cols[0].ID || t.ID == cols[2].ID || t.ParentTurnID == cols[2].ID
		}, 0, 2},
		{"the second group's turns are missing", func(t export.Turn) bool { return t.GroupID != "" && t.GroupID != g.ID }, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cut := doc
			cut.Turns = slices.DeleteFunc(slices.Clone(doc.Turns), tt.drop)
			var buf bytes.Buffer
			if err := export.Encode(&buf, &cut); err != nil {
				t.Fatal(err)
			}
			db := mustOpen(t)
			imported, err := db.Import(ctx, &buf)
			if err != nil {
				t.Fatal(err)
			}
			votes, _ := db.ListVotes(ctx, VoteFilter{SessionID: imported.ID})
			groups := countRows(t, db, `SELECT COUNT(*) FROM turn_groups WHERE session_id = ?`, imported.ID)
			if len(votes) != tt.votes || groups != tt.groups {
				t.Fatalf("%d votes and %d groups imported; want %d and %d", len(votes), groups, tt.votes, tt.groups)
			}
		})
	}
}

// A session never sent side by side keeps an older version, so an older
// Agentdeck still reads its file; files written before groups existed
// still import, with none.
func TestGroupsAndOlderFiles(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	plain := newSession(t, db, "plain")
	storeTurn(t, db, plain.ID, "q", "a")
	if v := fileVersion(t, exportJSON(t, db, plain.ID)); v >= 8 {
		t.Fatalf("a session without groups is written as version %d", v)
	}
	for _, name := range []string{"session-v5-f1a3a69.json", "session-v6-562ba66.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		s, err := db.Import(ctx, bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got, _ := db.GetSession(ctx, s.ID); got.OpenGroupID != "" || got.Turns == 0 {
			t.Fatalf("%s imported as %+v", name, got)
		}
		if n := countRows(t, db, `SELECT COUNT(*) FROM turns WHERE session_id = ? AND (group_id IS NOT NULL OR target != '')`, s.ID); n != 0 {
			t.Fatalf("%s: %d turns in a group", name, n)
		}
	}
}

// A fork copies no group: its branch reads as one conversation.
func TestForkCopiesNoGroups(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s, _, cols := arenaSession(t, db)
	f, err := db.ForkSession(ctx, cols[1].ID)
	if err != nil {
		t.Fatal(err)
	}
	if f.OpenGroupID != "" || countRows(t, db, `SELECT COUNT(*) FROM turn_groups WHERE session_id = ?`, f.ID) != 0 ||
		countRows(t, db, `SELECT COUNT(*) FROM turns WHERE session_id = ? AND (group_id IS NOT NULL OR target != '')`, f.ID) != 0 {
		t.Fatalf("the fork %+v kept groups", f)
	}
	if n := countRows(t, db, `SELECT COUNT(*) FROM turns WHERE session_id = ?`, f.ID); n != 2 {
		t.Fatalf("the fork has %d turns; want the branch's 2", n)
	}
	if votes, _ := db.ListVotes(ctx, VoteFilter{SessionID: s.ID}); len(votes) != 1 {
		t.Fatalf("the original lost its vote: %+v", votes)
	}
}

// The Markdown transcript says which column each turn was; a blind group
// not voted on keeps its names.
func TestMarkdownNamesTheColumn(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s, _, _ := arenaSession(t, db)
	var buf bytes.Buffer
	if err := export.Write(ctx, db, s.ID, export.Markdown, &buf, export.Options{AllBranches: true}); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{"_Side by side, column B: beta · local_", "_Side by side, column C (blind, not voted on yet)_"} {
		if !strings.Contains(md, want) {
			t.Errorf("no %q in\n%s", want, md)
		}
	}
	if n := strings.Count(md, "column C: gamma"); n != 1 {
		t.Errorf("the blind group not voted on named its targets:\n%s", md)
	}
}

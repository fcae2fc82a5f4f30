package store

import (
	"bytes"
	"io"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// TestTreeMigrationOfMain59bbc35 opens the database main made at 59bbc35,
// where issue 20 started (testdata/main-59bbc35.db: two sessions, five
// turns), and checks that each session became one path: every turn follows
// the one numbered before it, the first follows none, the newest is active,
// and nothing else changed.
func TestTreeMigrationOfMain59bbc35(t *testing.T) {
	t.Parallel()
	db, err := Open(ctx, copyTestdata(t, "main-59bbc35.db"), Options{})
	if err != nil {
		t.Fatalf("opening main's database: %v", err)
	}
	defer db.Close()
	page, err := db.ListSessions(ctx, Page{})
	if err != nil || len(page.Sessions) != 2 {
		t.Fatalf("sessions %+v %v", page, err)
	}
	texts := 0
	for _, s := range page.Sessions {
		turns, err := db.ListTurns(ctx, s.ID, Page{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		ts := turns.Turns
		sortBySeq(ts)
		for i, tr := range ts {
			want := ""
			if i > 0 {
				want = ts[i-1].ID
			}
			if tr.ParentTurnID != want {
				t.Errorf("session %q turn %d follows %q, want %q", s.Title, tr.Seq, tr.ParentTurnID, want)
			}
			d, err := db.GetTurn(ctx, tr.ID, true)
			if err != nil || len(d.Messages) == 0 || len(d.Events) == 0 {
				t.Errorf("turn %d: %d messages, %d events, %v", tr.Seq, len(d.Messages), len(d.Events), err)
			}
			if d.FinalText != "" {
				texts++
			}
		}
		if s.ActiveTurnID != ts[len(ts)-1].ID {
			t.Errorf("session %q: active turn %q, want the newest %q", s.Title, s.ActiveTurnID, ts[len(ts)-1].ID)
		}
	}
	if texts != 5 {
		t.Errorf("%d turns kept their answer, want 5 (the stopped one's partial answer included)", texts)
	}
	if rep, err := db.Check(ctx); err != nil || !rep.OK {
		t.Fatalf("check after migrating: %+v %v", rep, err)
	}
}

func sortBySeq(ts []Turn) { slices.SortFunc(ts, func(a, b Turn) int { return a.Seq - b.Seq }) }

// TestTreeInvariantsUnderRandomSends drives sessions with random sequences
// of sends (following the active turn), new versions of earlier turns
// (a sibling: the same parent), new first messages, switches of branch,
// deletes of a version with what follows it, and JSON export and import,
// and checks after every step: every turn's parent is a turn of its
// session, made before it; the active turn is a turn of the session (none
// only when it has no turns), and after a send the new turn; a delete
// removes exactly the counted turns and leaves no row of theirs behind;
// the import gives back the same tree.
func TestTreeInvariantsUnderRandomSends(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(20, 1)) // fixed: a failure replays
	db := mustOpen(t)
	deletes, switches := 0, 0
	for round := range 4 {
		s := newSession(t, db, "tree")
		var turns []Turn
		for step := range 30 {
			k := rng.IntN(12)
			if len(turns) > 0 && k >= 10 {
				of := turns[rng.IntN(len(turns))]
				if k == 10 {
					before, _ := db.GetSession(ctx, s.ID)
					onPath := slices.Contains(branchIDs(t, db, s.ID), of.ID)
					active, err := db.SwitchBranch(ctx, of.ID)
					if err != nil {
						t.Fatal(err)
					}
					if onPath && active != before.ActiveTurnID {
						t.Fatalf("round %d step %d: switching to a turn on the active branch moved it from %s to %s", round, step, before.ActiveTurnID, active)
					}
					if !slices.Contains(branchIDs(t, db, s.ID), of.ID) {
						t.Fatalf("round %d step %d: the branch switched to does not hold the turn", round, step)
					}
					switches++
					checkTree(t, db, s.ID, "")
					continue
				}
				want, err := db.CountTurnsFrom(ctx, of.ID)
				if err != nil {
					t.Fatal(err)
				}
				n, err := db.DeleteTurn(ctx, of.ID)
				if err != nil || n != want {
					t.Fatalf("round %d step %d: deleted %d (%v), counted %d", round, step, n, err, want)
				}
				deletes++
				turns = remaining(t, db, s.ID)
				checkTree(t, db, s.ID, "")
				checkNoOrphans(t, db)
				continue
			}
			var tr Turn
			var err error
			switch {
			case len(turns) == 0 || k < 5:
				// Some continue the answer of the turn they follow.
				tr, err = db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "next", Workflow: "chat", Model: "m", Continues: len(turns) > 0 && k == 0})
			case k < 9:
				// A new version of an earlier turn: it follows that turn's parent.
				of := turns[rng.IntN(len(turns))]
				tr, err = db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "edited", Workflow: "chat", Model: "m", ParentTurnID: of.ParentTurnID}, StartOptions{Follows: true})
			default:
				tr, err = db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "from the top", Workflow: "chat", Model: "m"}, StartOptions{Follows: true})
			}
			if err != nil {
				t.Fatalf("round %d step %d: %v", round, step, err)
			}
			msgs := []llm.Message{{Role: llm.RoleUser, Content: tr.UserMessage}, {Role: llm.RoleAssistant, Content: "ok"}}
			if err := db.FinishTurn(ctx, tr.ID, 0, turn.Result{OK: true, Outcome: turn.OutcomeSucceeded, FinalText: "ok", Messages: msgs}); err != nil {
				t.Fatal(err)
			}
			turns = append(turns, tr)
			checkTree(t, db, s.ID, tr.ID)
		}
		// The JSON export imports back as a copy with the same shape.
		var buf bytes.Buffer
		if err := export.Write(ctx, db, s.ID, export.JSON, &buf, export.Options{}); err != nil {
			t.Fatal(err)
		}
		imp, err := db.Import(ctx, io.Reader(&buf))
		if err != nil {
			t.Fatal(err)
		}
		checkTree(t, db, imp.ID, "")
		if a, b := treeShape(t, db, s.ID), treeShape(t, db, imp.ID); a != b {
			t.Fatalf("the imported tree differs:\n%s\nwant\n%s", b, a)
		}
	}
	if deletes == 0 || switches == 0 {
		t.Fatalf("the sequence made %d deletes and %d switches: change the seed", deletes, switches)
	}
}

// remaining lists a session's turns.
func remaining(t *testing.T, db *DB, sessionID string) []Turn {
	t.Helper()
	page, err := db.ListTurns(ctx, sessionID, Page{Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	return page.Turns
}

// checkNoOrphans checks that no row of a deleted turn is left behind.
func checkNoOrphans(t *testing.T, db *DB) {
	t.Helper()
	for _, q := range []string{
		`SELECT COUNT(*) FROM messages WHERE turn_id NOT IN (SELECT id FROM turns)`,
		`SELECT COUNT(*) FROM events WHERE turn_id NOT IN (SELECT id FROM turns)`,
		`SELECT COUNT(*) FROM stages WHERE turn_id NOT IN (SELECT id FROM turns)`,
		`SELECT COUNT(*) FROM search WHERE turn_id != '' AND turn_id NOT IN (SELECT id FROM turns)`,
		`SELECT COUNT(*) FROM turns WHERE parent_turn_id IS NOT NULL AND parent_turn_id NOT IN (SELECT id FROM turns)`,
	} {
		var n int
		if err := db.reader.QueryRow(q).Scan(&n); err != nil || n != 0 {
			t.Fatalf("%s = %d (%v)", q, n, err)
		}
	}
}

// checkTree checks a session's tree; active, when set, must be its active turn.
func checkTree(t *testing.T, db *DB, sessionID, active string) {
	t.Helper()
	page, err := db.ListTurns(ctx, sessionID, Page{Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	seq := map[string]int{}
	for _, tr := range page.Turns {
		seq[tr.ID] = tr.Seq
	}
	for _, tr := range page.Turns {
		if tr.ParentTurnID == "" {
			continue
		}
		p, ok := seq[tr.ParentTurnID]
		if !ok {
			t.Fatalf("turn %d follows %s, not a turn of its session", tr.Seq, tr.ParentTurnID)
		}
		if p >= tr.Seq {
			t.Fatalf("turn %d follows turn %d, made after it", tr.Seq, p)
		}
	}
	s, err := db.GetSession(ctx, sessionID)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := seq[s.ActiveTurnID]; !ok && !(len(seq) == 0 && s.ActiveTurnID == "") {
		t.Fatalf("active turn %q is not a turn of the session", s.ActiveTurnID)
	}
	if active != "" && s.ActiveTurnID != active {
		t.Fatalf("active turn %q, want the newest %q", s.ActiveTurnID, active)
	}
	// ListBranch pages through exactly the path from the active turn back
	// to a first message, and names every version of each of its turns.
	byID := map[string]Turn{}
	for _, tr := range page.Turns {
		byID[tr.ID] = tr
	}
	var want []string
	for id := s.ActiveTurnID; id != ""; id = byID[id].ParentTurnID {
		want = append(want, id)
	}
	if got := branchIDs(t, db, sessionID); !slices.Equal(got, want) {
		t.Fatalf("ListBranch gives %v, want the active path %v", got, want)
	}
	for _, id := range want {
		var sibs []Turn
		for _, tr := range page.Turns {
			if tr.ParentTurnID == byID[id].ParentTurnID && tr.Continues == byID[id].Continues {
				sibs = append(sibs, tr)
			}
		}
		sortBySeq(sibs)
		var ids []string
		for _, tr := range sibs {
			ids = append(ids, tr.ID)
		}
		if len(ids) < 2 {
			ids = nil
		}
		if got := branchVersions(t, db, sessionID)[id]; !slices.Equal(got, ids) {
			t.Fatalf("turn %d: versions %v, want %v", byID[id].Seq, got, ids)
		}
	}
}

// branchIDs pages through a session's active branch, three turns a page.
func branchIDs(t *testing.T, db *DB, sessionID string) []string {
	ids, _ := walkBranch(t, db, sessionID)
	return ids
}

// branchVersions gathers the versions ListBranch names, page by page.
func branchVersions(t *testing.T, db *DB, sessionID string) map[string][]string {
	_, versions := walkBranch(t, db, sessionID)
	return versions
}

func walkBranch(t *testing.T, db *DB, sessionID string) ([]string, map[string][]string) {
	t.Helper()
	var ids []string
	versions := map[string][]string{}
	cursor := ""
	for {
		page, err := db.ListBranch(ctx, sessionID, Page{Limit: 3, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range page.Turns {
			ids = append(ids, tr.ID)
		}
		maps.Copy(versions, page.Versions)
		if page.NextCursor == "" {
			return ids, versions
		}
		cursor = page.NextCursor
	}
}

// treeShape writes a session's tree by turn numbers: "3<1" for turn 3
// following turn 1, and which is active.
func treeShape(t *testing.T, db *DB, sessionID string) string {
	t.Helper()
	page, _ := db.ListTurns(ctx, sessionID, Page{Limit: 500})
	ts := page.Turns
	sortBySeq(ts)
	seq := map[string]int{}
	for _, tr := range ts {
		seq[tr.ID] = tr.Seq
	}
	var b bytes.Buffer
	for _, tr := range ts {
		b.WriteString(" ")
		b.WriteString(strconv.Itoa(tr.Seq) + "<" + strconv.Itoa(seq[tr.ParentTurnID]))
		if tr.Continues {
			b.WriteString("c")
		}
	}
	s, _ := db.GetSession(ctx, sessionID)
	b.WriteString(" active " + strconv.Itoa(seq[s.ActiveTurnID]))
	return b.String()
}

// TestStartTurnRefusesAParentOfAnotherSession: a turn follows only a turn
// of its own session, and one that exists.
func TestStartTurnRefusesAParentOfAnotherSession(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	a, b := newSession(t, db, "a"), newSession(t, db, "b")
	ta, _ := storeTurn(t, db, a.ID, "q", "answer")
	_, err := db.StartTurn(ctx, Turn{SessionID: b.ID, UserMessage: "x", ParentTurnID: ta.ID}, StartOptions{Follows: true})
	if apperr.CodeOf(err) != apperr.Invalid {
		t.Fatalf("following another session's turn: %v", err)
	}
	_, err = db.StartTurn(ctx, Turn{SessionID: b.ID, UserMessage: "x", ParentTurnID: "nope"}, StartOptions{Follows: true})
	if apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("following a turn that does not exist: %v", err)
	}
}

// TestForkSessionCopiesTheBranch: one, two, three as another version of
// two, four after three. Forking from three gives a new session of one and
// three only (not two, not four), active at three's copy, with everything
// stored about them, naming where it came from; the original is untouched.
func TestForkSessionCopiesTheBranch(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	s := newSession(t, db, "origin")
	one, _ := storeTurn(t, db, s.ID, "one", "answer one")
	storeTurn(t, db, s.ID, "two", "answer two")
	three, err := db.StartTurn(ctx, Turn{SessionID: s.ID, UserMessage: "three", Workflow: "chat", Model: "m", ParentTurnID: one.ID}, StartOptions{Follows: true})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []llm.Message{{Role: llm.RoleUser, Content: "three"}, {Role: llm.RoleAssistant, Content: "answer three"}}
	if err := db.FinishTurn(ctx, three.ID, 0, turn.Result{OK: true, Outcome: turn.OutcomeSucceeded, FinalText: "answer three", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	storeTurn(t, db, s.ID, "four", "answer four")
	before := treeShape(t, db, s.ID)

	f, err := db.ForkSession(ctx, three.ID)
	if err != nil {
		t.Fatal(err)
	}
	if f.ID == s.ID || f.Title != "origin (fork)" || f.ForkedFromSession != s.ID || f.ForkedFromTurn != three.ID {
		t.Fatalf("fork %+v", f)
	}
	got, err := db.GetSession(ctx, f.ID)
	if err != nil || got.ForkedFromTurn != three.ID || got.Turns != 2 {
		t.Fatalf("stored fork %+v %v", got, err)
	}
	checkTree(t, db, f.ID, "")
	hist, err := db.History(ctx, f.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range hist {
		texts = append(texts, m.Content)
	}
	if want := "one|answer one|three|answer three"; strings.Join(texts, "|") != want {
		t.Fatalf("the fork continues %q, want %q", strings.Join(texts, "|"), want)
	}
	if after := treeShape(t, db, s.ID); after != before {
		t.Fatalf("the original changed:\n%s\nwas\n%s", after, before)
	}
	if _, err := db.ForkSession(ctx, "nope"); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("forking a turn that does not exist: %v", err)
	}
}

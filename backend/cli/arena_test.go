package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/arena"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// arenaDB is a database file with votes on side-by-side answers: in the
// project "Work", alpha beat beta twice and tied with gamma once; in no
// project, beta beat alpha once; delta was compared in "Work" and never
// voted on.
func arenaDB(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "a.db")
	db, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p, err := db.CreateProject(ctx, store.Project{Name: "Work"})
	if err != nil {
		t.Fatal(err)
	}
	work, err := db.CreateSession(ctx, store.Session{Title: "work chat", ProjectID: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	loose, err := db.CreateSession(ctx, store.Session{Title: "loose chat"})
	if err != nil {
		t.Fatal(err)
	}
	// vote sends message to the models side by side and votes: winner is
	// the winning slot, -1 for a tie, -2 for none.
	vote := func(sessionID, message string, winner int, models ...string) {
		t.Helper()
		var targets []store.GroupTarget
		for _, m := range models {
			targets = append(targets, store.GroupTarget{Provider: "local", Model: m})
		}
		g, err := db.CreateGroup(ctx, store.TurnGroup{SessionID: sessionID, Targets: targets})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for slot, target := range targets {
			tr, err := db.StartTurn(ctx, store.Turn{SessionID: sessionID, UserMessage: message, Model: target.Model},
				store.StartOptions{Follows: true, Group: g.ID, Slot: slot, Target: target.Label()})
			if err != nil {
				t.Fatal(err)
			}
			res := turn.Result{OK: true, Outcome: turn.OutcomeSucceeded, Termination: turn.Termination{Kind: turn.TermNaturalCompletion}, FinalText: "ok",
				Messages: []llm.Message{{Role: llm.RoleUser, Content: message}, {Role: llm.RoleAssistant, Content: "ok"}}}
			if err := db.FinishTurn(ctx, tr.ID, 0, res); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, tr.ID)
		}
		v := store.Vote{GroupID: g.ID, Outcome: store.VoteTie}
		switch {
		case winner == -2:
			return
		case winner >= 0:
			v.Outcome, v.WinnerTurnID = store.VoteWin, ids[winner]
		}
		if _, err := db.SaveVote(ctx, v); err != nil {
			t.Fatal(err)
		}
	}
	vote(work.ID, "first", 0, "alpha", "beta")
	vote(work.ID, "second", 1, "beta", "alpha")
	vote(work.ID, "third", -1, "alpha", "gamma")
	vote(work.ID, "fourth", -2, "delta", "alpha")
	vote(loose.ID, "loose", 1, "alpha", "beta")
	return path
}

func TestArenaBoard(t *testing.T) {
	t.Parallel()
	home, dbPath := t.TempDir(), arenaDB(t)
	r := runMain(t, home, "arena", "board", "--project", "work", "--db", dbPath)
	if r.code != ExitOK {
		t.Fatalf("board: exit %d\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 5 || !strings.Contains(lines[0], "RANK") || !strings.Contains(lines[0], "95% INTERVAL") || !strings.Contains(lines[0], "W/L/T") {
		t.Fatalf("board:\n%s", r.stdout)
	}
	if f := strings.Fields(lines[1]); f[0] != "1" || f[1] != "alpha" || f[len(f)-1] != "2/0/1" || f[len(f)-2] != "3" {
		t.Fatalf("first row %q: want alpha ranked 1 with 3 votes, 2/0/1", lines[1])
	}
	if f := strings.Fields(lines[4]); f[0] != "-" || f[1] != "delta" || f[len(f)-2] != "0" {
		t.Fatalf("last row %q: want delta, unranked, no votes", lines[4])
	}
	if !strings.Contains(r.stderr, "3 votes, 3 comparisons") {
		t.Fatalf("board's summary: %q", r.stderr)
	}

	var b arena.Board
	r = runMain(t, home, "arena", "board", "--json", "--db", dbPath)
	if err := json.Unmarshal([]byte(r.stdout), &b); err != nil || r.code != ExitOK {
		t.Fatalf("board --json: %v, exit %d\n%s%s", err, r.code, r.stdout, r.stderr)
	}
	if b.Votes != 4 || len(b.Ratings) != 4 || b.Method != arena.Method || b.Ratings[3].Target != "delta · local" || b.Ratings[3].Rank != 0 {
		t.Fatalf("every session's board: %+v", b)
	}
	alpha := b.Ratings[0]
	if alpha.Target != "alpha · local" || alpha.Wins != 2 || alpha.Losses != 1 || alpha.Low > alpha.Score || alpha.High < alpha.Score {
		t.Fatalf("alpha: %+v", alpha)
	}

	r = runMain(t, home, "arena", "board", "--project", "-", "--json", "--db", dbPath)
	if err := json.Unmarshal([]byte(r.stdout), &b); err != nil || b.Votes != 1 || b.Ratings[0].Target != "beta · local" {
		t.Fatalf("no project's board: %v %+v", err, b)
	}
}

func TestArenaVotes(t *testing.T) {
	t.Parallel()
	home, dbPath := t.TempDir(), arenaDB(t)
	r := runMain(t, home, "arena", "votes", "--project", "Work", "--db", dbPath)
	if r.code != ExitOK {
		t.Fatalf("votes: exit %d\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], "VERDICT") {
		t.Fatalf("votes:\n%s", r.stdout)
	}
	// Newest first: the tie, then alpha's two wins.
	for i, want := range []string{"tie", "alpha · local better", "alpha · local better"} {
		if !strings.Contains(lines[i+1], want) {
			t.Errorf("line %d %q; want %q", i+1, lines[i+1], want)
		}
	}
	if !strings.Contains(lines[3], "alpha · local | beta · local") || !strings.Contains(lines[3], "work chat") || !strings.Contains(lines[3], "first") {
		t.Errorf("the oldest vote: %q", lines[3])
	}

	var recs []store.VoteRecord
	r = runMain(t, home, "arena", "votes", "--json", "--limit", "2", "--db", dbPath)
	if err := json.Unmarshal([]byte(r.stdout), &recs); err != nil || len(recs) != 2 || recs[0].Message != "loose" || recs[0].Winner != "beta · local" {
		t.Fatalf("votes --json: %v %+v", err, recs)
	}
}

func TestArenaUsageAndErrors(t *testing.T) {
	t.Parallel()
	home, dbPath := t.TempDir(), arenaDB(t)
	tests := []struct {
		name string
		args []string
		code int
		says string
	}{
		{"no subcommand", []string{"arena"}, ExitUsage, "arena votes"},
		{"an unknown subcommand", []string{"arena", "scores"}, ExitUsage, `unknown arena command "scores"`},
		{"an argument", []string{"arena", "board", "extra"}, ExitUsage, "arena board"},
		{"a bad limit", []string{"arena", "votes", "--limit", "0"}, ExitUsage, "arena votes"},
		{"an unknown project", []string{"arena", "board", "--project", "Nope"}, ExitFailed, `no project "Nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runMain(t, home, append(tt.args, "--db", dbPath)...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.says) {
				t.Fatalf("exit %d, %q; want %d saying %q", r.code, r.stderr, tt.code, tt.says)
			}
		})
	}
	empty := filepath.Join(t.TempDir(), "empty.db")
	if r := runMain(t, home, "arena", "board", "--db", empty); r.code != ExitOK || r.stdout != "" || !strings.Contains(r.stderr, "no votes yet") {
		t.Fatalf("an empty board: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
}

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/store/storetest"
	"github.com/agentdeck/agentdeck/backend/turn"
)

const partialAnswer = "The zanzibar answer so far"

// deadRun leaves in a new database at dbPath what a killed `agentdeck run`
// leaves: a turn stored as running, owned by a process that is gone, with
// part of its answer streamed.
func deadRun(t *testing.T, dbPath string) (sessionID, turnID string, pid int) {
	t.Helper()
	cmd := exec.Command("sleep", "3600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	owner := store.OwnerOf(cmd.Process.Pid)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	ctx := context.Background()
	db, err := store.Open(ctx, dbPath, store.Options{Owner: &owner})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sess, err := db.CreateSession(ctx, store.Session{Title: "killed", Model: "m", Workflow: "chat"})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := db.StartTurn(ctx, store.Turn{SessionID: sess.ID, UserMessage: "Count forever", Workflow: "chat", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	log := db.NewEventLog(tr.ID, store.EventLogOptions{})
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: sess.ID, TurnID: tr.ID, Sinks: []turn.Sink{log}})
	em.Emit(turn.Draft{Data: turn.ThinkStartData{}})
	for _, w := range strings.SplitAfter(partialAnswer, " ") {
		em.Emit(turn.Draft{Data: turn.TokenData{Text: w}})
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	return sess.ID, tr.ID, owner.PID
}

func noLeaks(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
}

// Every command that opens the database sees a killed run's turn as
// interrupted, with its answer so far, not as running.
func TestCommandsSeeADeadRunAsInterrupted(t *testing.T) {
	// Not parallel: goleak would count the goroutines of tests running beside it (noLeaks).
	type turnOut struct {
		ID        string `json:"id"`
		State     string `json:"state"`
		FinalText string `json:"final_text"`
		Error     string `json:"error"`
	}
	tests := []struct {
		name  string
		args  func(session, tr string) []string
		check func(t *testing.T, stdout, tr string)
	}{
		{
			name: "sessions show --json",
			args: func(s, _ string) []string { return []string{"sessions", "show", s, "--json"} },
			check: func(t *testing.T, out, tr string) {
				var v struct{ Turns []turnOut }
				if err := json.Unmarshal([]byte(out), &v); err != nil || len(v.Turns) != 1 {
					t.Fatalf("%v: %s", err, out)
				}
				if got := v.Turns[0]; got.ID != tr || got.State != "interrupted" || got.FinalText != partialAnswer {
					t.Fatalf("turn %+v", got)
				}
			},
		},
		{
			name: "sessions show",
			args: func(s, _ string) []string { return []string{"sessions", "show", s} },
			check: func(t *testing.T, out, _ string) {
				if !strings.Contains(out, "[interrupted") || !strings.Contains(out, partialAnswer) || strings.Contains(out, "running") {
					t.Fatalf("sessions show:\n%s", out)
				}
			},
		},
		{
			name: "turns show --json",
			args: func(_, tr string) []string { return []string{"turns", "show", tr, "--json"} },
			check: func(t *testing.T, out, tr string) {
				var got turnOut
				if err := json.Unmarshal([]byte(out), &got); err != nil {
					t.Fatalf("%v: %s", err, out)
				}
				if got.State != "interrupted" || got.FinalText != partialAnswer || got.Error == "" {
					t.Fatalf("turn %+v", got)
				}
			},
		},
		{
			// A running turn's messages are not searchable yet; an
			// interrupted one's are, its answer so far included.
			name: "sessions search",
			args: func(string, string) []string { return []string{"sessions", "search", "zanzibar", "--json"} },
			check: func(t *testing.T, out, tr string) {
				var v struct{ Hits []store.SearchHit }
				if err := json.Unmarshal([]byte(out), &v); err != nil || len(v.Hits) != 1 || v.Hits[0].TurnID != tr {
					t.Fatalf("%v: %s", err, out)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			noLeaks(t)
			db := filepath.Join(t.TempDir(), "a.db")
			sess, tr, _ := deadRun(t, db)
			r := agentdeck(t, db, "", nil, nil, tt.args(sess, tr)...)
			if r.code != ExitOK || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			tt.check(t, r.stdout, tr)
		})
	}
}

// db check only looks: it reports the killed run's turn, passes, and
// leaves the file as it was; the next command recovers the turn.
func TestDBCheckReportsADeadRunAndWritesNothing(t *testing.T) {
	// Not parallel: goleak would count the goroutines of tests running beside it (noLeaks).
	noLeaks(t)
	db := filepath.Join(t.TempDir(), "a.db")
	_, tr, pid := deadRun(t, db)
	before := storetest.Files(t, db)

	r := agentdeck(t, db, "", nil, nil, "db", "check")
	if r.code != ExitOK || !strings.Contains(r.stdout, "integrity: ok") {
		t.Fatalf("db check: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	want := "its process (pid " + strconv.Itoa(pid) + ") is gone; it will be marked interrupted"
	if !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, tr) {
		t.Fatalf("db check should say %q about turn %s:\n%s", want, tr, r.stdout)
	}
	j := agentdeck(t, db, "", nil, nil, "db", "check", "--json")
	var rep struct {
		OK      bool           `json:"ok"`
		Orphans []store.Orphan `json:"orphaned_turns"`
	}
	if err := json.Unmarshal([]byte(j.stdout), &rep); err != nil || j.code != ExitOK || !rep.OK || len(rep.Orphans) != 1 || rep.Orphans[0].TurnID != tr || rep.Orphans[0].OwnerPID != pid {
		t.Fatalf("db check --json: exit %d, %v: %s", j.code, err, j.stdout)
	}
	if after := storetest.Files(t, db); !bytes.Equal(before, after) {
		t.Fatal("db check changed the database file")
	}

	show := agentdeck(t, db, "", nil, nil, "turns", "show", tr, "--json")
	if !strings.Contains(show.stdout, `"state": "interrupted"`) {
		t.Fatalf("the next command should recover the turn: %s", show.stdout)
	}
	if r := agentdeck(t, db, "", nil, nil, "db", "check"); strings.Contains(r.stdout, "note:") {
		t.Fatalf("nothing left to report:\n%s", r.stdout)
	}
}

func TestDBCheckOfAMissingFileCreatesNothing(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "none", "a.db")
	r := agentdeck(t, db, "", nil, nil, "db", "check")
	if r.code != ExitFailed || !strings.Contains(r.stderr, "there is no database at") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Dir(db)); !os.IsNotExist(err) {
		t.Fatal("db check created the folder")
	}
}

package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

// localTargets are models of the fixture's provider.
func localTargets(models ...string) []store.GroupTarget {
	out := make([]store.GroupTarget, len(models))
	for i, m := range models {
		out[i] = store.GroupTarget{Provider: "local", Model: m}
	}
	return out
}

// sendGroup sends side by side and fails the test on an error.
func (f *fixture) sendGroup(t *testing.T, req GroupSendRequest) GroupRef {
	t.Helper()
	ref, err := f.api.SendSideBySide(req)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

// session shows what a reload shows: its active turn and open group.
func (f *fixture) shows(t *testing.T, sessionID, active, group string) {
	t.Helper()
	s, err := f.api.GetSession(sessionID)
	if err != nil || s.ActiveTurnID != active || s.OpenGroupID != group {
		t.Fatalf("session shows active %q, group %q (%v); want %q, %q", s.ActiveTurnID, s.OpenGroupID, err, active, group)
	}
}

// One message to three models streams each column through the hub as
// its own turn. The session then shows the group; "continue with" one
// shows its branch alone, opening the group shows the columns again, a
// follow-up goes to each column's own branch, and a vote is in the
// group's chain.
func TestSideBySideStreamsAndReopens(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.Respond(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Chunks: llmtest.Text(r.Model+" says "+r.Messages[len(r.Messages)-1].Content, 3)}
	})
	s := f.session(t, "S")
	ref := f.sendGroup(t, GroupSendRequest{Send: SendRequest{SessionID: s.ID, Message: "hi"}, Targets: localTargets("a", "b", "c")})
	if ref.GroupID == "" || ref.SessionID != s.ID || len(ref.Turns) != 3 {
		t.Fatalf("ref %+v", ref)
	}
	for i, tr := range ref.Turns {
		d := f.waitTurn(t, tr.TurnID)
		turntest.Check(t, f.rec.Turn(tr.TurnID))
		if want := []string{"a", "b", "c"}[i] + " says hi"; d.FinalText != want || d.GroupID != ref.GroupID || d.GroupSlot != i {
			t.Fatalf("column %d: %q in %q slot %d", i, d.FinalText, d.GroupID, d.GroupSlot)
		}
	}
	f.shows(t, s.ID, ref.Turns[0].TurnID, ref.GroupID)

	active, err := f.api.ContinueWith(ref.Turns[2].TurnID)
	if err != nil || active.TurnID != ref.Turns[2].TurnID || active.SessionID != s.ID {
		t.Fatalf("continue with: %+v %v", active, err)
	}
	f.shows(t, s.ID, ref.Turns[2].TurnID, "")
	if _, err := f.api.OpenGroup(ref.GroupID); err != nil {
		t.Fatal(err)
	}
	f.shows(t, s.ID, ref.Turns[0].TurnID, ref.GroupID)

	next := f.sendGroup(t, GroupSendRequest{Send: SendRequest{SessionID: s.ID, Message: "more"}, Follows: ref.GroupID})
	for i, tr := range next.Turns {
		if d := f.waitTurn(t, tr.TurnID); d.ParentTurnID != ref.Turns[i].TurnID {
			t.Fatalf("follow-up column %d follows %q, want %q", i, d.ParentTurnID, ref.Turns[i].TurnID)
		}
	}
	f.shows(t, s.ID, next.Turns[0].TurnID, next.GroupID)

	if _, err := f.api.VoteOnGroup(store.Vote{GroupID: ref.GroupID, Outcome: store.VoteWin, WinnerTurnID: ref.Turns[1].TurnID, Note: "b is clearer"}); err != nil {
		t.Fatal(err)
	}
	chain, err := f.api.GroupChain(next.GroupID)
	if err != nil || len(chain) != 2 || chain[0].ID != ref.GroupID || chain[1].ID != next.GroupID {
		t.Fatalf("chain %+v %v", chain, err)
	}
	if v := chain[0].Vote; v == nil || v.Outcome != store.VoteWin || v.WinnerTurnID != ref.Turns[1].TurnID || v.Note != "b is clearer" || chain[1].Vote != nil {
		t.Fatalf("votes in the chain: %+v, %+v", chain[0].Vote, chain[1].Vote)
	}
}

// A column's own Stop ends it alone; Stop all ends every column, and the
// model server sees each stream close.
func TestSideBySideStopOneAndStopAll(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	release := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(release) }) }
	t.Cleanup(open)
	f.srv.Respond(func(r llmtest.Request) llmtest.Reply {
		switch r.Model {
		case "hang":
			return llmtest.Reply{Hang: true}
		case "wait":
			<-release
			return llmtest.Reply{Chunks: llmtest.Text("waited", 2)}
		}
		return llmtest.Reply{Chunks: llmtest.Tokens(20_000), Delay: time.Millisecond}
	})
	s := f.session(t, "S")
	ref := f.sendGroup(t, GroupSendRequest{Send: SendRequest{SessionID: s.ID, Message: "go"}, Targets: localTargets("hang", "wait")})
	if !f.srv.WaitRequests(2, turntest.WaitTimeout) {
		t.Fatal("the requests never arrived")
	}
	if _, err := f.api.StopTurn(ref.Turns[0].TurnID); err != nil {
		t.Fatal(err)
	}
	if d := f.waitTurn(t, ref.Turns[0].TurnID); d.State != store.StateCancelled {
		t.Fatalf("stopped column is %s", d.State)
	}
	if d, _ := f.api.GetTurn(ref.Turns[1].TurnID, false); d.State != store.StateRunning {
		t.Fatalf("the other column is %s after one was stopped", d.State)
	}
	open()
	if d := f.waitTurn(t, ref.Turns[1].TurnID); d.State != store.StateCompleted || d.FinalText != "waited" {
		t.Fatalf("the other column: %s %q", d.State, d.FinalText)
	}

	all := f.sendGroup(t, GroupSendRequest{Send: SendRequest{SessionID: s.ID, Message: "again"}, Targets: localTargets("s1", "s2", "s3", "s4")})
	for _, tr := range all.Turns {
		f.rec.Until(t, "a token", func(evs []turn.Event) bool {
			for _, e := range evs {
				if e.TurnID == tr.TurnID && e.Type == turn.EventToken {
					return true
				}
			}
			return false
		})
	}
	if _, err := f.api.StopGroup(all.GroupID); err != nil {
		t.Fatal(err)
	}
	for _, tr := range all.Turns {
		if d := f.waitTurn(t, tr.TurnID); d.State != store.StateCancelled {
			t.Fatalf("column %s is %s after Stop all", tr.TurnID, d.State)
		}
	}
	if _, ok := f.srv.WaitDisconnects(5, turntest.WaitTimeout); !ok {
		t.Fatalf("the server saw %d of 5 disconnects", len(f.srv.Disconnects()))
	}
}

// Mistakes are said as such, with what to do.
func TestSideBySideErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.session(t, "S")
	cases := []struct {
		name string
		req  GroupSendRequest
		code apperr.Code
		says string
	}{
		{"empty message", GroupSendRequest{Send: SendRequest{SessionID: s.ID, Message: "  "}, Targets: localTargets("a", "b")}, apperr.Invalid, "empty"},
		{"no session", GroupSendRequest{Send: SendRequest{Message: "hi"}, Targets: localTargets("a", "b")}, apperr.Invalid, "session"},
		{"unknown session", GroupSendRequest{Send: SendRequest{SessionID: "nope", Message: "hi"}, Targets: localTargets("a", "b")}, apperr.NotFound, ""},
		{"one target", GroupSendRequest{Send: SendRequest{SessionID: s.ID, Message: "hi"}, Targets: localTargets("a")}, apperr.Invalid, "2 to 4"},
		{"five targets", GroupSendRequest{Send: SendRequest{SessionID: s.ID, Message: "hi"}, Targets: localTargets("a", "b", "c", "d", "e")}, apperr.Invalid, "2 to 4"},
		{"unknown provider", GroupSendRequest{Send: SendRequest{SessionID: s.ID, Message: "hi"}, Targets: []store.GroupTarget{{Provider: "local", Model: "a"}, {Provider: "gone", Model: "b"}}}, apperr.Invalid, "b · gone"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.api.SendSideBySide(tc.req)
			if apperr.CodeOf(err) != tc.code || !strings.Contains(apperr.MessageOf(err), tc.says) {
				t.Fatalf("%s: %q, want %s saying %q", apperr.CodeOf(err), apperr.MessageOf(err), tc.code, tc.says)
			}
		})
	}
	if _, err := f.api.StopGroup(""); apperr.CodeOf(err) != apperr.Invalid {
		t.Fatalf("Stop all of no group: %v", err)
	}
	if _, err := f.api.StopGroup("nope"); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("Stop all of an unknown group: %v", err)
	}
	if len(f.srv.Requests()) != 0 {
		t.Fatal("a refused send reached the model")
	}
}

// A column that asks to write a file says which column it is, and in a
// blind group not what it runs: the UI says "Column B asks…".
func TestSideBySideApprovalNamesTheColumn(t *testing.T) {
	t.Parallel()
	for _, blind := range []bool{false, true} {
		t.Run(map[bool]string{false: "named", true: "blind"}[blind], func(t *testing.T) {
			f := newFixture(t)
			ws := t.TempDir()
			s, err := f.api.CreateSession(NewSession{Title: "S", Provider: "local", Model: "m", Workspace: ws})
			if err != nil {
				t.Fatal(err)
			}
			f.srv.Respond(func(r llmtest.Request) llmtest.Reply {
				if r.Model == "writer" && r.Messages[len(r.Messages)-1].Role == "user" {
					args, _ := json.Marshal(map[string]any{"path": "note.txt", "content": "hello"})
					return llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, "w1", "write_file", string(args), 2), "tool_calls")}
				}
				return llmtest.Reply{Chunks: llmtest.Text("done", 1)}
			})
			asks := watchBus[PendingApproval](t, f.svc.bus)
			ref := f.sendGroup(t, GroupSendRequest{Send: SendRequest{SessionID: s.ID, Message: "write"}, Targets: localTargets("reader", "writer"), Blind: blind})
			p := asks.Next()
			g, err := f.db.GetGroup(t.Context(), ref.GroupID)
			if err != nil {
				t.Fatal(err)
			}
			slot := 1
			if g.Targets[0].Model == "writer" {
				slot = 0
			}
			want := ApprovalColumn{GroupID: ref.GroupID, Slot: slot, Target: "writer · local"}
			if blind {
				want.Target = ""
			}
			if p.Column == nil || *p.Column != want || p.TurnID != ref.Turns[slot].TurnID || p.Tool != "write_file" {
				t.Fatalf("approval %+v column %+v, want %+v", p.ApprovalRequest, p.Column, want)
			}
			if list, _ := f.api.PendingApprovals(); len(list) != 1 || list[0].Column == nil || *list[0].Column != want {
				t.Fatalf("pending approvals %+v", list)
			}
			if _, err := f.api.AnswerApproval(ApprovalAnswer{CallID: p.CallID, Answer: turn.Deny}); err != nil {
				t.Fatal(err)
			}
			for _, tr := range ref.Turns {
				if d := f.waitTurn(t, tr.TurnID); d.State != store.StateCompleted {
					t.Fatalf("column %d is %s", d.GroupSlot, d.State)
				}
			}
			if _, err := os.Stat(filepath.Join(ws, "note.txt")); !os.IsNotExist(err) {
				t.Fatal("a denied write happened")
			}
		})
	}
}

// A plain turn's approval names no column.
func TestPlainApprovalHasNoColumn(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s, err := f.api.CreateSession(NewSession{Title: "S", Provider: "local", Model: "m", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]any{"path": "note.txt", "content": "hello"})
	f.srv.Enqueue(llmtest.Reply{Chunks: llmtest.WithFinish(llmtest.ToolCallChunks(0, "w1", "write_file", string(args), 2), "tool_calls")}, llmtest.Reply{Chunks: llmtest.Text("ok", 1)})
	asks := watchBus[PendingApproval](t, f.svc.bus)
	ref, err := f.api.SendMessage(SendRequest{SessionID: s.ID, Message: "write"})
	if err != nil {
		t.Fatal(err)
	}
	if p := asks.Next(); p.Column != nil || p.TurnID != ref.TurnID {
		t.Fatalf("a plain turn's approval names column %+v", p.Column)
	}
	if _, err := f.api.StopTurn(ref.TurnID); err != nil {
		t.Fatal(err)
	}
	f.waitTurn(t, ref.TurnID)
}

// runningGroupOf stores a two-column group whose columns p runs, as that
// process would have left them.
func (r *orphanRig) runningGroupOf(t *testing.T, p *otherProcess, sessionID string) (string, []string) {
	t.Helper()
	ctx := context.Background()
	other, err := store.Open(ctx, r.db.Path(), store.Options{Owner: &p.owner})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	g, err := other.CreateGroup(ctx, store.TurnGroup{SessionID: sessionID, Targets: localTargets("a", "b")})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for slot, tg := range g.Targets {
		tr, err := other.StartTurn(ctx, store.Turn{SessionID: sessionID, UserMessage: "count", Workflow: "chat", Model: tg.Model},
			store.StartOptions{Group: g.ID, Slot: slot, Target: tg.Label()})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tr.ID)
	}
	return g.ID, ids
}

// Stop all on columns another process left: a dead one's are marked
// interrupted and the UIs told; a live one's are refused, naming its pid.
func TestStopGroupOfAnotherProcess(t *testing.T) {
	// Not parallel: goleak would count the goroutines of tests running beside it (newOrphanRig).
	r := newOrphanRig(t, time.Hour) // no watcher: only Stop may act
	t.Run("its process is gone", func(t *testing.T) {
		p := startOther(t)
		group, ids := r.runningGroupOf(t, p, r.session(t, "S").ID)
		p.kill()
		if _, err := r.api.StopGroup(group); err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if d := r.turn(t, id); d.State != store.StateInterrupted {
				t.Fatalf("column %d is %s after Stop all", d.GroupSlot, d.State)
			}
		}
		if got := r.turns.Taken(); len(got) != len(ids) {
			t.Fatalf("turn changes %+v, want one per column", got)
		}
	})
	t.Run("another live process runs it", func(t *testing.T) {
		p := startOther(t)
		group, ids := r.runningGroupOf(t, p, r.session(t, "S").ID)
		_, err := r.api.StopGroup(group)
		if apperr.CodeOf(err) != apperr.Conflict || !strings.Contains(apperr.MessageOf(err), strconv.Itoa(p.owner.PID)) {
			t.Fatalf("Stop all = %v; want a conflict naming pid %d", err, p.owner.PID)
		}
		for _, id := range ids {
			if d := r.turn(t, id); d.State != store.StateRunning {
				t.Fatalf("a live process's column is %s", d.State)
			}
		}
	})
}

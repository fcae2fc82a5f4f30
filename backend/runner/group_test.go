package runner_test

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

// groupRig is an engine with the scripted server as provider "p" and one
// session on it.
type groupRig struct {
	db   *store.DB
	r    *runner.Runner
	srv  *llmtest.Server
	sess store.Session
}

func newGroupRig(t *testing.T) *groupRig {
	t.Helper()
	ctx := context.Background()
	_, db, eng := setuptest.NewEngine(t)
	srv := llmtest.NewServer(t)
	if err := db.SaveProvider(ctx, llm.Provider{Name: "p", Kind: catalog.KindCustom, BaseURL: srv.URL(), Local: true}); err != nil {
		t.Fatal(err)
	}
	sess, err := db.CreateSession(ctx, store.Session{Title: "s", Provider: "p", Model: "a"})
	if err != nil {
		t.Fatal(err)
	}
	return &groupRig{db: db, r: eng.Runner, srv: srv, sess: sess}
}

// targets are models of provider p.
func targets(models ...string) []store.GroupTarget {
	out := make([]store.GroupTarget, len(models))
	for i, m := range models {
		out[i] = store.GroupTarget{Provider: "p", Model: m}
	}
	return out
}

// start sends msg side by side to the models, each column with its own
// recorder (by slot).
func (g *groupRig) start(t *testing.T, req runner.GroupRequest) (runner.GroupHandle, map[int]*turntest.Recorder) {
	t.Helper()
	recs := map[int]*turntest.Recorder{}
	req.SessionID = g.sess.ID
	req.ColumnSinks = func(c runner.Column) []turn.Sink {
		recs[c.Slot] = &turntest.Recorder{}
		return []turn.Sink{recs[c.Slot]}
	}
	gh, err := g.r.StartGroup(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return gh, recs
}

// gate is a channel the test opens once, at the latest when it ends, so
// no server handler waiting on it outlives the test.
func gate(t *testing.T) (<-chan struct{}, func()) {
	c := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(c) }) }
	t.Cleanup(open)
	return c, open
}

// barrier holds every arrival until the n-th: n requests that all pass it
// were all open at once.
type barrier struct {
	mu  sync.Mutex
	n   int
	all chan struct{}
}

func newBarrier(n int) *barrier { return &barrier{n: n, all: make(chan struct{})} }

func (b *barrier) arrive() bool {
	b.mu.Lock()
	if b.n--; b.n == 0 {
		close(b.all)
	}
	b.mu.Unlock()
	select {
	case <-b.all:
		return true
	case <-time.After(turntest.WaitTimeout):
		return false
	}
}

// Four targets answering at different speeds run together: the server
// holds each request until the fourth arrives, so none could answer had
// they run one after another. Each column is its own turn, a version of
// the others, with exactly one terminal event and its own model's answer.
func TestGroupFourColumnsRunTogether(t *testing.T) {
	g := newGroupRig(t)
	models := []string{"a", "b", "c", "d"}
	open := newBarrier(len(models))
	g.srv.Respond(func(req llmtest.Request) llmtest.Reply {
		if !open.arrive() {
			return llmtest.ErrorReply(500, "", "the four requests were never open at once")
		}
		speed := time.Duration(strings.Index("abcd", req.Model)) * time.Millisecond
		return llmtest.Reply{Chunks: llmtest.Text("I am "+req.Model+", answering slowly or fast", 5), Delay: speed}
	})
	gh, recs := g.start(t, runner.GroupRequest{Request: runner.Request{Message: "who are you?"}, Targets: targets(models...)})
	gh.Wait()
	if len(gh.Handles) != 4 {
		t.Fatalf("%d columns", len(gh.Handles))
	}
	grp, err := g.db.GetGroup(context.Background(), gh.Group.ID)
	if err != nil || len(grp.Columns) != 4 {
		t.Fatalf("group %+v %v", grp, err)
	}
	for slot, h := range gh.Handles {
		turntest.Check(t, recs[slot].Events())
		c := grp.Columns[slot]
		d, err := g.db.GetTurn(context.Background(), h.TurnID, false)
		want := "I am " + models[slot] + ", answering slowly or fast"
		if err != nil || c.TurnID != h.TurnID || d.State != store.StateCompleted || d.FinalText != want || d.GroupID != grp.ID || d.GroupSlot != slot || d.ParentTurnID != "" {
			t.Fatalf("column %d: %+v %v", slot, d.Turn, err)
		}
		if h.Target != targets(models[slot])[0].Label() || c.Target != h.Target {
			t.Fatalf("column %d target %q, stored %q", slot, h.Target, c.Target)
		}
	}
}

// Stop on one column ends it cancelled; the others, still streaming when
// it stopped, run to their end.
func TestGroupStopOneColumn(t *testing.T) {
	g := newGroupRig(t)
	release, open := gate(t)
	g.srv.Respond(func(req llmtest.Request) llmtest.Reply {
		if req.Model == "a" {
			return llmtest.Reply{Hang: true}
		}
		<-release
		return llmtest.Reply{Chunks: llmtest.Text("done "+req.Model, 2)}
	})
	gh, recs := g.start(t, runner.GroupRequest{Request: runner.Request{Message: "go"}, Targets: targets("a", "b", "c")})
	if !g.srv.WaitRequests(3, turntest.WaitTimeout) {
		t.Fatal("the three requests never arrived")
	}
	if !g.r.Runs(gh.Handles[0].TurnID) {
		t.Fatal("a running column is not running here")
	}
	if err := g.r.Stop(gh.Handles[0].TurnID); err != nil {
		t.Fatal(err)
	}
	<-gh.Handles[0].Done()
	if g.r.Runs(gh.Handles[0].TurnID) {
		t.Fatal("a stopped column still runs here")
	}
	if _, ok := g.srv.WaitDisconnect(turntest.WaitTimeout); !ok {
		t.Fatal("the stopped column's stream was not closed")
	}
	for _, h := range gh.Handles[1:] {
		select {
		case <-h.Done():
			t.Fatalf("column %d ended with the stopped one", h.Slot)
		default:
		}
	}
	open()
	gh.Wait()
	for slot, h := range gh.Handles {
		turntest.Check(t, recs[slot].Events())
		d, _ := g.db.GetTurn(context.Background(), h.TurnID, false)
		want := store.StateCompleted
		if slot == 0 {
			want = store.StateCancelled
		}
		if d.State != want {
			t.Fatalf("column %d is %s, want %s", slot, d.State, want)
		}
	}
	if n := len(g.srv.Disconnects()); n != 1 {
		t.Fatalf("%d disconnects, want 1", n)
	}
}

// StopGroup cancels every column's upstream stream: the server sees each
// client go away, and every column ends cancelled with one terminal event.
func TestStopGroupCancelsEveryStream(t *testing.T) {
	g := newGroupRig(t)
	g.srv.Respond(func(llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Chunks: llmtest.Tokens(20_000), Delay: time.Millisecond}
	})
	gh, recs := g.start(t, runner.GroupRequest{Request: runner.Request{Message: "go"}, Targets: targets("a", "b", "c", "d")})
	for slot := range gh.Handles {
		recs[slot].Until(t, "a token", func(evs []turn.Event) bool {
			return slices.ContainsFunc(evs, func(e turn.Event) bool { return e.Type == turn.EventToken })
		})
	}
	if err := g.r.StopGroup(gh.Group.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok := g.srv.WaitDisconnects(4, turntest.WaitTimeout); !ok {
		t.Fatalf("the server saw %d of 4 disconnects", len(g.srv.Disconnects()))
	}
	gh.Wait()
	for slot, h := range gh.Handles {
		turntest.Check(t, recs[slot].Events())
		if d, _ := g.db.GetTurn(context.Background(), h.TurnID, false); d.State != store.StateCancelled || d.FinalText == "" {
			t.Fatalf("column %d: %s with %q", slot, d.State, d.FinalText)
		}
	}
	if err := g.r.StopGroup(""); err == nil {
		t.Fatal("StopGroup of no group said nothing")
	}
}

// A second message sent with Follows goes to each column's own branch:
// each model is sent its own column's answer, not another's.
func TestGroupFollowsEachColumnsBranch(t *testing.T) {
	g := newGroupRig(t)
	g.srv.Respond(func(req llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Chunks: llmtest.Text(fmt.Sprintf("answer %d of %s", len(req.Messages), req.Model), 2)}
	})
	first, _ := g.start(t, runner.GroupRequest{Request: runner.Request{Message: "one"}, Targets: targets("a", "b")})
	first.Wait()
	second, recs := g.start(t, runner.GroupRequest{Request: runner.Request{Message: "two"}, Follows: first.Group.ID, Targets: targets("x", "y", "z")})
	second.Wait()
	if len(second.Handles) != 2 || second.Group.FollowsGroupID != first.Group.ID {
		t.Fatalf("the follow-up has %d columns, follows %q", len(second.Handles), second.Group.FollowsGroupID)
	}
	for slot, h := range second.Handles {
		turntest.Check(t, recs[slot].Events())
		d, _ := g.db.GetTurn(context.Background(), h.TurnID, false)
		if d.ParentTurnID != first.Handles[slot].TurnID || d.Model != []string{"a", "b"}[slot] {
			t.Fatalf("column %d follows %q with model %q", slot, d.ParentTurnID, d.Model)
		}
	}
	seen := 0
	for _, req := range g.srv.Requests() {
		if len(req.Messages) < 3 {
			continue
		}
		seen++
		var said []string
		for _, m := range req.Messages {
			if m.Role == "user" || m.Role == "assistant" {
				said = append(said, m.Content)
			}
		}
		want := []string{"one", "answer " + fmt.Sprint(len(req.Messages)-2) + " of " + req.Model, "two"}
		if !slices.Equal(said, want) {
			t.Fatalf("model %s was sent %q, want %q", req.Model, said, want)
		}
	}
	if seen != 2 {
		t.Fatalf("%d follow-up requests", seen)
	}
}

// A blind group puts target i in slot Order(n)[i], and the stored group
// and turns say so.
func TestBlindGroupOrder(t *testing.T) {
	g := newGroupRig(t)
	g.srv.Respond(func(req llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Chunks: llmtest.Text("I am "+req.Model, 1)}
	})
	gh, _ := g.start(t, runner.GroupRequest{
		Request: runner.Request{Message: "who?"}, Targets: targets("a", "b", "c"), Blind: true,
		Order: func(n int) []int { return []int{2, 0, 1} },
	})
	gh.Wait()
	grp, _ := g.db.GetGroup(context.Background(), gh.Group.ID)
	want := []string{"b", "c", "a"}
	for slot, h := range gh.Handles {
		d, _ := g.db.GetTurn(context.Background(), h.TurnID, false)
		if !grp.Blind || grp.Targets[slot].Model != want[slot] || d.Model != want[slot] || d.FinalText != "I am "+want[slot] {
			t.Fatalf("slot %d: target %+v, turn model %q answered %q", slot, grp.Targets[slot], d.Model, d.FinalText)
		}
	}
}

// A send that cannot run every target is refused whole, and stores
// nothing: no group, no turn.
func TestGroupRefusedStoresNothing(t *testing.T) {
	g := newGroupRig(t)
	g.srv.Respond(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Chunks: llmtest.Text("x", 1)} })
	bare, err := g.db.CreateSession(context.Background(), store.Session{Title: "no model", Provider: "p"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		req     runner.GroupRequest
		code    apperr.Code
		message string
	}{
		{"unknown provider", runner.GroupRequest{Targets: []store.GroupTarget{{Provider: "p", Model: "a"}, {Provider: "nope", Model: "b"}}}, apperr.Invalid, "b · nope"},
		{"no model", runner.GroupRequest{Request: runner.Request{SessionID: bare.ID}, Targets: []store.GroupTarget{{Provider: "p", Model: "a"}, {Provider: "p"}}}, apperr.Invalid, "No model"},
		{"one target", runner.GroupRequest{Targets: targets("a")}, apperr.Invalid, "2 to 4"},
		{"five targets", runner.GroupRequest{Targets: targets("a", "b", "c", "d", "e")}, apperr.Invalid, "2 to 4"},
		{"unknown workflow", runner.GroupRequest{Targets: []store.GroupTarget{{Provider: "p", Model: "a"}, {Provider: "p", Model: "b", Workflow: "nope"}}}, apperr.Invalid, "nope"},
		{"continue", runner.GroupRequest{Request: runner.Request{Continue: "t"}, Targets: targets("a", "b")}, apperr.Invalid, "Continue"},
		{"bad attachment", runner.GroupRequest{Request: runner.Request{Attach: []string{"/no/such/file.csv"}}, Targets: targets("a", "b")}, "", ""},
		{"follows nothing", runner.GroupRequest{Follows: "nope"}, apperr.NotFound, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.SessionID, tc.req.Message = cmp.Or(tc.req.SessionID, g.sess.ID), "hi"
			_, err := g.r.StartGroup(context.Background(), tc.req)
			if err == nil {
				t.Fatal("sent")
			}
			if tc.code != "" && apperr.CodeOf(err) != tc.code {
				t.Fatalf("code %s: %v", apperr.CodeOf(err), err)
			}
			if !strings.Contains(apperr.MessageOf(err), tc.message) {
				t.Fatalf("message %q does not name %q", apperr.MessageOf(err), tc.message)
			}
			if groups, turns := g.rows(t); groups != 0 || turns != 0 {
				t.Fatalf("%d groups and %d turns stored", groups, turns)
			}
		})
	}
}

// rows counts the groups and turns stored.
func (g *groupRig) rows(t *testing.T) (groups, turns int) {
	t.Helper()
	conn, err := sql.Open("sqlite", g.db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.QueryRow(`SELECT (SELECT COUNT(*) FROM turn_groups), (SELECT COUNT(*) FROM turns)`).Scan(&groups, &turns); err != nil {
		t.Fatal(err)
	}
	return groups, turns
}

// While a group runs, a plain turn of its session is refused, and so is
// another group, and neither leaves anything behind; once the group has
// ended, both are sent.
func TestGroupHoldsTheSession(t *testing.T) {
	g := newGroupRig(t)
	release, open := gate(t)
	g.srv.Respond(func(req llmtest.Request) llmtest.Reply {
		if req.Model != "plain" {
			<-release
		}
		return llmtest.Reply{Chunks: llmtest.Text("ok "+req.Model, 1)}
	})
	gh, _ := g.start(t, runner.GroupRequest{Request: runner.Request{Message: "go"}, Targets: targets("a", "b")})
	_, err := g.r.Start(context.Background(), runner.Request{SessionID: g.sess.ID, Message: "plain", Model: "plain", Provider: "p"})
	if apperr.CodeOf(err) != apperr.Conflict {
		t.Fatalf("a plain turn during the group: %v", err)
	}
	_, err = g.r.StartGroup(context.Background(), runner.GroupRequest{Request: runner.Request{SessionID: g.sess.ID, Message: "again"}, Targets: targets("c", "d")})
	if apperr.CodeOf(err) != apperr.Conflict {
		t.Fatalf("a second group during the group: %v", err)
	}
	if groups, turns := g.rows(t); groups != 1 || turns != 2 {
		t.Fatalf("the refusals stored: %d groups, %d turns", groups, turns)
	}
	open()
	gh.Wait()
	plain, err := g.r.Start(context.Background(), runner.Request{SessionID: g.sess.ID, Message: "plain", Model: "plain", Provider: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if res := plain.Wait(); !res.OK {
		t.Fatalf("plain turn after the group: %+v", res)
	}
	again, _ := g.start(t, runner.GroupRequest{Request: runner.Request{Message: "again"}, Targets: targets("c", "d")})
	again.Wait()
	for _, h := range again.Handles {
		if d, _ := g.db.GetTurn(context.Background(), h.TurnID, false); d.State != store.StateCompleted || d.ParentTurnID != plain.TurnID {
			t.Fatalf("second group's column: %+v", d.Turn)
		}
	}
}

// Two targets answer one message as two columns of one group: versions
// of one another, stored as two turns, the first on the active branch and
// the session showing the group side by side. Continue with the second
// makes its branch active and ends side-by-side mode.
func TestGroupColumnsAreVersions(t *testing.T) {
	ctx := context.Background()
	g := newGroupRig(t)
	g.srv.Respond(func(req llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Chunks: llmtest.Text("I am "+req.Model, 2)}
	})
	gh, _ := g.start(t, runner.GroupRequest{Request: runner.Request{Message: "who are you?"}, Targets: targets("a", "b")})
	gh.Wait()
	grp, err := g.db.GetGroup(ctx, gh.Group.ID)
	if err != nil || len(grp.Columns) != 2 {
		t.Fatalf("group %+v %v", grp, err)
	}
	s, _ := g.db.GetSession(ctx, g.sess.ID)
	if s.ActiveTurnID != grp.Columns[0].TurnID || s.OpenGroupID != grp.ID {
		t.Fatalf("session %+v", s)
	}
	active, err := g.db.ContinueWith(ctx, grp.Columns[1].TurnID)
	if err != nil || active != grp.Columns[1].TurnID {
		t.Fatalf("continue with: %q %v", active, err)
	}
	s, _ = g.db.GetSession(ctx, g.sess.ID)
	if s.ActiveTurnID != grp.Columns[1].TurnID || s.OpenGroupID != "" {
		t.Fatalf("after continue %+v", s)
	}
}

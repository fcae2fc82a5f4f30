package runner_test

import (
	"context"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
)

// Two targets answer one message as two columns of one group: versions
// of one another, stored as two turns, the first on the active branch and
// the session showing the group side by side. A plain turn sent while
// they run is refused.
func TestGroupColumnsAreVersions(t *testing.T) {
	ctx := context.Background()
	_, db, eng := setuptest.NewEngine(t)
	srv := llmtest.NewServer(t)
	srv.Respond(func(req llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Chunks: llmtest.Text("I am "+req.Model, 2)}
	})
	if err := db.SaveProvider(ctx, llm.Provider{Name: "p", Kind: catalog.KindCustom, BaseURL: srv.URL(), Local: true}); err != nil {
		t.Fatal(err)
	}
	sess, _ := db.CreateSession(ctx, store.Session{Title: "s", Provider: "p", Model: "a"})
	gh, err := eng.Runner.StartGroup(ctx, runner.GroupRequest{
		Request: runner.Request{SessionID: sess.ID, Message: "who are you?"},
		Targets: []store.GroupTarget{{Provider: "p", Model: "a"}, {Provider: "p", Model: "b"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	gh.Wait()
	g, err := db.GetGroup(ctx, gh.Group.ID)
	if err != nil || len(g.Columns) != 2 {
		t.Fatalf("group %+v %v", g, err)
	}
	for i, c := range g.Columns {
		d, err := db.GetTurn(ctx, c.TurnID, false)
		if err != nil || d.State != store.StateCompleted || d.FinalText != "I am "+g.Targets[i].Model || d.ParentTurnID != "" || d.GroupSlot != i {
			t.Fatalf("column %d: %+v %v", i, d.Turn, err)
		}
	}
	s, _ := db.GetSession(ctx, sess.ID)
	if s.ActiveTurnID != g.Columns[0].TurnID || s.OpenGroupID != g.ID {
		t.Fatalf("session %+v", s)
	}
	active, err := db.ContinueWith(ctx, g.Columns[1].TurnID)
	if err != nil || active != g.Columns[1].TurnID {
		t.Fatalf("continue with: %q %v", active, err)
	}
	s, _ = db.GetSession(ctx, sess.ID)
	if s.ActiveTurnID != g.Columns[1].TurnID || s.OpenGroupID != "" {
		t.Fatalf("after continue %+v", s)
	}
}

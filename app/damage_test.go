package app

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/setup"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/store/storetest"
)

// TestSendIntoADamagedDatabaseAsksFirst: once the window has met damage
// (here: opening a turn whose events are on a zeroed page), Status says so
// and SendMessage fails with the Damaged code, writing nothing, until the
// person confirms and the UI sends again with Force.
func TestSendIntoADamagedDatabaseAsksFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "agentdeck.db")
	db, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := storetest.BuildHistory(t, db, 40, 2)
	db.Close()
	storetest.ZeroMiddlePage(t, path, "events")

	db, err = store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	eng, err := setup.Build(ctx, db, setup.Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	svc := NewService(Config{DB: db, DBPath: path, Runner: eng.Runner, Secrets: eng.Secrets, Workflows: eng.Workflows})
	f := &fixture{svc: svc, api: svc.api, srv: llmtest.NewServer(t), db: db, rec: record(t, svc)}
	f.addProvider(t)
	if st, _ := f.api.Status(); st.Damaged != "" {
		t.Fatalf("damage known before any read met it: %q", st.Damaged)
	}

	// Opening the turns, as a person browsing would, meets the page.
	var met error
	for _, tr := range h.Turns {
		if _, err := f.api.GetTurn(tr.ID, false); err != nil {
			met = err
			break
		}
	}
	if apperr.CodeOf(met) != apperr.Damaged || strings.Contains(apperr.MessageOf(met), "charts") {
		t.Fatalf("opening a damaged turn: %v", met)
	}
	st, _ := f.api.Status()
	if !strings.Contains(st.Damaged, path) || !strings.Contains(st.Damaged, "events") || !strings.Contains(st.Damaged, "db salvage") {
		t.Fatalf("status: %q", st.Damaged)
	}

	sess := f.session(t, "after the damage")
	// The session's write wakes the store's checkpointer, which copies the
	// log into the file in the background: copy it now, so that the bytes
	// compared below change only if the refused message wrote something.
	if err := db.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	before := storetest.Files(t, path)
	_, err = f.api.SendMessage(SendRequest{SessionID: sess.ID, Message: "hello?"})
	if apperr.CodeOf(err) != apperr.Damaged || !strings.Contains(apperr.MessageOf(err), "did not start the turn") {
		t.Fatalf("SendMessage into a damaged file: %v", err)
	}
	if !slices.Equal(before, storetest.Files(t, path)) {
		t.Fatal("a refused message was written")
	}

	f.srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("Still here.", 2)})
	ref, err := f.api.SendMessage(SendRequest{SessionID: sess.ID, Message: "hello?", Force: true})
	if err != nil {
		t.Fatalf("SendMessage with Force: %v", err)
	}
	if d := f.waitTurn(t, ref.TurnID); d.FinalText != "Still here." {
		t.Fatalf("the forced turn: %+v", d.Turn)
	}
}

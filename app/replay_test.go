package app

import (
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/store"
)

// The window's Replay serves the turn's own recordings, offline, in a new
// session; a turn that was not recorded says so and leaves nothing behind.
func TestReplayTurnFromTheWindow(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.session(t, "numbers")
	send := func(answer string) TurnRef {
		f.srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text(answer, 3)})
		ref, err := f.api.SendMessage(SendRequest{SessionID: s.ID, Message: "Pick a number."})
		if err != nil {
			t.Fatal(err)
		}
		f.waitTurn(t, ref.TurnID)
		return ref
	}
	first, second := send("Seven."), send("Forty-two.")
	st := f.svc.settings()
	st.Capture = "off"
	if _, err := f.api.SaveSettings(st); err != nil {
		t.Fatal(err)
	}
	unrecorded := send("Three.")
	f.srv.Close()

	for _, tc := range []struct {
		ref  TurnRef
		want string
	}{{first, "Seven."}, {second, "Forty-two."}} {
		rep, err := f.api.ReplayTurn(tc.ref.TurnID)
		if err != nil {
			t.Fatal(err)
		}
		if d := f.waitTurn(t, rep.TurnID); d.State != store.StateCompleted || d.FinalText != tc.want {
			t.Fatalf("replay of %s: %s %q, want %q", tc.ref.TurnID, d.State, d.FinalText, tc.want)
		}
	}
	before, _ := f.api.ListSessions(store.Page{})
	if _, err := f.api.ReplayTurn(unrecorded.TurnID); err == nil || !strings.Contains(err.Error(), "no recorded model calls") {
		t.Fatalf("replaying an unrecorded turn: %v", err)
	}
	after, _ := f.api.ListSessions(store.Page{})
	if len(after.Sessions) != len(before.Sessions) {
		t.Fatalf("a replay that could not start left a session behind: %d sessions, were %d", len(after.Sessions), len(before.Sessions))
	}
}

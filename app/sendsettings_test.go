package app

import (
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// A message's own settings (SendRequest.Settings) go with that turn only,
// over the session's; the next message runs with the session's again.
func TestSendRequestSettingsAreTheTurns(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.Respond(func(r llmtest.Request) llmtest.Reply { return llmtest.Reply{Chunks: llmtest.Text("ok", 1)} })
	s := f.session(t, "sampling")
	own := 0.2
	s.Settings = turn.RunSettings{Sampling: turn.Sampling{Temperature: &own}}
	if _, err := f.api.UpdateSession(s); err != nil {
		t.Fatal(err)
	}
	once := 0.9
	ref, err := f.api.SendMessage(SendRequest{SessionID: s.ID, Message: "hot", Settings: turn.RunSettings{Sampling: turn.Sampling{Temperature: &once}}})
	if err != nil {
		t.Fatal(err)
	}
	if d := f.waitTurn(t, ref.TurnID); d.Settings == nil || d.Settings.From["temperature"] != turn.LayerTurn {
		t.Fatalf("the turn's stored settings: %+v", d.Settings)
	}
	ref, err = f.api.SendMessage(SendRequest{SessionID: s.ID, Message: "again"})
	if err != nil {
		t.Fatal(err)
	}
	f.waitTurn(t, ref.TurnID)
	reqs := f.srv.Requests()
	if len(reqs) != 2 || reqs[0].Body["temperature"] != 0.9 || reqs[1].Body["temperature"] != 0.2 {
		var got []any
		for _, r := range reqs {
			got = append(got, r.Body["temperature"])
		}
		t.Fatalf("temperatures sent: %v, want [0.9 0.2]", got)
	}
}

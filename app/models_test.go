package app

import (
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
)

// TestAModelTheServerDoesNotListRuns: many servers list some models or
// none at /models (gateways, proxies, Azure deployments), so a turn and a
// re-run go out with whatever model name they are given, never checked
// against the list, and the turn stores it (issue 40).
func TestAModelTheServerDoesNotListRuns(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.SetModels("listed-only")
	f.srv.Respond(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Chunks: llmtest.Text("Answered as "+r.Model+".", 2)}
	})
	s := f.session(t, "Unlisted")
	first, err := f.api.SendMessage(SendRequest{SessionID: s.ID, Message: "whoami", Model: "typed-deployment"})
	if err != nil {
		t.Fatal(err)
	}
	f.waitTurn(t, first.TurnID)

	tests := []struct {
		name  string
		start func() (TurnRef, error)
		model string
	}{
		{"a message", func() (TurnRef, error) {
			return f.api.SendMessage(SendRequest{SessionID: s.ID, Message: "whoami again", Model: "another-unlisted"})
		}, "another-unlisted"},
		{"a re-run", func() (TurnRef, error) {
			return f.api.RerunTurn(first.TurnID, RerunOptions{Provider: "local", Model: "rerun-unlisted"})
		}, "rerun-unlisted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref, err := tt.start()
			if err != nil {
				t.Fatalf("a model the server does not list was refused: %v", err)
			}
			d := f.waitTurn(t, ref.TurnID)
			if d.Model != tt.model || d.FinalText != "Answered as "+tt.model+"." {
				t.Fatalf("turn ran %q and answered %q, want %q", d.Model, d.FinalText, tt.model)
			}
		})
	}
	reqs := f.srv.Requests()
	if len(reqs) != 3 || reqs[0].Model != "typed-deployment" {
		t.Fatalf("requests %d, first for %q", len(reqs), reqs[0].Model)
	}
}

package app

import (
	"context"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/store"
)

// cliSession makes a session the way `agentdeck run --base-url URL --model
// M` does (cli.newRunSession, then a turn whose model calls go to URL): it
// names a model but no provider, and the URL is stored nowhere.
func (f *fixture) cliSession(t *testing.T, model string) store.Session {
	t.Helper()
	cli := llmtest.NewServer(t)
	cli.Enqueue(llmtest.Reply{Chunks: llmtest.Text("Hello from the CLI's server.", 2)})
	s, err := f.db.CreateSession(context.Background(), store.Session{Title: "from the CLI", Model: model, Workflow: "chat"})
	if err != nil {
		t.Fatal(err)
	}
	h, err := f.svc.runner.Start(context.Background(), runner.Request{SessionID: s.ID, Message: "hi", Model: model, BaseURL: cli.URL(), Capture: recording.Record})
	if err != nil {
		t.Fatal(err)
	}
	if res := h.Wait(); !res.OK {
		t.Fatalf("the CLI's turn: %+v", res)
	}
	if s, err = f.api.GetSession(s.ID); err != nil || s.Provider != "" || s.Model != model {
		t.Fatalf("a CLI session stores provider %q model %q (%v), want no provider and %q", s.Provider, s.Model, err, model)
	}
	return s
}

func (f *fixture) setDefaultProvider(t *testing.T, name string) {
	t.Helper()
	st := f.svc.settings()
	st.DefaultProvider = name
	if _, err := f.api.SaveSettings(st); err != nil {
		t.Fatal(err)
	}
}

// A session started by `agentdeck run --base-url` continues in the window
// on the default provider, which it then names; with no default, the
// refusal says what to do, and nothing is stored.
func TestACLISessionContinuesInTheWindow(t *testing.T) {
	t.Parallel()
	t.Run("on the default provider", func(t *testing.T) {
		f := newFixture(t)
		f.setDefaultProvider(t, "local")
		s := f.cliSession(t, "cli-model")
		f.srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("Continued by the saved provider.", 3)})
		ref, err := f.api.SendMessage(SendRequest{SessionID: s.ID, Message: "and then?", Model: s.Model})
		if err != nil {
			t.Fatalf("continuing a CLI session: %v", err)
		}
		if d := f.waitTurn(t, ref.TurnID); d.State != store.StateCompleted || d.FinalText != "Continued by the saved provider." {
			t.Fatalf("the window's turn: %s %q", d.State, d.FinalText)
		}
		reqs := f.srv.Requests()
		if len(reqs) != 1 || reqs[0].Model != "cli-model" {
			t.Fatalf("the saved provider got %d requests (%+v), want one for cli-model", len(reqs), reqs)
		}
		if got, _ := f.api.GetSession(s.ID); got.Provider != "local" || got.Model != "cli-model" {
			t.Fatalf("after continuing, the session names provider %q model %q, want local and cli-model", got.Provider, got.Model)
		}
	})
	t.Run("without a default provider", func(t *testing.T) {
		f := newFixture(t)
		s := f.cliSession(t, "cli-model")
		_, err := f.api.SendMessage(SendRequest{SessionID: s.ID, Message: "and then?"})
		if apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(err.Error(), "agentdeck run --base-url") || !strings.Contains(err.Error(), "Pick a model") {
			t.Fatalf("continuing a CLI session with no default provider: %v", err)
		}
		if page, _ := f.api.ListTurns(s.ID, store.Page{}); len(page.Turns) != 1 {
			t.Fatalf("a refused message stored a turn: %d turns, want the CLI's one", len(page.Turns))
		}
		if got, _ := f.api.GetSession(s.ID); got.Provider != "" {
			t.Fatalf("a refused message changed the session's provider to %q", got.Provider)
		}
	})
}

// Re-run with a model of another provider calls that provider, with that
// model, and the new session names both; a re-run of a CLI session's turn
// with no provider chosen runs on the default provider.
func TestRerunRunsOnTheChosenModelsProvider(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	other := llmtest.NewServer(t)
	if _, err := f.api.SaveProvider(ProviderInput{Provider: llm.Provider{Name: "other", Kind: catalog.KindCustom, BaseURL: other.URL(), Local: true}}); err != nil {
		t.Fatal(err)
	}
	s := f.session(t, "numbers")
	f.srv.Enqueue(llmtest.Reply{Chunks: llmtest.Text("Seven.", 2)})
	orig, err := f.api.SendMessage(SendRequest{SessionID: s.ID, Message: "Pick a number."})
	if err != nil {
		t.Fatal(err)
	}
	f.waitTurn(t, orig.TurnID)

	other.Enqueue(llmtest.Reply{Chunks: llmtest.Text("Forty-two.", 2)})
	ref, err := f.api.RerunTurn(orig.TurnID, RerunOptions{Provider: "other", Model: "m2"})
	if err != nil {
		t.Fatal(err)
	}
	if d := f.waitTurn(t, ref.TurnID); d.FinalText != "Forty-two." || d.Model != "m2" {
		t.Fatalf("the re-run: %q on %q, want Forty-two. on m2", d.FinalText, d.Model)
	}
	if reqs := other.Requests(); len(reqs) != 1 || reqs[0].Model != "m2" {
		t.Fatalf("the other provider got %+v, want one request for m2", reqs)
	}
	if n := len(f.srv.Requests()); n != 1 {
		t.Fatalf("the session's provider got %d requests, want only the original's", n)
	}
	if copySess, _ := f.api.GetSession(ref.SessionID); copySess.Provider != "other" || copySess.Model != "m2" {
		t.Fatalf("the re-run's session names %q / %q, want other / m2", copySess.Provider, copySess.Model)
	}

	f.setDefaultProvider(t, "other")
	cs := f.cliSession(t, "cli-model")
	page, err := f.api.ListTurns(cs.ID, store.Page{})
	if err != nil {
		t.Fatal(err)
	}
	other.Enqueue(llmtest.Reply{Chunks: llmtest.Text("Again.", 2)})
	ref, err = f.api.RerunTurn(page.Turns[0].ID, RerunOptions{})
	if err != nil {
		t.Fatalf("re-running a CLI session's turn: %v", err)
	}
	if d := f.waitTurn(t, ref.TurnID); d.FinalText != "Again." {
		t.Fatalf("the CLI turn's re-run: %s %q", d.State, d.FinalText)
	}
	if copySess, _ := f.api.GetSession(ref.SessionID); copySess.Provider != "other" {
		t.Fatalf("the CLI turn's re-run names provider %q, want the default, other", copySess.Provider)
	}
}

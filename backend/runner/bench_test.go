package runner_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/setup/setuptest"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/tokens"
)

// BenchmarkMeter is the context meter on a 40-turn conversation of about
// 200 KB, on an OpenAI model (counted exactly): "keystroke" is a call as
// the composer makes it while the person types (the conversation counted
// already, the draft counted again), "draft-only" the floor, counting the
// same draft alone, and "first" a meter whose conversation must be counted
// (a new branch, a new session).
func BenchmarkMeter(b *testing.B) {
	_, db, eng := setuptest.NewEngine(b)
	ctx := context.Background()
	srv := llmtest.NewServer(b)
	answer := strings.Repeat("The quick brown fox jumps over the lazy dog, again and again. ", 80) // ~5 KB
	srv.Respond(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Chunks: llmtest.Text(answer, 4)} })
	if err := db.SaveProvider(ctx, llm.Provider{Name: "p", Kind: catalog.KindCustom, BaseURL: srv.URL(), Local: true, Windows: map[string]int{"gpt-4o": 128_000}}); err != nil {
		b.Fatal(err)
	}
	sess, _ := db.CreateSession(ctx, store.Session{Title: "long", Model: "gpt-4o", Provider: "p"})
	for range 40 {
		h, err := eng.Runner.Start(ctx, runner.Request{SessionID: sess.ID, Message: "Tell me more about foxes and dogs, please."})
		if err != nil {
			b.Fatal(err)
		}
		if res := h.Wait(); !res.OK {
			b.Fatalf("%+v", res.Error)
		}
	}
	draft := strings.Repeat("Here is what I would like to know next: ", 10)
	if _, err := eng.Runner.Meter(ctx, runner.MeterRequest{SessionID: sess.ID, Draft: draft}); err != nil {
		b.Fatal(err)
	}
	b.Run("keystroke", func(b *testing.B) {
		for b.Loop() {
			if _, err := eng.Runner.Meter(ctx, runner.MeterRequest{SessionID: sess.ID, Draft: draft}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("draft-only", func(b *testing.B) {
		c := tokens.New()
		for b.Loop() {
			c.Text("gpt-4o", draft)
		}
	})
	b.Run("first", func(b *testing.B) {
		models := []string{"gpt-4o", "gpt-4o-mini"} // a new key each time: counted whole
		i := 0
		for b.Loop() {
			i++
			if _, err := eng.Runner.Meter(ctx, runner.MeterRequest{SessionID: sess.ID, Draft: draft, Model: models[i%2]}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

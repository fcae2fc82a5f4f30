package openai_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/llm/openai"
)

func TestEmbed(t *testing.T) {
	srv := llmtest.NewServer(t)
	c := openai.NewClient(openai.Config{BaseURL: srv.URL(), MaxRetries: -1})
	texts := []string{"revenue grew", "the cat sat", "revenue fell"}
	vs, err := c.Embed(context.Background(), "embed-small", texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 3 {
		t.Fatalf("got %d vectors, want 3", len(vs))
	}
	for i, v := range vs {
		if !slices.Equal(v, llmtest.Embedding(texts[i])) {
			t.Errorf("vector %d = %v, want the server's for %q", i, v, texts[i])
		}
	}
	if n := srv.EmbeddingRequests(); n != 1 {
		t.Errorf("%d requests, want one for the batch", n)
	}
}

func TestEmbedFails(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.FailEmbeddings(http.StatusNotFound)
	c := openai.NewClient(openai.Config{BaseURL: srv.URL(), MaxRetries: -1})
	_, err := c.Embed(context.Background(), "nope", []string{"a"})
	var le *llm.Error
	if !errors.As(err, &le) || le.Message == "" {
		t.Fatalf("got %v, want an *llm.Error with a message", err)
	}
	srv.Close()
	if _, err := c.Embed(context.Background(), "nope", []string{"a"}); !errors.As(err, &le) || le.Kind != llm.ErrNetwork {
		t.Fatalf("server gone: got %v, want a network error", err)
	}
}

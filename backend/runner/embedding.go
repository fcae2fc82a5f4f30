package runner

import (
	"context"

	"github.com/agentdeck/agentdeck/backend/knowledge"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/llm/openai"
	"github.com/agentdeck/agentdeck/backend/store"
)

// appSettingsStore reads the app's preferences (the store has it).
type appSettingsStore interface {
	AppSettings(ctx context.Context) (store.AppSettings, error)
}

// Embedding is the embedding model the user picked in the app's settings
// (store.AppSettings.EmbedProvider and EmbedModel), with a client for its
// provider's /v1/embeddings: what knowledge.Library.Embedding asks at each
// Add and Search. None picked (the default) is no model: search is
// lexical.
func (r *Runner) Embedding(ctx context.Context) (knowledge.EmbeddingChoice, error) {
	as, ok := r.cfg.DB.(appSettingsStore)
	if !ok {
		return knowledge.EmbeddingChoice{}, nil
	}
	st, err := as.AppSettings(ctx)
	if err != nil || st.EmbedModel == "" || st.EmbedProvider == "" {
		return knowledge.EmbeddingChoice{}, err
	}
	p, err := r.provider(ctx, st.EmbedProvider)
	if err != nil {
		return knowledge.EmbeddingChoice{}, err
	}
	key, err := r.apiKey(ctx, p)
	if err != nil {
		return knowledge.EmbeddingChoice{}, err
	}
	mc := r.cfg.ModelCalls
	label := p.Name
	if p.Kind != catalog.KindCustom && catalog.KindLabel(p.Kind) != "" {
		label = catalog.KindLabel(p.Kind)
	}
	c := openai.NewClient(openai.Config{BaseURL: p.BaseURL, APIKey: key, Label: label, HTTPClient: r.cfg.HTTPClient, Logger: r.log,
		IdleTimeout: mc.IdleTimeout, MaxRetries: mc.MaxRetries, RetryInitial: mc.RetryInitial, RetryMax: mc.RetryMax})
	return knowledge.EmbeddingChoice{Embedder: c, Model: st.EmbedModel}, nil
}

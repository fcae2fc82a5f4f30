package runner_test

import (
	"context"
	"sync"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/store"
)

// factsStore is an in-memory store of the two things a model's facts are
// read from: the providers and what their servers said of models. Tests
// of how facts are asked and kept run on it without SQLite; tests of a
// turn use the real store. Any other method of runner.Store panics (the
// embedded interface is nil): a test that reaches one needs the real store.
type factsStore struct {
	runner.Store
	providers []llm.Provider

	mu   sync.Mutex
	kept map[[2]string]store.ModelInfo // by provider and model
}

func newFactsStore(providers ...llm.Provider) *factsStore {
	return &factsStore{providers: providers, kept: map[[2]string]store.ModelInfo{}}
}

func (s *factsStore) ListProviders(context.Context) ([]llm.Provider, error) {
	return s.providers, nil
}

func (s *factsStore) ModelInfo(_ context.Context, provider, model string) (store.ModelInfo, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	info, ok := s.kept[[2]string{provider, model}]
	return info, ok, nil
}

func (s *factsStore) SaveModelInfo(_ context.Context, info store.ModelInfo) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kept[[2]string{info.Provider, info.Model}] = info
	return nil
}

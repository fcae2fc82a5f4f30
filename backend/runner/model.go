package runner

import (
	"context"
	"errors"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/llm/openai"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
	"github.com/agentdeck/agentdeck/backend/secrets"
	"github.com/agentdeck/agentdeck/backend/store"
)

// source is where a turn's model calls go and what they cost.
type source struct {
	cfg      openai.Config
	provider string
	// price is the price of a model on the provider (nil: unknown).
	price func(model string) *llm.Price
	// window is the turn model's window when its server or the user said
	// it (zero otherwise: the agent uses the table of well-known models).
	window int
}

// modelSource resolves the base URL and key for a turn: an explicit base
// URL (CLI), else the named provider with its key from the secret store,
// its model's window and price, and its budget (over refuses unless the
// person agreed to go over).
func (r *Runner) modelSource(ctx context.Context, provider string, req Request, model string) (source, error) {
	if model == "" {
		return source{}, apperr.New(apperr.Invalid, "No model is chosen: pick a model for this session (CLI: pass --model or set AGENTDECK_MODEL).")
	}
	mc := r.cfg.ModelCalls
	cfg := openai.Config{HTTPClient: r.cfg.HTTPClient, Logger: r.log,
		IdleTimeout: mc.IdleTimeout, MaxRetries: mc.MaxRetries, RetryInitial: mc.RetryInitial, RetryMax: mc.RetryMax}
	if req.BaseURL != "" {
		cfg.BaseURL, cfg.APIKey, cfg.Label = req.BaseURL, req.APIKey, req.BaseURL
		custom := llm.Provider{Kind: catalog.KindCustom, BaseURL: req.BaseURL}
		cfg.Echo, cfg.Prefix = catalog.EchoFor(custom), catalog.PrefixFor(custom)
		// A server on this machine costs nothing; another's price is not
		// known without a provider to set it on.
		var price *llm.Price
		if catalog.IsLocalURL(req.BaseURL) {
			price = &llm.Price{Source: llm.PriceLocal}
		}
		return source{cfg: cfg, price: func(string) *llm.Price { return price }}, nil
	}
	name := provider
	if name == "" {
		return source{}, apperr.New(apperr.Invalid, "No model server is set up: add a provider in Settings (CLI: pass --base-url or set OPENAI_BASE_URL).")
	}
	p, err := r.provider(ctx, name)
	if err != nil {
		return source{}, err
	}
	if err := r.checkBudget(ctx, p, req.OverBudget); err != nil {
		return source{}, err
	}
	cfg.BaseURL = p.BaseURL
	cfg.Label = p.Name
	cfg.Echo, cfg.Prefix = catalog.EchoFor(p), catalog.PrefixFor(p)
	cfg.NoTextToolCalls = p.IgnoreTextToolCalls
	if p.Kind != catalog.KindCustom && catalog.KindLabel(p.Kind) != "" {
		cfg.Label = catalog.KindLabel(p.Kind) // "Ollama", "LM Studio": what people call them
	}
	cfg.APIKey = req.APIKey
	if cfg.APIKey == "" {
		if cfg.APIKey, err = r.apiKey(ctx, p); err != nil {
			return source{}, err
		}
	}
	facts := r.facts(ctx, p, model)
	src := source{cfg: cfg, provider: p.Name, price: r.turnPrices(ctx, p, facts)}
	if facts.Window.Source == llm.WindowServer || facts.Window.Source == llm.WindowUser {
		src.window = facts.Window.Tokens
	}
	return src, nil
}

// apiKey is p's API key from the secret store ("" for none).
func (r *Runner) apiKey(ctx context.Context, p llm.Provider) (string, error) {
	if p.APIKeyRef == "" || r.cfg.Secrets == nil {
		return "", nil
	}
	key, err := r.cfg.Secrets.Get(ctx, p.APIKeyRef)
	switch {
	case errors.Is(err, secrets.ErrNotFound):
		return "", apperr.New(apperr.Invalid, "The API key for %s is missing. Add it in Settings.", p.Name)
	case err != nil:
		return "", apperr.Wrap(err, apperr.Unavailable, "The API key for %s could not be read from the keyring", p.Name)
	}
	return key, nil
}

func (r *Runner) provider(ctx context.Context, name string) (llm.Provider, error) {
	ps, err := r.cfg.DB.ListProviders(ctx)
	if err != nil {
		return llm.Provider{}, err
	}
	for _, p := range ps {
		if p.Name == name {
			return p, nil
		}
	}
	for _, p := range catalog.Presets() {
		if p.Name == name && !p.NeedsKey {
			return p, nil // a local preset works without being saved
		}
	}
	return llm.Provider{}, apperr.New(apperr.Invalid, "There is no provider named %q. Add it in Settings.", name)
}

// captureOf is how a turn records its model calls: the request's
// setting, record when it has none. A replay links the recordings it
// serves, so it counts as recorded.
func captureOf(req Request, replaying bool) recording.Mode {
	if replaying || req.Capture == "" {
		return recording.Record
	}
	return req.Capture
}

// client builds the turn's model client, recording every call in captures
// (so the turn can be replayed) unless capture is off.
func (s source) client(captures store.Captures, mode recording.Mode) llm.Client {
	var c llm.Client = openai.NewClient(s.cfg)
	if mode == "" {
		mode = recording.Record
	}
	if mode != recording.Off {
		c = recording.WithCapture(c, recording.Options{Mode: mode, Store: captures})
	}
	return catalog.WithPrice(c, s.provider, s.price)
}

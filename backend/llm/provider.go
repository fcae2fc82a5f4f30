package llm

import "time"

// Provider is one configured model server. It is stored in the database and
// shown in the UI, so it holds a reference to the API key in the secret
// store, never the key itself.
type Provider struct {
	// Name is unique among providers, e.g. "ollama" or "work-openai".
	Name string `json:"name"`
	// Kind is the preset it was made from: openai, ollama, lmstudio,
	// llamacpp, vllm, openrouter, groq or custom.
	Kind string `json:"kind"`
	// BaseURL ends in /v1 for OpenAI-compatible servers.
	BaseURL      string   `json:"base_url"`
	Models       []string `json:"models,omitempty"`
	DefaultModel string   `json:"default_model,omitempty"`
	// APIKeyRef names the key in the secret store.
	APIKeyRef string `json:"api_key_ref,omitempty"`
	// Local is true for a server on this machine.
	Local bool `json:"local"`
	// NeedsKey is true when the server refuses calls without an API key
	// (the hosted presets). The UI asks for a key before saving.
	NeedsKey bool `json:"needs_key"`
	// IgnoreTextToolCalls turns off reading tool calls a model writes as
	// text (<tool_call>, [TOOL_CALLS], <|python_tag|>, a bare JSON call):
	// they then stay in the answer as the model wrote them.
	IgnoreTextToolCalls bool `json:"ignore_text_tool_calls,omitempty"`
	// Prices are prices the user set, by model; the entry "" prices every
	// model of this provider without its own. They come before any other.
	Prices map[string]Price `json:"prices,omitempty"`
	// Windows are context windows the user set, by model; they come
	// before what the server says.
	Windows map[string]int `json:"windows,omitempty"`
	// Budget is an optional monthly spending limit (see Budget).
	Budget *Budget `json:"budget,omitempty"`
}

// UserPrice is the price the user set for model, if any.
func (p Provider) UserPrice(model string) (Price, bool) {
	pr, ok := p.Prices[model]
	if !ok {
		pr, ok = p.Prices[""]
	}
	if ok {
		pr.Source = PriceUser
	}
	return pr, ok
}

// UserWindow is the window the user set for model, if any.
func (p Provider) UserWindow(model string) (Window, bool) {
	n, ok := p.Windows[model]
	if !ok || n <= 0 {
		return Window{}, false
	}
	return Window{Tokens: n, Source: WindowUser}, true
}

// Detected is a local server that answered a probe.
type Detected struct {
	Provider Provider      `json:"provider"`
	Models   []string      `json:"models"`
	Latency  time.Duration `json:"latency_ns"`
}

package llm

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

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
}

// Provider kinds.
const (
	KindOpenAI     = "openai"
	KindOllama     = "ollama"
	KindLMStudio   = "lmstudio"
	KindLlamaCpp   = "llamacpp"
	KindVLLM       = "vllm"
	KindOpenRouter = "openrouter"
	KindGroq       = "groq"
	KindCustom     = "custom"
)

// Presets returns a fresh list of the known servers, local ones first.
// Callers may modify the result.
func Presets() []Provider {
	return []Provider{
		{Name: "ollama", Kind: KindOllama, BaseURL: "http://127.0.0.1:11434/v1", Local: true},
		{Name: "lmstudio", Kind: KindLMStudio, BaseURL: "http://127.0.0.1:1234/v1", Local: true},
		{Name: "llamacpp", Kind: KindLlamaCpp, BaseURL: "http://127.0.0.1:8080/v1", Local: true},
		{Name: "vllm", Kind: KindVLLM, BaseURL: "http://127.0.0.1:8000/v1", Local: true},
		{Name: "openai", Kind: KindOpenAI, BaseURL: "https://api.openai.com/v1", NeedsKey: true},
		{Name: "openrouter", Kind: KindOpenRouter, BaseURL: "https://openrouter.ai/api/v1", NeedsKey: true},
		{Name: "groq", Kind: KindGroq, BaseURL: "https://api.groq.com/openai/v1", NeedsKey: true},
	}
}

// KindLabel returns the display name of a provider kind, e.g. "LM Studio"
// for "lmstudio", or "" for an unknown kind.
func KindLabel(kind string) string {
	return kindInfo(kind).label
}

const maxProviderName = 64

var (
	providerNameRE   = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)
	providerKeyRefRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$`)
)

// Validate checks p before it is saved. It does not require APIKeyRef when
// NeedsKey is set: the key is stored under its reference as a separate step.
// Errors are *apperr.Error with code Invalid.
func (p Provider) Validate() error {
	if p.Name == "" {
		return apperr.New(apperr.Invalid, "The provider needs a name.")
	}
	if len(p.Name) > maxProviderName || !providerNameRE.MatchString(p.Name) {
		return apperr.New(apperr.Invalid,
			"The provider name %q is not valid: use up to %d lowercase letters, digits, '-' or '_', starting with a letter or digit.",
			p.Name, maxProviderName)
	}
	info := kindInfo(p.Kind)
	if info.label == "" {
		return apperr.New(apperr.Invalid,
			"The provider kind %q is unknown: use one of openai, ollama, lmstudio, llamacpp, vllm, openrouter, groq or custom.", p.Kind)
	}
	if p.BaseURL == "" {
		return apperr.New(apperr.Invalid, "The provider %q needs a base URL, such as http://127.0.0.1:11434/v1.", p.Name)
	}
	u, msg := checkBaseURL(p.BaseURL)
	if msg != "" {
		return apperr.New(apperr.Invalid, "%s", msg)
	}
	if info.hosted && u.Scheme != "https" {
		return apperr.New(apperr.Invalid, "%s is only served over https: the base URL must start with https://.", info.label)
	}
	for _, m := range p.Models {
		if strings.TrimSpace(m) == "" {
			return apperr.New(apperr.Invalid, "The model list of %q has an empty name.", p.Name)
		}
	}
	if p.DefaultModel != "" && strings.TrimSpace(p.DefaultModel) == "" {
		return apperr.New(apperr.Invalid, "The default model of %q is blank.", p.Name)
	}
	if p.APIKeyRef != "" {
		if looksLikeKey(p.APIKeyRef) {
			// Do not echo the value: it is probably a real key.
			return apperr.New(apperr.Invalid,
				"The key reference of %q looks like an API key: paste the key into the key field, never into the provider settings.", p.Name)
		}
		if !providerKeyRefRE.MatchString(p.APIKeyRef) {
			return apperr.New(apperr.Invalid,
				"The key reference of %q is not valid: use letters, digits and . _ : / - only.", p.Name)
		}
	}
	return nil
}

// checkBaseURL parses a base URL and returns a message for a person when it
// is not usable. Messages never echo the URL: a refused URL may hold a key.
func checkBaseURL(raw string) (*url.URL, string) {
	raw = strings.TrimSpace(raw)
	if !strings.Contains(raw, "://") {
		return nil, "The base URL must start with http:// or https://."
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, "The base URL is not a valid URL: use the form http://host:port/v1."
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, "The base URL must start with http:// or https://."
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, "The base URL has no host: use the form http://host:port/v1."
	}
	if u.User != nil {
		return nil, "The base URL contains a user name or password: remove it and put the API key in the key field."
	}
	if u.RawQuery != "" || u.ForceQuery {
		return nil, "The base URL contains a query (the part after '?'): remove it; if it held an API key, put the key in the key field."
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return nil, "The base URL contains a '#' fragment: remove it."
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, "The base URL has an invalid port."
		}
	}
	return u, ""
}

// looksLikeKey reports whether s has the prefix of a well-known API key.
func looksLikeKey(s string) bool {
	for _, p := range []string{"sk-", "sk_", "gsk_", "xai-", "pk-", "rk-", "hf_", "Bearer "} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// presetKind describes a preset for validation and error messages.
type presetKind struct {
	label string
	// hosted kinds are only reachable over https.
	hosted bool
	// start tells a person how to start a local server.
	start string
	// port is the preset's default port on the loopback interface.
	port string
}

func kindInfo(k string) presetKind {
	switch k {
	case KindOpenAI:
		return presetKind{label: "OpenAI", hosted: true}
	case KindOpenRouter:
		return presetKind{label: "OpenRouter", hosted: true}
	case KindGroq:
		return presetKind{label: "Groq", hosted: true}
	case KindOllama:
		return presetKind{label: "Ollama", port: "11434", start: "start it with `ollama serve`"}
	case KindLMStudio:
		return presetKind{label: "LM Studio", port: "1234",
			start: "start the server in LM Studio's Developer tab or with `lms server start`"}
	case KindLlamaCpp:
		return presetKind{label: "llama.cpp", port: "8080",
			start: "start it with `llama-server -m <model.gguf> --port 8080`"}
	case KindVLLM:
		return presetKind{label: "vLLM", port: "8000", start: "start it with `vllm serve <model>`"}
	case KindCustom:
		return presetKind{label: "Custom"}
	}
	return presetKind{}
}

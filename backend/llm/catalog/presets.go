package catalog

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/openai"
)

// Provider kinds.
const (
	KindOpenAI     = "openai"
	KindOllama     = "ollama"
	KindLMStudio   = "lmstudio"
	KindLlamaCpp   = "llamacpp"
	KindVLLM       = "vllm"
	KindOpenRouter = "openrouter"
	KindGroq       = "groq"
	KindDeepSeek   = "deepseek"
	KindCustom     = "custom"
)

// presets is every kind of server Agentdeck knows, local ones first: what
// a new provider of that kind starts with, and what it is called and how it
// is started when it must be named in an error. Adding a preset is one
// entry here (and its Kind constant), its rows in docs/PROVIDERS.md and the
// count in TestPresets; the settings, onboarding, validation
// and the "is not running" errors all read this table.
var presets = []preset{
	{llm.Provider{Name: "ollama", Kind: KindOllama, BaseURL: "http://127.0.0.1:11434/v1", Local: true},
		"Ollama", "start it with `ollama serve`", openai.EchoReasoning, openai.PrefixTrailing},
	{llm.Provider{Name: "lmstudio", Kind: KindLMStudio, BaseURL: "http://127.0.0.1:1234/v1", Local: true},
		"LM Studio", "start the server in LM Studio's Developer tab or with `lms server start`", openai.EchoNone, openai.PrefixNone},
	{llm.Provider{Name: "llamacpp", Kind: KindLlamaCpp, BaseURL: "http://127.0.0.1:8080/v1", Local: true},
		"llama.cpp", "start it with `llama-server -m <model.gguf> --port 8080`", openai.EchoContent, openai.PrefixTrailing},
	{llm.Provider{Name: "vllm", Kind: KindVLLM, BaseURL: "http://127.0.0.1:8000/v1", Local: true},
		"vLLM", "start it with `vllm serve <model>`", openai.EchoNone, openai.PrefixContinueFinal},
	{llm.Provider{Name: "openai", Kind: KindOpenAI, BaseURL: "https://api.openai.com/v1", NeedsKey: true},
		"OpenAI", "", openai.EchoNone, openai.PrefixNone},
	{llm.Provider{Name: "openrouter", Kind: KindOpenRouter, BaseURL: "https://openrouter.ai/api/v1", NeedsKey: true},
		"OpenRouter", "", openai.EchoDetails, openai.PrefixNone},
	{llm.Provider{Name: "deepseek", Kind: KindDeepSeek, BaseURL: "https://api.deepseek.com/v1", NeedsKey: true},
		"DeepSeek", "", openai.EchoContentAlways, openai.PrefixNone},
	{llm.Provider{Name: "groq", Kind: KindGroq, BaseURL: "https://api.groq.com/openai/v1", NeedsKey: true},
		"Groq", "", openai.EchoNone, openai.PrefixNone},
}

// customPreset is a server of no known kind: the user gives its URL.
var customPreset = preset{llm.Provider{Name: "custom", Kind: KindCustom}, "Custom", "", openai.EchoContent, openai.PrefixNone}

// preset is one known kind of server.
type preset struct {
	// Provider is a new provider of this kind. Local ones are hosted on
	// the loopback interface at their default port; the others are only
	// reachable over https.
	llm.Provider
	label string
	// start tells a person how to start a local server.
	start string
	// echo is the reasoning the server wants back (docs/PROVIDERS.md).
	echo openai.ReasoningEcho
	// prefix is how the server continues a partial answer.
	prefix openai.Prefix
}

// EchoFor returns the reasoning a provider's server wants sent back. A
// custom provider is known by its host when it is a hosted API of a known
// kind (DeepSeek, OpenRouter, OpenAI, Groq), else it gets reasoning_content
// when there is some, what most servers accept.
func EchoFor(p llm.Provider) openai.ReasoningEcho { return dialectOf(p).echo }

// PrefixFor returns how a provider's server continues a partial answer
// (docs/PROVIDERS.md): a custom provider is known by its host, as for
// EchoFor, else it gets a continuation instruction, which every server
// understands.
func PrefixFor(p llm.Provider) openai.Prefix { return dialectOf(p).prefix }

// dialectOf is the preset whose dialect a provider's server speaks.
func dialectOf(p llm.Provider) preset {
	if p.Kind != KindCustom {
		if pr, ok := presetOf(p.Kind); ok {
			return pr
		}
	}
	if u, err := url.Parse(p.BaseURL); err == nil {
		for _, pr := range presets {
			if pu, err := url.Parse(pr.BaseURL); err == nil && !pr.Local && strings.EqualFold(u.Hostname(), pu.Hostname()) {
				return pr
			}
		}
	}
	return customPreset
}

// Presets returns a fresh list of the known servers, local ones first.
// Callers may modify the result.
func Presets() []llm.Provider {
	out := make([]llm.Provider, len(presets))
	for i, p := range presets {
		out[i] = p.Provider
	}
	return out
}

// presetOf returns the preset of kind k, and false for an unknown kind.
func presetOf(k string) (preset, bool) {
	if k == KindCustom {
		return customPreset, true
	}
	for _, p := range presets {
		if p.Kind == k {
			return p, true
		}
	}
	return preset{}, false
}

// KindsText lists the known kinds for a message or a flag's help:
// "ollama, lmstudio, ... or custom".
func KindsText() string {
	var names []string
	for _, p := range presets {
		names = append(names, p.Kind)
	}
	return strings.Join(names, ", ") + " or " + KindCustom
}

// KindLabel returns the display name of a provider kind, e.g. "LM Studio"
// for "lmstudio", or "" for an unknown kind.
func KindLabel(kind string) string {
	p, _ := presetOf(kind)
	return p.label
}

const maxProviderName = 64

var (
	providerNameRE   = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)
	providerKeyRefRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$`)
)

// Validate checks provider p before it is saved. It does not require APIKeyRef when
// NeedsKey is set: the key is stored under its reference as a separate step.
// Errors are *apperr.Error with code Invalid.
func Validate(p llm.Provider) error {
	if p.Name == "" {
		return apperr.New(apperr.Invalid, "The provider needs a name.")
	}
	if len(p.Name) > maxProviderName || !providerNameRE.MatchString(p.Name) {
		return apperr.New(apperr.Invalid,
			"The provider name %q is not valid: use up to %d lowercase letters, digits, '-' or '_', starting with a letter or digit.",
			p.Name, maxProviderName)
	}
	info, ok := presetOf(p.Kind)
	if !ok {
		return apperr.New(apperr.Invalid, "The provider kind %q is unknown: use one of %s.", p.Kind, KindsText())
	}
	if p.BaseURL == "" {
		return apperr.New(apperr.Invalid, "The provider %q needs a base URL, such as http://127.0.0.1:11434/v1.", p.Name)
	}
	u, msg := checkBaseURL(p.BaseURL)
	if msg != "" {
		return apperr.New(apperr.Invalid, "%s", msg)
	}
	if info.Kind != KindCustom && !info.Local && u.Scheme != "https" {
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

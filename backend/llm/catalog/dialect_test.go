package catalog_test

import (
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/llm/openai"
)

// TestEchoFor checks the table of presets and that a custom provider is
// known by its host.
func TestEchoFor(t *testing.T) {
	tests := []struct {
		p    llm.Provider
		want openai.ReasoningEcho
	}{
		{llm.Provider{Kind: catalog.KindOllama}, openai.EchoReasoning},
		{llm.Provider{Kind: catalog.KindLMStudio}, openai.EchoNone},
		{llm.Provider{Kind: catalog.KindLlamaCpp}, openai.EchoContent},
		{llm.Provider{Kind: catalog.KindVLLM}, openai.EchoNone},
		{llm.Provider{Kind: catalog.KindOpenAI}, openai.EchoNone},
		{llm.Provider{Kind: catalog.KindOpenRouter}, openai.EchoDetails},
		{llm.Provider{Kind: catalog.KindDeepSeek}, openai.EchoContentAlways},
		{llm.Provider{Kind: catalog.KindGroq}, openai.EchoNone},
		{llm.Provider{Kind: catalog.KindCustom, BaseURL: "https://api.deepseek.com/v1"}, openai.EchoContentAlways},
		{llm.Provider{Kind: catalog.KindCustom, BaseURL: "https://OpenRouter.ai/api/v1"}, openai.EchoDetails},
		{llm.Provider{Kind: catalog.KindCustom, BaseURL: "https://api.openai.com/v1"}, openai.EchoNone},
		{llm.Provider{Kind: catalog.KindCustom, BaseURL: "http://10.0.0.5:8000/v1"}, openai.EchoContent},
		{llm.Provider{Kind: catalog.KindCustom, BaseURL: "http://127.0.0.1:11434/v1"}, openai.EchoContent},
	}
	for _, tt := range tests {
		if got := catalog.EchoFor(tt.p); got != tt.want {
			t.Errorf("EchoFor(%s %s) = %v, want %v", tt.p.Kind, tt.p.BaseURL, got, tt.want)
		}
	}
}

// TestPrefixFor: PrefixFor knows each preset, and a custom provider by its
// host.
func TestPrefixFor(t *testing.T) {
	for _, tt := range []struct {
		p    llm.Provider
		want openai.Prefix
	}{
		{llm.Provider{Kind: catalog.KindOllama}, openai.PrefixTrailing},
		{llm.Provider{Kind: catalog.KindLlamaCpp}, openai.PrefixTrailing},
		{llm.Provider{Kind: catalog.KindVLLM}, openai.PrefixContinueFinal},
		{llm.Provider{Kind: catalog.KindOpenAI}, openai.PrefixNone},
		{llm.Provider{Kind: catalog.KindLMStudio}, openai.PrefixNone},
		{llm.Provider{Kind: catalog.KindCustom, BaseURL: "https://api.openai.com/v1"}, openai.PrefixNone},
		{llm.Provider{Kind: catalog.KindCustom, BaseURL: "http://127.0.0.1:8080/v1"}, openai.PrefixNone},
	} {
		if got := catalog.PrefixFor(tt.p); got != tt.want {
			t.Errorf("PrefixFor(%s %s) = %v, want %v", tt.p.Kind, tt.p.BaseURL, got, tt.want)
		}
	}
}

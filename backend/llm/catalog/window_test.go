package catalog_test

import (
	"context"
	"slices"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
)

// TestContextWindowFromEachServer: each kind of server is asked its own
// way, served by the scripted server in that server's shape, and the
// window it gives wins over the table; a server that does not say, or
// answers with an error or something else, leaves the table's window or
// the default, with the reason.
func TestContextWindowFromEachServer(t *testing.T) {
	type route struct {
		method, path string
		body         any
	}
	for _, tc := range []struct {
		name, kind, model string
		routes            []route
		want              llm.Window
		asked             []string
		wantErr           bool
	}{
		{name: "ollama num_ctx", kind: catalog.KindOllama, model: "qwen3:8b",
			routes: []route{{"POST", "/api/show", map[string]any{"parameters": "temperature 0.6\nnum_ctx 16384\nstop \"<|im_end|>\"",
				"model_info": map[string]any{"general.architecture": "qwen3", "qwen3.context_length": 40960}}}},
			want: llm.Window{Tokens: 16384, Source: llm.WindowServer}, asked: []string{"POST /api/show"}},
		{name: "ollama context_length", kind: catalog.KindOllama, model: "gemma3:4b",
			routes: []route{{"POST", "/api/show", map[string]any{"parameters": "stop \"<end_of_turn>\"",
				"model_info": map[string]any{"general.architecture": "gemma3", "gemma3.context_length": 131072}}}},
			want: llm.Window{Tokens: 131072, Source: llm.WindowServer}, asked: []string{"POST /api/show"}},
		{name: "lm studio loaded", kind: catalog.KindLMStudio, model: "qwen2.5-7b-instruct",
			routes: []route{{"GET", "/api/v0/models", map[string]any{"object": "list", "data": []any{
				map[string]any{"id": "other", "max_context_length": 4096},
				map[string]any{"id": "qwen2.5-7b-instruct", "state": "loaded", "max_context_length": 32768, "loaded_context_length": 8192}}}}},
			want: llm.Window{Tokens: 8192, Source: llm.WindowServer}, asked: []string{"GET /api/v0/models"}},
		{name: "lm studio not loaded", kind: catalog.KindLMStudio, model: "qwen2.5-7b-instruct",
			routes: []route{{"GET", "/api/v0/models", map[string]any{"data": []any{
				map[string]any{"id": "qwen2.5-7b-instruct", "state": "not-loaded", "max_context_length": 32768}}}}},
			want: llm.Window{Tokens: 32768, Source: llm.WindowServer}, asked: []string{"GET /api/v0/models"}},
		{name: "llama.cpp", kind: catalog.KindLlamaCpp, model: "anything",
			routes: []route{{"GET", "/props", map[string]any{"default_generation_settings": map[string]any{"n_ctx": 4096}, "total_slots": 1}}},
			want:   llm.Window{Tokens: 4096, Source: llm.WindowServer}, asked: []string{"GET /props"}},
		{name: "vllm", kind: catalog.KindVLLM, model: "meta-llama/Llama-3.1-8B-Instruct",
			routes: []route{{"GET", "/v1/models", map[string]any{"object": "list", "data": []any{
				map[string]any{"id": "meta-llama/Llama-3.1-8B-Instruct", "object": "model", "max_model_len": 32768}}}}},
			want: llm.Window{Tokens: 32768, Source: llm.WindowServer}, asked: []string{"GET /v1/models"}},
		{name: "openrouter", kind: catalog.KindOpenRouter, model: "openai/gpt-4o-mini",
			routes: []route{{"GET", "/v1/models", map[string]any{"data": []any{
				map[string]any{"id": "openai/gpt-4o-mini", "context_length": 128000, "pricing": map[string]any{"prompt": "0.00000015"}}}}}},
			want: llm.Window{Tokens: 128000, Source: llm.WindowServer}, asked: []string{"GET /v1/models"}},
		{name: "custom falls back on /props", kind: catalog.KindCustom, model: "m",
			routes: []route{{"GET", "/props", map[string]any{"n_ctx": 2048}}},
			want:   llm.Window{Tokens: 2048, Source: llm.WindowServer}},
		{name: "openai asks nothing", kind: catalog.KindOpenAI, model: "gpt-4o",
			want: llm.Window{Tokens: 128_000, Source: llm.WindowKnown}},
		{name: "the server does not know the model", kind: catalog.KindVLLM, model: "gpt-4o-2024-08-06",
			routes: []route{{"GET", "/v1/models", map[string]any{"data": []any{map[string]any{"id": "other", "max_model_len": 4096}}}}},
			want:   llm.Window{Tokens: 128_000, Source: llm.WindowKnown}, asked: []string{"GET /v1/models"}},
		{name: "no such endpoint", kind: catalog.KindOllama, model: "mystery-model",
			want: llm.Window{Tokens: catalog.DefaultContextWindow, Source: llm.WindowDefault}, wantErr: true},
		{name: "not the JSON expected", kind: catalog.KindLlamaCpp, model: "llama3.1:8b",
			routes: []route{{"GET", "/props", []int{1, 2}}},
			want:   llm.Window{Tokens: 128_000, Source: llm.WindowKnown}, asked: []string{"GET /props"}, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			for _, r := range tc.routes {
				srv.ServeJSON(r.method, r.path, r.body)
			}
			p := llm.Provider{Name: "p", Kind: tc.kind, BaseURL: srv.URL()}
			got, err := catalog.ContextWindow(context.Background(), nil, p, "", tc.model)
			if got != tc.want {
				t.Errorf("window %+v, want %+v", got, tc.want)
			}
			if (err != nil) != tc.wantErr {
				t.Errorf("error %v, want an error: %v", err, tc.wantErr)
			}
			if tc.asked != nil && !slices.Equal(srv.Served(), tc.asked) {
				t.Errorf("asked %v, want %v", srv.Served(), tc.asked)
			}
		})
	}
}

// TestKnownWindow: the longest matching prefix wins, after any
// "provider/" part, whatever the case; an unknown model gets the default.
func TestKnownWindow(t *testing.T) {
	for model, want := range map[string]llm.Window{
		"gpt-4":                 {Tokens: 8_192, Source: llm.WindowKnown},
		"gpt-4o-mini":           {Tokens: 128_000, Source: llm.WindowKnown},
		"openai/GPT-4.1-nano":   {Tokens: 1_000_000, Source: llm.WindowKnown},
		"llama3.1:8b":           {Tokens: 128_000, Source: llm.WindowKnown},
		"llama3:8b":             {Tokens: 8_192, Source: llm.WindowKnown},
		"openai/gpt-4o":         {Tokens: 128_000, Source: llm.WindowKnown},
		"qwen2.5-coder:7b":      {Tokens: 32_768, Source: llm.WindowKnown},
		"something-else-entire": {Tokens: catalog.DefaultContextWindow, Source: llm.WindowDefault},
	} {
		if got := catalog.KnownWindow(model); got != want {
			t.Errorf("%s: %+v, want %+v", model, got, want)
		}
	}
}

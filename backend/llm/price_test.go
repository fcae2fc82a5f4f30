package llm_test

import (
	"context"
	"math"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
)

// TestCostArithmetic: fresh input, cached input and output each at their
// price per million; cached at the input price where the model has no
// discount; more cached tokens than input (a server's miscount) capped;
// no usage costs nothing; estimated tokens make an estimated cost; bad
// numbers never make a negative or NaN cost.
func TestCostArithmetic(t *testing.T) {
	gpt4o := llm.Price{InputPerM: 2.50, OutputPerM: 10, CachedInputPerM: 1.25}
	noCache := llm.Price{InputPerM: 3, OutputPerM: 15}
	for _, tc := range []struct {
		name  string
		price llm.Price
		usage llm.Usage
		want  llm.Cost
	}{
		{"input and output", gpt4o, llm.Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}, llm.Cost{USD: 12.50}},
		{"half the input cached", gpt4o, llm.Usage{InputTokens: 2_000, CachedInputTokens: 1_000, OutputTokens: 500},
			llm.Cost{USD: (1_000*2.50 + 1_000*1.25 + 500*10) / 1e6}},
		{"no cache discount", noCache, llm.Usage{InputTokens: 2_000, CachedInputTokens: 1_000}, llm.Cost{USD: 2_000 * 3 / 1e6}},
		{"more cached than input", gpt4o, llm.Usage{InputTokens: 100, CachedInputTokens: 400}, llm.Cost{USD: 100 * 1.25 / 1e6}},
		{"reasoning is part of the output", gpt4o, llm.Usage{OutputTokens: 300, ReasoningTokens: 200}, llm.Cost{USD: 300 * 10 / 1e6}},
		{"no usage", gpt4o, llm.Usage{}, llm.Cost{}},
		{"estimated tokens", gpt4o, llm.Usage{InputTokens: 40, OutputTokens: 10, Estimated: true}, llm.Cost{USD: (40*2.50 + 10*10) / 1e6, Estimated: true}},
		{"negative counts", gpt4o, llm.Usage{InputTokens: -5, OutputTokens: -5, CachedInputTokens: -5}, llm.Cost{}},
		{"a local server", llm.Price{Source: llm.PriceLocal}, llm.Usage{InputTokens: 9_000, OutputTokens: 9_000}, llm.Cost{}},
		{"a price that is not a number", llm.Price{InputPerM: math.NaN()}, llm.Usage{InputTokens: 10}, llm.Cost{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.price.Cost(tc.usage)
			if math.Abs(got.USD-tc.want.USD) > 1e-12 || got.Estimated != tc.want.Estimated {
				t.Fatalf("%+v, want %+v", got, tc.want)
			}
		})
	}
	sum := llm.Cost{USD: 0.25}.Add(llm.Cost{USD: 0.5, Estimated: true})
	if sum.USD != 0.75 || !sum.Estimated {
		t.Fatalf("sum %+v", sum)
	}
}

// TestPriceFor: a server on this machine is free whatever the model's
// name; a hosted model is found in the table by its longest prefix, after
// any "provider/" part, with the table's date; an unknown one has no price.
func TestPriceFor(t *testing.T) {
	local := llm.Provider{Kind: llm.KindOllama, Local: true}
	hosted := llm.Provider{Kind: llm.KindOpenRouter}
	if p, ok := llm.PriceFor(local, "gpt-4o"); !ok || p.Source != llm.PriceLocal || p.InputPerM != 0 || p.OutputPerM != 0 {
		t.Fatalf("local: %+v %v", p, ok)
	}
	for model, want := range map[string][2]float64{
		"gpt-4o":                             {2.50, 10},
		"gpt-4o-mini-2024-07-18":             {0.15, 0.60},
		"openai/gpt-4.1-nano":                {0.10, 0.40},
		"anthropic/claude-sonnet-4-20250514": {3, 15},
	} {
		p, ok := llm.PriceFor(hosted, model)
		if !ok || p.InputPerM != want[0] || p.OutputPerM != want[1] || p.Source != llm.PriceTable || p.AsOf != llm.KnownPricesAsOf {
			t.Errorf("%s: %+v %v, want %v", model, p, ok, want)
		}
	}
	if p, ok := llm.PriceFor(hosted, "some-new-model"); ok {
		t.Errorf("an unknown model has a price: %+v", p)
	}
}

// TestServerPrice: OpenRouter's list gives a model's prices per token as
// strings, read as prices per million; a model priced in a way not read
// (a negative or non-numeric price, none at all) or missing has no price;
// other servers are not asked.
func TestServerPrice(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.ServeJSON("GET", "/v1/models", map[string]any{"data": []any{
		map[string]any{"id": "openai/gpt-4o-mini", "context_length": 128000,
			"pricing": map[string]any{"prompt": "0.00000015", "completion": "0.0000006", "input_cache_read": "0.000000075", "image": "0.000217"}},
		map[string]any{"id": "meta-llama/llama-3.3-70b-instruct:free", "pricing": map[string]any{"prompt": "0", "completion": "0"}},
		map[string]any{"id": "openrouter/auto", "pricing": map[string]any{"prompt": "-1", "completion": "-1"}},
		map[string]any{"id": "odd/model", "pricing": map[string]any{"prompt": "cheap", "completion": "0.000001"}},
	}})
	or := llm.Provider{Kind: llm.KindOpenRouter, BaseURL: srv.URL()}
	p, ok, err := llm.ServerPrice(context.Background(), nil, or, "", "openai/gpt-4o-mini")
	if err != nil || !ok || math.Abs(p.InputPerM-0.15) > 1e-9 || math.Abs(p.OutputPerM-0.6) > 1e-9 || math.Abs(p.CachedInputPerM-0.075) > 1e-9 || p.Source != llm.PriceServer || p.AsOf == "" {
		t.Fatalf("gpt-4o-mini: %+v %v %v", p, ok, err)
	}
	if p, ok, err := llm.ServerPrice(context.Background(), nil, or, "", "meta-llama/llama-3.3-70b-instruct:free"); err != nil || !ok || p.InputPerM != 0 || p.OutputPerM != 0 {
		t.Fatalf("a free model: %+v %v %v", p, ok, err)
	}
	for _, model := range []string{"openrouter/auto", "odd/model", "not/listed"} {
		if p, ok, err := llm.ServerPrice(context.Background(), nil, or, "", model); err != nil || ok {
			t.Errorf("%s: %+v %v %v, want no price", model, p, ok, err)
		}
	}
	asked := len(srv.Served())
	if _, ok, err := llm.ServerPrice(context.Background(), nil, llm.Provider{Kind: llm.KindVLLM, BaseURL: srv.URL()}, "", "openai/gpt-4o-mini"); ok || err != nil || len(srv.Served()) != asked {
		t.Errorf("a vLLM server was asked for prices")
	}
}

package llm_test

import (
	"math"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm"
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

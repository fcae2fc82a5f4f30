package catalog_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
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

// TestPriceFor: the user's price comes first (for the model, else for
// the provider's every model), then the server's list, then a server on
// this machine is free whatever the model's name, then the table; a model
// nobody prices has no price.
func TestPriceFor(t *testing.T) {
	local := llm.Provider{Kind: catalog.KindOllama, Local: true}
	hosted := llm.Provider{Kind: catalog.KindOpenRouter}
	user := llm.Provider{Kind: catalog.KindOpenRouter, Prices: map[string]llm.Price{"gpt-4o": {InputPerM: 1, OutputPerM: 2}, "": {InputPerM: 7, OutputPerM: 8}}}
	localPriced := llm.Provider{Kind: catalog.KindLlamaCpp, Local: true, Prices: map[string]llm.Price{"": {InputPerM: 0.01, OutputPerM: 0.02}}}
	server := &llm.Price{InputPerM: 0.5, OutputPerM: 1.5, Source: llm.PriceServer}
	for _, c := range []struct {
		name     string
		p        llm.Provider
		model    string
		server   *llm.Price
		in, out  float64
		source   string
		asOfSet  bool
		unpriced bool
	}{
		{name: "local", p: local, model: "gpt-4o", source: llm.PriceLocal},
		{name: "table", p: hosted, model: "gpt-4o", in: 2.50, out: 10, source: llm.PriceTable, asOfSet: true},
		{name: "table dated model", p: hosted, model: "gpt-4o-mini-2024-07-18", in: 0.15, out: 0.60, source: llm.PriceTable, asOfSet: true},
		{name: "table after provider/", p: hosted, model: "openai/gpt-4.1-nano", in: 0.10, out: 0.40, source: llm.PriceTable, asOfSet: true},
		{name: "table claude", p: hosted, model: "anthropic/claude-sonnet-4-20250514", in: 3, out: 15, source: llm.PriceTable, asOfSet: true},
		{name: "server before table", p: hosted, model: "gpt-4o", server: server, in: 0.5, out: 1.5, source: llm.PriceServer},
		{name: "user's for the model", p: user, model: "gpt-4o", server: server, in: 1, out: 2, source: llm.PriceUser},
		{name: "user's for every model", p: user, model: "gpt-5", server: server, in: 7, out: 8, source: llm.PriceUser},
		{name: "user's on a local server", p: localPriced, model: "llama3", in: 0.01, out: 0.02, source: llm.PriceUser},
		{name: "unknown", p: hosted, model: "some-new-model", unpriced: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, ok := catalog.PriceFor(c.p, c.model, c.server)
			if c.unpriced {
				if ok {
					t.Fatalf("an unknown model has a price: %+v", p)
				}
				return
			}
			if !ok || p.InputPerM != c.in || p.OutputPerM != c.out || p.Source != c.source || (p.AsOf == catalog.KnownPricesAsOf) != c.asOfSet {
				t.Fatalf("%+v %v, want %v/%v from %s", p, ok, c.in, c.out, c.source)
			}
		})
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
	or := llm.Provider{Kind: catalog.KindOpenRouter, BaseURL: srv.URL()}
	p, ok, err := catalog.ServerPrice(context.Background(), nil, or, "", "openai/gpt-4o-mini")
	if err != nil || !ok || math.Abs(p.InputPerM-0.15) > 1e-9 || math.Abs(p.OutputPerM-0.6) > 1e-9 || math.Abs(p.CachedInputPerM-0.075) > 1e-9 || p.Source != llm.PriceServer || p.AsOf == "" {
		t.Fatalf("gpt-4o-mini: %+v %v %v", p, ok, err)
	}
	if p, ok, err := catalog.ServerPrice(context.Background(), nil, or, "", "meta-llama/llama-3.3-70b-instruct:free"); err != nil || !ok || p.InputPerM != 0 || p.OutputPerM != 0 {
		t.Fatalf("a free model: %+v %v %v", p, ok, err)
	}
	for _, model := range []string{"openrouter/auto", "odd/model", "not/listed"} {
		if p, ok, err := catalog.ServerPrice(context.Background(), nil, or, "", model); err != nil || ok {
			t.Errorf("%s: %+v %v %v, want no price", model, p, ok, err)
		}
	}
	asked := len(srv.Served())
	if _, ok, err := catalog.ServerPrice(context.Background(), nil, llm.Provider{Kind: catalog.KindVLLM, BaseURL: srv.URL()}, "", "openai/gpt-4o-mini"); ok || err != nil || len(srv.Served()) != asked {
		t.Errorf("a vLLM server was asked for prices")
	}
}

// TestServerFacts: OpenRouter's list gives a model's window and price in
// one request; another server gives its window and no price.
func TestServerFacts(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.ServeJSON("GET", "/v1/models", map[string]any{"data": []any{
		map[string]any{"id": "openai/gpt-4o-mini", "context_length": 128000, "max_model_len": 0,
			"pricing": map[string]any{"prompt": "0.00000015", "completion": "0.0000006"}},
	}})
	w, p, err := catalog.ServerFacts(context.Background(), nil, llm.Provider{Kind: catalog.KindOpenRouter, BaseURL: srv.URL()}, "", "openai/gpt-4o-mini")
	if err != nil || w != 128000 || p == nil || math.Abs(p.InputPerM-0.15) > 1e-9 || len(srv.Served()) != 1 {
		t.Fatalf("openrouter: %d %+v %v, asked %v", w, p, err, srv.Served())
	}
	w, p, err = catalog.ServerFacts(context.Background(), nil, llm.Provider{Kind: catalog.KindVLLM, BaseURL: srv.URL()}, "", "openai/gpt-4o-mini")
	if err != nil || w != 128000 || p != nil {
		t.Fatalf("vllm: %d %+v %v", w, p, err)
	}
}

// TestWithPrice: a priced call carries the provider, the price it ran at
// and its cost; a call with no known price has neither (not $0); a
// replayed call is free; a failed call is still priced for the tokens it
// used; the sum over calls counts the unpriced ones apart.
func TestWithPrice(t *testing.T) {
	price := &llm.Price{InputPerM: 2, OutputPerM: 4, Source: llm.PriceUser}
	priced := func(p *llm.Price) func(string) *llm.Price { return func(string) *llm.Price { return p } }
	answer := func(capture string, err error) llm.Client {
		return llm.ClientFunc(func(context.Context, llm.Request, func(llm.Chunk) error) (llm.Response, error) {
			u := llm.Usage{InputTokens: 1000, OutputTokens: 500}
			return llm.Response{Usage: u, Diagnostics: llm.CallDiagnostics{Usage: u, Capture: capture, OK: err == nil}}, err
		})
	}
	call := func(c llm.Client) llm.CallDiagnostics {
		resp, _ := c.Stream(context.Background(), llm.Request{}, func(llm.Chunk) error { return nil })
		return resp.Diagnostics
	}
	live := call(catalog.WithPrice(answer("", nil), "work", priced(price)))
	if live.Provider != "work" || live.Price == nil || *live.Price != *price || live.Cost == nil || math.Abs(live.Cost.USD-(1000*2+500*4)/1e6) > 1e-12 {
		t.Fatalf("live: %+v price %+v cost %+v", live, live.Price, live.Cost)
	}
	price.InputPerM = 100 // the call keeps the price it ran at
	if live.Price.InputPerM != 2 {
		t.Fatalf("the call's price follows the provider's: %+v", live.Price)
	}
	unknown := call(catalog.WithPrice(answer("", nil), "work", priced(nil)))
	if unknown.Price != nil || unknown.Cost != nil || unknown.Provider != "work" {
		t.Fatalf("unknown price: %+v", unknown)
	}
	replayed := call(catalog.WithPrice(answer(llm.CaptureReplayed, nil), "work", priced(price)))
	if replayed.Price == nil || replayed.Price.Source != llm.PriceReplay || replayed.Cost == nil || replayed.Cost.USD != 0 {
		t.Fatalf("replayed: %+v %+v", replayed.Price, replayed.Cost)
	}
	failed := call(catalog.WithPrice(answer("", errors.New("cut")), "work", priced(&llm.Price{InputPerM: 1, OutputPerM: 1})))
	if failed.Cost == nil || math.Abs(failed.Cost.USD-1500/1e6) > 1e-12 {
		t.Fatalf("failed: %+v", failed.Cost)
	}
	if c := llm.CallsCost([]llm.CallDiagnostics{unknown}); c != nil {
		t.Fatalf("no priced call, yet a cost: %+v", c)
	}
	sum := llm.CallsCost([]llm.CallDiagnostics{live, unknown, replayed, failed})
	if sum == nil || math.Abs(sum.USD-(0.004+0.0015)) > 1e-12 || sum.Unpriced != 1 {
		t.Fatalf("sum: %+v", sum)
	}
}

// TestBudgetState: under 80% is fine, from 80% a warning, from 100% over;
// no budget is never over; only "refuse" refuses.
func TestBudgetState(t *testing.T) {
	b := llm.Budget{MonthlyUSD: 10}
	for spent, want := range map[float64]string{0: llm.BudgetOK, 7.99: llm.BudgetOK, 8: llm.BudgetWarning, 9.99: llm.BudgetWarning, 10: llm.BudgetOver, 50: llm.BudgetOver} {
		if got := b.State(spent); got != want {
			t.Errorf("spent %v of 10: %s, want %s", spent, got, want)
		}
	}
	if got := (llm.Budget{}).State(1e9); got != llm.BudgetOK {
		t.Errorf("no budget: %s", got)
	}
	if b.Refuses() || !(llm.Budget{OverLimit: llm.BudgetRefuse}).Refuses() {
		t.Error("Refuses")
	}
}

func TestIsLocalURL(t *testing.T) {
	for u, want := range map[string]bool{
		"http://127.0.0.1:11434/v1": true, "http://localhost:1234/v1": true, "http://[::1]:8080/v1": true,
		"https://api.openai.com/v1": false, "http://10.0.0.5:8000/v1": false, "http://127.0.0.1.example.com/v1": false, "::": false,
	} {
		if got := catalog.IsLocalURL(u); got != want {
			t.Errorf("%s: %v, want %v", u, got, want)
		}
	}
}

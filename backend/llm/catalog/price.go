package catalog

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// What a model call costs. A price is per million tokens, in US dollars,
// for input, output and cached input; it comes from the model's server
// (OpenRouter's list), the user, or the table of well-known models below,
// whose date is shown with it. A server on this machine costs nothing.
// A cost is an estimate: servers bill by their own count, and where the
// tokens were themselves estimated the cost says so.

// WithPrice prices every call made through inner: each response's
// diagnostics name provider and carry the price of the request's model
// (price gives it: nil when unknown) and the cost at it. A replayed call
// is served from the record and costs nothing.
func WithPrice(inner llm.Client, provider string, price func(model string) *llm.Price) llm.Client {
	return llm.ClientFunc(func(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (llm.Response, error) {
		resp, err := inner.Stream(ctx, req, fn)
		d := &resp.Diagnostics
		d.Provider = provider
		if d.Capture == llm.CaptureReplayed {
			d.Price, d.Cost = &llm.Price{Source: llm.PriceReplay}, &llm.Cost{Estimated: d.Usage.Estimated}
		} else if p := price(req.Model); p != nil {
			p := *p
			c := p.Cost(d.Usage)
			d.Price, d.Cost = &p, &c
		}
		return resp, err
	})
}

// KnownPricesAsOf is when the prices in knownPrices were published by the
// vendors; the UI shows it beside any price taken from the table.
const KnownPricesAsOf = "2025-08-01"

// knownPrices are list prices of well-known hosted models per million
// tokens (input, output, cached input), matched like knownWindows: by
// model-name prefix after any "provider/" part, the longest winning.
var knownPrices = map[string][3]float64{
	"gpt-5": {1.25, 10, 0.125}, "gpt-5-mini": {0.25, 2, 0.025}, "gpt-5-nano": {0.05, 0.40, 0.005},
	"gpt-4.1": {2, 8, 0.50}, "gpt-4.1-mini": {0.40, 1.60, 0.10}, "gpt-4.1-nano": {0.10, 0.40, 0.025},
	"gpt-4o": {2.50, 10, 1.25}, "gpt-4o-mini": {0.15, 0.60, 0.075},
	"o3": {2, 8, 0.50}, "o3-mini": {1.10, 4.40, 0.55}, "o4-mini": {1.10, 4.40, 0.275},
	"claude-opus-4": {15, 75, 1.50}, "claude-sonnet-4": {3, 15, 0.30}, "claude-3-7-sonnet": {3, 15, 0.30},
	"claude-3-5-haiku": {0.80, 4, 0.08},
	"gemini-2.5-pro":   {1.25, 10, 0.31}, "gemini-2.5-flash": {0.30, 2.50, 0.075},
}

// KnownPrice is model's list price from the table of well-known models;
// ok is false for a model the table does not have.
func KnownPrice(model string) (p llm.Price, ok bool) {
	m := strings.ToLower(model)
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	best := 0
	for prefix, v := range knownPrices {
		if strings.HasPrefix(m, prefix) && len(prefix) > best {
			best, ok = len(prefix), true
			p = llm.Price{InputPerM: v[0], OutputPerM: v[1], CachedInputPerM: v[2], Source: llm.PriceTable, AsOf: KnownPricesAsOf}
		}
	}
	return p, ok
}

// PriceFor is the price of model on provider p: the user's price first,
// then server's (what the model's server listed, if it was read: nil
// otherwise), then nothing for a server on this machine, then the table's.
// ok is false when the cost is unknown.
func PriceFor(p llm.Provider, model string, server *llm.Price) (llm.Price, bool) {
	if pr, ok := p.UserPrice(model); ok {
		return pr, true
	}
	if server != nil {
		return *server, true
	}
	if p.Local {
		return llm.Price{Source: llm.PriceLocal}, true
	}
	return KnownPrice(model)
}

// ServerPrice is model's price as its server lists it: OpenRouter's
// /models gives each model's pricing in dollars per token, as strings
// ("prompt", "completion", "input_cache_read"). ok is false for other
// servers and for a model the list lacks or prices in a way not read
// here; err says why the list could not be read.
func ServerPrice(ctx context.Context, hc *http.Client, p llm.Provider, key, model string) (price llm.Price, ok bool, err error) {
	if p.Kind != KindOpenRouter {
		return llm.Price{}, false, nil
	}
	m, _, err := openRouterQuery(ctx, hc, key, model).modelList(strings.TrimRight(p.BaseURL, "/") + "/models")
	if err != nil {
		return llm.Price{}, false, err
	}
	price, ok = m.price()
	return price, ok, nil
}

// ServerFacts is what p's server says of model: its window (0: it does
// not say) and, where it lists prices, its price (nil: none). OpenRouter's
// list, which gives both, is read once.
func ServerFacts(ctx context.Context, hc *http.Client, p llm.Provider, key, model string) (window int, price *llm.Price, err error) {
	if p.Kind != KindOpenRouter {
		window, err = ServerWindow(ctx, hc, p, key, model)
		return window, nil, err
	}
	m, _, err := openRouterQuery(ctx, hc, key, model).modelList(strings.TrimRight(p.BaseURL, "/") + "/models")
	if pr, ok := m.price(); ok {
		price = &pr
	}
	return m.window(), price, err
}

func openRouterQuery(ctx context.Context, hc *http.Client, key, model string) serverQuery {
	if hc == nil {
		hc = http.DefaultClient
	}
	return serverQuery{ctx: ctx, hc: hc, key: key, model: model}
}

// price is the model's price as OpenRouter lists it, per token, read as
// per million; ok is false when it lists none or one not read here (a
// negative or non-numeric price).
func (m listedModel) price() (llm.Price, bool) {
	perM := func(s string) (float64, bool) {
		if s == "" {
			return 0, true
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return 0, false
		}
		return v * 1e6, true
	}
	in, ok1 := perM(m.Pricing.Prompt)
	out, ok2 := perM(m.Pricing.Completion)
	cached, ok3 := perM(m.Pricing.CacheRead)
	if !ok1 || !ok2 || !ok3 || m.Pricing.Prompt == "" || m.Pricing.Completion == "" {
		return llm.Price{}, false
	}
	return llm.Price{InputPerM: in, OutputPerM: out, CachedInputPerM: cached, Source: llm.PriceServer, AsOf: time.Now().UTC().Format(time.DateOnly)}, true
}

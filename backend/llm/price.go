package llm

import "math"

// What a model call costs. A price is per million tokens, in US dollars,
// for input, output and cached input; it comes from the model's server
// (OpenRouter's list), the user, or a dated table of well-known models
// (package catalog finds it). A cost is an estimate: servers bill by their
// own count, and where the tokens were themselves estimated the cost says so.

// Price is what a model charges per million tokens, in US dollars.
type Price struct {
	InputPerM  float64 `json:"input_per_m"`
	OutputPerM float64 `json:"output_per_m"`
	// CachedInputPerM is the price of input tokens served from the
	// provider's prompt cache; 0 means the model has no such discount and
	// cached tokens cost as much as the rest.
	CachedInputPerM float64 `json:"cached_input_per_m,omitempty"`
	// Source says where the price came from: PriceLocal, PriceTable,
	// PriceServer or PriceUser.
	Source string `json:"source"`
	// AsOf is the date the price was read or published (YYYY-MM-DD).
	AsOf string `json:"as_of,omitempty"`
}

// Where a Price came from.
const (
	PriceLocal  = "local"  // a server on this machine: free
	PriceTable  = "table"  // the table of well-known models (KnownPricesAsOf)
	PriceServer = "server" // the model's server listed it (OpenRouter)
	PriceUser   = "user"   // set in Settings
	PriceReplay = "replay" // a replayed call: served from the record, free
)

// Cost is the estimated cost of some model calls.
type Cost struct {
	USD float64 `json:"usd"`
	// Estimated is true when some of the tokens were estimated because
	// the server reported no usage.
	Estimated bool `json:"estimated,omitempty"`
	// Unpriced counts calls in a sum whose price was unknown: USD leaves
	// them out, so the sum is at least USD.
	Unpriced int `json:"unpriced,omitempty"`
}

// Add returns the sum of c and d.
func (c Cost) Add(d Cost) Cost {
	return Cost{USD: c.USD + d.USD, Estimated: c.Estimated || d.Estimated, Unpriced: c.Unpriced + d.Unpriced}
}

// CallsCost sums the costs kept with calls; nil when no call had a price
// (a turn on a server whose price nobody knows has no cost, not $0).
func CallsCost(calls []CallDiagnostics) *Cost {
	var sum Cost
	priced := false
	for _, c := range calls {
		if c.Cost == nil {
			sum.Unpriced++
			continue
		}
		priced = true
		sum = sum.Add(*c.Cost)
	}
	if !priced {
		return nil
	}
	return &sum
}

// Cost is what usage u costs at p: input tokens not from the cache at the
// input price, cached ones at the cached price (the input price when the
// model has none), output tokens (reasoning included, as servers count
// them) at the output price.
func (p Price) Cost(u Usage) Cost {
	cached := min(max(u.CachedInputTokens, 0), max(u.InputTokens, 0))
	fresh := max(u.InputTokens, 0) - cached
	cachedPrice := p.CachedInputPerM
	if cachedPrice == 0 {
		cachedPrice = p.InputPerM
	}
	usd := (float64(fresh)*p.InputPerM + float64(cached)*cachedPrice + float64(max(u.OutputTokens, 0))*p.OutputPerM) / 1e6
	if math.IsNaN(usd) || math.IsInf(usd, 0) || usd < 0 {
		usd = 0
	}
	return Cost{USD: usd, Estimated: u.Estimated}
}

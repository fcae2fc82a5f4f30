package runner

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/store"
)

// What a model holds and costs, and what a provider may still spend.
// A model's window and price come from, in order: what the user set for
// it; what its server said, asked once and kept with the provider
// (store.ModelInfo, asked again after factsMaxAge); the tables of
// well-known models. A server on this machine costs nothing.

// factsMaxAge is how long what a server said is trusted before it is
// asked again (a local server's model can be reloaded with another
// context size).
const factsMaxAge = 24 * time.Hour

// factsTimeout bounds asking a server, so a slow one never holds a turn.
const factsTimeout = 3 * time.Second

// factsRetry is how long an answer that could not be kept (the server
// could not be reached, or the file refused it) is used before the server
// is asked again: the meter reads facts after every pause in typing, and
// a server that drops packets would otherwise hold each reading for
// factsTimeout.
const factsRetry = time.Minute

// Facts is what is known of a model on a provider.
type Facts struct {
	Provider string     `json:"provider"`
	Model    string     `json:"model"`
	Window   llm.Window `json:"window"`
	// Price is nil when nobody knows it.
	Price *llm.Price `json:"price,omitempty"`
	// Note says why the server could not be asked, if it could not ("":
	// it was, or did not need to be).
	Note string `json:"note,omitempty"`
}

// factsStore keeps what servers said about models.
type factsStore interface {
	ModelInfo(ctx context.Context, provider, model string) (store.ModelInfo, bool, error)
	SaveModelInfo(ctx context.Context, info store.ModelInfo) error
}

// budgetStore sums what a provider's calls cost.
type budgetStore interface {
	ProviderSpend(ctx context.Context, provider string, since time.Time) (float64, error)
}

// ModelFacts is model's window and price on the provider called name,
// asking its server when nothing it said is kept (or it is stale).
func (r *Runner) ModelFacts(ctx context.Context, name, model string) (Facts, error) {
	p, err := r.provider(ctx, name)
	if err != nil {
		return Facts{}, err
	}
	return r.facts(ctx, p, model), nil
}

// facts is model's window and price on p: see the top of this file.
func (r *Runner) facts(ctx context.Context, p llm.Provider, model string) Facts {
	f := Facts{Provider: p.Name, Model: model}
	info, ok, err := r.cfg.DB.ModelInfo(ctx, p.Name, model)
	if err != nil {
		r.log.Warn("reading what is known of a model", "provider", p.Name, "model", model, "err", err)
	}
	if !ok || time.Since(info.ReadAt) > factsMaxAge {
		key := factsKey{p.Name, string(p.Kind), p.BaseURL, model}
		var hold bool
		if info, f.Note, ok = r.unkept.get(key); !ok {
			if info, f.Note, hold = r.askServer(ctx, p, model); hold {
				r.unkept.put(key, info, f.Note)
			}
		}
	}
	switch w, ok := p.UserWindow(model); {
	case ok:
		f.Window = w
	case info.Window > 0:
		f.Window = llm.Window{Tokens: info.Window, Source: llm.WindowServer}
	default:
		f.Window = catalog.KnownWindow(model)
	}
	if price, ok := catalog.PriceFor(p, model, info.Price); ok {
		f.Price = &price
	}
	return f
}

// askServer asks p's server what it says of model and keeps the answer;
// when the server could not be asked, note says why. hold says the answer
// was not kept and asking again at once would only wait on the server
// again, so it is to be held in memory for factsRetry.
func (r *Runner) askServer(ctx context.Context, p llm.Provider, model string) (info store.ModelInfo, note string, hold bool) {
	key, err := r.apiKey(ctx, p)
	if err != nil { // read here, not from the server: asked again next time
		return store.ModelInfo{}, apperr.MessageOf(err), false
	}
	ctx, cancel := context.WithTimeout(ctx, factsTimeout)
	defer cancel()
	window, price, err := catalog.ServerFacts(ctx, r.cfg.HTTPClient, p, key, model)
	info = store.ModelInfo{Provider: p.Name, Model: model, Window: window, Price: price, ReadAt: time.Now()}
	if errors.Is(err, catalog.ErrUnreachable) {
		r.log.Info("asking a server about a model", "provider", p.Name, "model", model, "err", err)
		return info, fmt.Sprintf("%s could not be asked about %s; the window and price are from the table of well-known models.", p.Name, model), true
	}
	if err != nil {
		// It answered, without what was asked (an endpoint it does not
		// have): that is its answer, kept like any other.
		r.log.Debug("a server said nothing of a model", "provider", p.Name, "model", model, "err", err)
	}
	if err := r.cfg.DB.SaveModelInfo(ctx, info); err != nil {
		r.log.Warn("keeping what a server said about a model", "provider", p.Name, "model", model, "err", err)
		return info, "", true
	}
	return info, "", false
}

// factsKey names a model on a provider as it is now set up: a provider
// saved with another server is another key.
type factsKey struct{ provider, kind, baseURL, model string }

// factsMemo holds, for factsRetry, the answers askServer could not keep
// and says to hold.
// The zero value is ready; now is time.Now unless a test sets it.
type factsMemo struct {
	mu      sync.Mutex
	now     func() time.Time
	entries map[factsKey]memoEntry
}

type memoEntry struct {
	info store.ModelInfo
	note string
	at   time.Time
}

func (m *factsMemo) clock() time.Time {
	if m.now != nil {
		return m.now()
	}
	return time.Now()
}

func (m *factsMemo) get(k factsKey) (store.ModelInfo, string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[k]
	if !ok || m.clock().Sub(e.at) >= factsRetry {
		return store.ModelInfo{}, "", false
	}
	return e.info, e.note, true
}

func (m *factsMemo) put(k factsKey, info store.ModelInfo, note string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.clock()
	if m.entries == nil {
		m.entries = map[factsKey]memoEntry{}
	}
	for key, e := range m.entries { // few providers: drop what has expired
		if now.Sub(e.at) >= factsRetry {
			delete(m.entries, key)
		}
	}
	m.entries[k] = memoEntry{info: info, note: note, at: now}
}

// turnPrices prices a turn's calls by their model on p, each model's
// price looked up once.
func (r *Runner) turnPrices(ctx context.Context, p llm.Provider, first Facts) func(model string) *llm.Price {
	var mu sync.Mutex
	known := map[string]*llm.Price{first.Model: first.Price}
	return func(model string) *llm.Price {
		mu.Lock()
		defer mu.Unlock()
		if pr, ok := known[model]; ok {
			return pr
		}
		pr := r.facts(ctx, p, model).Price
		known[model] = pr
		return pr
	}
}

// BudgetState is where a provider's monthly budget stands.
type BudgetState struct {
	Provider string     `json:"provider"`
	Budget   llm.Budget `json:"budget"`
	// SpentUSD is this calendar month's estimated cost, replays left out.
	SpentUSD float64 `json:"spent_usd"`
	// State is llm.BudgetOK, BudgetWarning or BudgetOver.
	State string `json:"state"`
	// Since is the start of the month counted.
	Since time.Time `json:"since"`
}

// Budget is where the provider called name stands against its monthly
// budget; State is llm.BudgetOK when it has none.
func (r *Runner) Budget(ctx context.Context, name string) (BudgetState, error) {
	p, err := r.provider(ctx, name)
	if err != nil {
		return BudgetState{}, err
	}
	return r.budget(ctx, p)
}

func (r *Runner) budget(ctx context.Context, p llm.Provider) (BudgetState, error) {
	now := time.Now()
	b := BudgetState{Provider: p.Name, State: llm.BudgetOK, Since: time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, now.Location())}
	if p.Budget == nil || p.Budget.MonthlyUSD <= 0 {
		return b, nil
	}
	b.Budget = *p.Budget
	spent, err := r.cfg.DB.ProviderSpend(ctx, p.Name, b.Since)
	if err != nil {
		return b, err
	}
	b.SpentUSD, b.State = spent, p.Budget.State(spent)
	return b, nil
}

// checkBudget refuses a turn on a provider whose monthly budget is spent,
// unless the person agreed to go over (Request.OverBudget).
func (r *Runner) checkBudget(ctx context.Context, p llm.Provider, over bool) error {
	b, err := r.budget(ctx, p)
	if err != nil || b.State != llm.BudgetOver || over {
		return err
	}
	how := "Send again to go over it, or raise it in Settings."
	if b.Budget.Refuses() {
		how = "Raise it in Settings to send more this month."
	}
	return apperr.New(apperr.OverBudget, "This month's budget for %s is spent: $%.2f of $%.2f. %s", p.Name, b.SpentUSD, b.Budget.MonthlyUSD, how)
}

package cli

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/secrets"
	"github.com/agentdeck/agentdeck/backend/store"
)

// cmdProviders manages the configured model servers, so scripts (and the
// window smoke test) can set one up without the UI:
//
//	agentdeck providers list [--json]
//	agentdeck providers add NAME --base-url URL [--kind K] [--model M] [--api-key-env VAR] [--default]
//	    [--price IN,OUT[,CACHED]] [--window TOKENS] [--budget USD [--over ask|refuse]]
//
// --price (US dollars per million tokens) and --window apply to --model,
// or to every model of the provider without one.
//
//	agentdeck providers remove NAME
func cmdProviders(ctx context.Context, args []string, env Env) int {
	if len(args) == 0 {
		fmt.Fprintln(env.Stderr, "agentdeck: providers needs a command: list, add, remove")
		return ExitUsage
	}
	sub := args[0]
	fs := newFlagSet("providers "+sub, env)
	dbFlag := dbFlagOf(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	baseURL := fs.String("base-url", "", "the server's OpenAI-compatible base URL")
	kind := fs.String("kind", catalog.KindCustom, "preset kind: "+catalog.KindsText())
	model := fs.String("model", "", "default model")
	keyEnv := fs.String("api-key-env", "", "environment variable holding the API key to store in the keyring")
	makeDefault := fs.Bool("default", false, "make it the default for new sessions")
	price := fs.String("price", "", "IN,OUT[,CACHED]: US dollars per million input, output and cached input tokens, for --model (or every model)")
	window := fs.Int("window", 0, "the context window in tokens, for --model (or every model)")
	budget := fs.Float64("budget", 0, "a monthly budget in US dollars (0: none)")
	over := fs.String("over", llm.BudgetAsk, "past the budget: ask before each send, or refuse")
	force := forceFlagOf(fs)
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return ExitUsage
	}
	db, path, code := openDB(ctx, *dbFlag, env)
	if db == nil {
		return code
	}
	defer db.Close()
	f := providerFlags{asJSON: *asJSON, baseURL: *baseURL, kind: *kind, model: *model, keyEnv: *keyEnv, makeDefault: *makeDefault, window: *window, force: *force}
	if *price != "" {
		p, err := parsePrice(*price)
		if err != nil {
			return fail(env, err)
		}
		f.price = &p
	}
	if *budget < 0 || (*over != llm.BudgetAsk && *over != llm.BudgetRefuse) {
		fmt.Fprintln(env.Stderr, "agentdeck: --budget is a number of dollars, and --over is ask or refuse")
		return ExitUsage
	}
	if *budget > 0 {
		f.budget = &llm.Budget{MonthlyUSD: *budget, OverLimit: *over}
	}
	return providers(ctx, db, sub, pos, f, path, env)
}

// providerStore is what the providers commands use of the database.
type providerStore interface {
	ListProviders(ctx context.Context) ([]llm.Provider, error)
	SaveProvider(ctx context.Context, p llm.Provider) error
	DeleteProvider(ctx context.Context, name string) error
	AppSettings(ctx context.Context) (store.AppSettings, error)
	SaveAppSettings(ctx context.Context, st store.AppSettings) error
	// add and remove write (write.go)
	writeStore
}

var _ providerStore = (*store.DB)(nil)

// providerFlags are the flags of the providers commands.
type providerFlags struct {
	asJSON                       bool
	baseURL, kind, model, keyEnv string
	makeDefault                  bool
	price                        *llm.Price
	window                       int
	budget                       *llm.Budget
	force                        bool
}

// parsePrice reads "IN,OUT[,CACHED]" in dollars per million tokens.
func parsePrice(s string) (llm.Price, error) {
	parts := strings.Split(s, ",")
	var v [3]float64
	if len(parts) < 2 || len(parts) > 3 {
		return llm.Price{}, apperr.New(apperr.Invalid, "--price %q: give IN,OUT or IN,OUT,CACHED in dollars per million tokens, e.g. 2.5,10,1.25.", s)
	}
	for i, p := range parts {
		n, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || n < 0 || math.IsInf(n, 0) || math.IsNaN(n) {
			return llm.Price{}, apperr.New(apperr.Invalid, "--price %q: %q is not a price; give dollars per million tokens, e.g. 2.5,10.", s, p)
		}
		v[i] = n
	}
	return llm.Price{InputPerM: v[0], OutputPerM: v[1], CachedInputPerM: v[2], Source: llm.PriceUser, AsOf: time.Now().Format(time.DateOnly)}, nil
}

// providers runs a providers command on the database at dbPath.
func providers(ctx context.Context, db providerStore, sub string, pos []string, f providerFlags, dbPath string, env Env) int {
	switch sub {
	case "list":
		ps, err := db.ListProviders(ctx)
		if err != nil {
			return fail(env, err)
		}
		if f.asJSON {
			if ps == nil {
				ps = []llm.Provider{}
			}
			return printJSON(env, map[string]any{"providers": ps})
		}
		for _, p := range ps {
			fmt.Fprintf(env.Stdout, "%-16s %-10s %s %s\n", p.Name, p.Kind, p.BaseURL, p.DefaultModel)
		}
		return ExitOK
	case "remove":
		if len(pos) != 1 {
			fmt.Fprintln(env.Stderr, "agentdeck: usage: agentdeck providers remove NAME")
			return ExitUsage
		}
		if code := mayWrite(db, "remove the provider", f.force, env); code != ExitOK {
			return code
		}
		if err := db.DeleteProvider(ctx, pos[0]); err != nil {
			return fail(env, err)
		}
		return ExitOK
	case "add":
		if len(pos) != 1 || f.baseURL == "" {
			fmt.Fprintln(env.Stderr, "agentdeck: usage: agentdeck providers add NAME --base-url URL [--model M] [--api-key-env VAR] [--default]")
			return ExitUsage
		}
		// Before the key goes to the keyring: nothing of a refused add is kept.
		if code := mayWrite(db, "save the provider", f.force, env); code != ExitOK {
			return code
		}
		p := llm.Provider{Name: pos[0], Kind: f.kind, BaseURL: strings.TrimRight(f.baseURL, "/"), DefaultModel: f.model, Local: catalog.IsLocalURL(f.baseURL)}
		if f.model != "" {
			p.Models = []string{f.model}
		}
		if f.price != nil {
			p.Prices = map[string]llm.Price{f.model: *f.price}
		}
		if f.window > 0 {
			p.Windows = map[string]int{f.model: f.window}
		}
		p.Budget = f.budget
		if f.keyEnv != "" {
			key := env.Getenv(f.keyEnv)
			if key == "" {
				fmt.Fprintf(env.Stderr, "agentdeck: $%s is empty\n", f.keyEnv)
				return ExitUsage
			}
			sec, _ := secrets.Open(ctx, "agentdeck", filepath.Join(dataDir(dbPath), "secrets.json"), quietLogger(env, dbPath))
			p.APIKeyRef = "provider:" + p.Name
			if err := sec.Set(ctx, p.APIKeyRef, key); err != nil {
				return fail(env, err)
			}
		}
		if err := db.SaveProvider(ctx, p); err != nil {
			return fail(env, err)
		}
		if f.makeDefault {
			st, err := db.AppSettings(ctx)
			if err != nil {
				return fail(env, err)
			}
			st.DefaultProvider, st.DefaultModel = p.Name, firstNonEmpty(f.model, st.DefaultModel)
			if err := db.SaveAppSettings(ctx, st); err != nil {
				return fail(env, err)
			}
		}
		fmt.Fprintf(env.Stderr, "saved provider %s\n", p.Name)
		return ExitOK
	}
	fmt.Fprintf(env.Stderr, "agentdeck: unknown providers command %q\n", sub)
	return ExitUsage
}

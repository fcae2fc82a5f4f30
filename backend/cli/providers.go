package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/secrets"
	"github.com/agentdeck/agentdeck/backend/store"
)

// cmdProviders manages the configured model servers, so scripts (and the
// window smoke test) can set one up without the UI:
//
//	agentdeck providers list [--json]
//	agentdeck providers add NAME --base-url URL [--kind K] [--model M] [--api-key-env VAR] [--default]
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
	kind := fs.String("kind", llm.KindCustom, "preset kind: "+llm.KindsText())
	model := fs.String("model", "", "default model")
	keyEnv := fs.String("api-key-env", "", "environment variable holding the API key to store in the keyring")
	makeDefault := fs.Bool("default", false, "make it the default for new sessions")
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return ExitUsage
	}
	db, path, code := openDB(ctx, *dbFlag, env)
	if db == nil {
		return code
	}
	defer db.Close()
	f := providerFlags{asJSON: *asJSON, baseURL: *baseURL, kind: *kind, model: *model, keyEnv: *keyEnv, makeDefault: *makeDefault}
	return providers(ctx, db, sub, pos, f, path, env)
}

// providerStore is what the providers commands use of the database.
type providerStore interface {
	ListProviders(ctx context.Context) ([]llm.Provider, error)
	SaveProvider(ctx context.Context, p llm.Provider) error
	DeleteProvider(ctx context.Context, name string) error
	AppSettings(ctx context.Context) (store.AppSettings, error)
	SaveAppSettings(ctx context.Context, st store.AppSettings) error
}

var _ providerStore = (*store.DB)(nil)

// providerFlags are the flags of the providers commands.
type providerFlags struct {
	asJSON                       bool
	baseURL, kind, model, keyEnv string
	makeDefault                  bool
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
		if err := db.DeleteProvider(ctx, pos[0]); err != nil {
			return fail(env, err)
		}
		return ExitOK
	case "add":
		if len(pos) != 1 || f.baseURL == "" {
			fmt.Fprintln(env.Stderr, "agentdeck: usage: agentdeck providers add NAME --base-url URL [--model M] [--api-key-env VAR] [--default]")
			return ExitUsage
		}
		p := llm.Provider{Name: pos[0], Kind: f.kind, BaseURL: strings.TrimRight(f.baseURL, "/"), DefaultModel: f.model, Local: isLocalURL(f.baseURL)}
		if f.model != "" {
			p.Models = []string{f.model}
		}
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

func isLocalURL(u string) bool {
	return strings.Contains(u, "://127.") || strings.Contains(u, "://localhost") || strings.Contains(u, "://[::1]")
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/promptfile"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/yamlcheck"
)

// promptsStore is what the prompts commands use of the database.
type promptsStore interface {
	GetProject(ctx context.Context, idOrName string) (store.Project, error)
	ProjectNames(ctx context.Context) (map[string]string, error)
	ListPrompts(ctx context.Context, projectID string) ([]store.Prompt, error)
	SavePrompt(ctx context.Context, p store.Prompt) (store.Prompt, error)
	PromptEntries(ctx context.Context, projectID string) ([]store.PromptEntry, error)
	ImportPrompts(ctx context.Context, entries []store.PromptEntry) (store.PromptImport, error)
	writeStore // add and import write
}

var _ promptsStore = (*store.DB)(nil)

const promptsUsage = `agentdeck: usage:
  agentdeck prompts list [--project NAME] [--json]
  agentdeck prompts add NAME --body TEXT|--file F [--description D] [--project NAME] [--json]
  agentdeck prompts export [-o FILE] [--project NAME]
  agentdeck prompts import FILE [--json]`

// promptsOptions are the prompts commands' flags.
type promptsOptions struct {
	project, body, file, description, out string
	asJSON                                bool
}

func cmdPrompts(ctx context.Context, args []string, env Env) int {
	need := map[string]int{"list": 0, "add": 1, "export": 0, "import": 1}
	if len(args) == 0 {
		fmt.Fprintln(env.Stderr, promptsUsage)
		return ExitUsage
	}
	sub := args[0]
	n, ok := need[sub]
	if !ok {
		fmt.Fprintf(env.Stderr, "agentdeck: unknown prompts command %q\n%s\n", sub, promptsUsage)
		return ExitUsage
	}
	fs := newFlagSet("prompts "+sub, env)
	dbFlag := dbFlagOf(fs)
	force := forceFlagOf(fs)
	var o promptsOptions
	fs.StringVar(&o.project, "project", "", "the project, by name: list and export its prompts and the global ones; add the prompt to it")
	fs.BoolVar(&o.asJSON, "json", false, "print JSON")
	fs.StringVar(&o.body, "body", "", "add: the prompt's text; {{name}} is a variable")
	fs.StringVar(&o.file, "file", "", "add: read the prompt's text from FILE")
	fs.StringVar(&o.description, "description", "", "add: what the prompt is for")
	fs.StringVar(&o.out, "o", "", "export: write the file to FILE (it must not exist yet) instead of stdout")
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return ExitUsage
	}
	if len(pos) != n || (sub == "add" && (o.body == "") == (o.file == "")) {
		fmt.Fprintln(env.Stderr, promptsUsage)
		return ExitUsage
	}
	return withDB(ctx, *dbFlag, env, func(db *store.DB) int {
		if what := map[string]string{"add": "save the prompt", "import": "import the prompts"}[sub]; what != "" {
			if code := mayWrite(db, what, *force, env); code != ExitOK {
				return code
			}
		}
		return prompts(ctx, db, sub, pos, o, env)
	})
}

// prompts runs a prompts command whose usage was checked.
func prompts(ctx context.Context, db promptsStore, sub string, pos []string, o promptsOptions, env Env) int {
	projectID := store.AllPrompts
	if o.project != "" {
		p, err := db.GetProject(ctx, o.project)
		if err != nil {
			return fail(env, err)
		}
		projectID = p.ID
	}
	switch sub {
	case "list":
		return promptsList(ctx, db, projectID, o.asJSON, env)
	case "add":
		if projectID == store.AllPrompts {
			projectID = ""
		}
		return promptsAdd(ctx, db, store.Prompt{Name: pos[0], Description: o.description, ProjectID: projectID, Body: o.body}, o, env)
	case "export":
		return promptsExport(ctx, db, projectID, o.out, env)
	default:
		return promptsImport(ctx, db, pos[0], o.asJSON, env)
	}
}

func promptsList(ctx context.Context, db promptsStore, projectID string, asJSON bool, env Env) int {
	ps, err := db.ListPrompts(ctx, projectID)
	if err != nil {
		return fail(env, err)
	}
	if asJSON {
		return printJSON(env, ps)
	}
	if len(ps) == 0 {
		fmt.Fprintln(env.Stderr, "No prompts yet. Add one: agentdeck prompts add NAME --body TEXT")
		return ExitOK
	}
	names, err := db.ProjectNames(ctx)
	if err != nil {
		return fail(env, err)
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tPROJECT\tVARIABLES\tDESCRIPTION")
	for _, p := range ps {
		scope := names[p.ProjectID]
		if p.ProjectID == "" {
			scope = "(global)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.Name, scope, strings.Join(p.Variables, ", "), p.Description)
	}
	if err := tw.Flush(); err != nil {
		return fail(env, err)
	}
	return ExitOK
}

func promptsAdd(ctx context.Context, db promptsStore, p store.Prompt, o promptsOptions, env Env) int {
	if o.file != "" {
		data, err := os.ReadFile(o.file)
		if err != nil {
			fmt.Fprintf(env.Stderr, "agentdeck: cannot read %s: %v\n", o.file, err)
			return ExitFailed
		}
		p.Body = string(data)
	}
	saved, err := db.SavePrompt(ctx, p)
	if err != nil {
		return fail(env, err)
	}
	if o.asJSON {
		return printJSON(env, saved)
	}
	fmt.Fprintln(env.Stdout, saved.ID)
	if len(saved.Variables) > 0 {
		fmt.Fprintf(env.Stderr, "Saved %q; it asks for %s when used.\n", saved.Name, strings.Join(saved.Variables, ", "))
	} else {
		fmt.Fprintf(env.Stderr, "Saved %q.\n", saved.Name)
	}
	return ExitOK
}

func promptsExport(ctx context.Context, db promptsStore, projectID, out string, env Env) int {
	entries, err := db.PromptEntries(ctx, projectID)
	if err != nil {
		return fail(env, err)
	}
	file := make([]promptfile.Entry, len(entries))
	for i, e := range entries {
		file[i] = promptfile.Entry(e)
	}
	data, err := promptfile.Write(file)
	if err != nil {
		return fail(env, apperr.Wrap(err, apperr.Internal, "The prompts could not be written out."))
	}
	if out == "" {
		if _, err := env.Stdout.Write(data); err != nil {
			return fail(env, err)
		}
		return ExitOK
	}
	f, err := os.OpenFile(out, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Fprintf(env.Stderr, "agentdeck: cannot create %s: %v (it must not exist yet)\n", out, err)
		return ExitFailed
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(out)
		return fail(env, apperr.Wrap(err, apperr.Internal, "cannot write %s", out))
	}
	if err := f.Close(); err != nil {
		os.Remove(out)
		return fail(env, apperr.Wrap(err, apperr.Internal, "cannot write %s", out))
	}
	fmt.Fprintf(env.Stderr, "Wrote %d prompts to %s.\n", len(entries), out)
	return ExitOK
}

func promptsImport(ctx context.Context, db promptsStore, path string, asJSON bool, env Env) int {
	file, err := promptfile.ReadFile(path)
	if err != nil {
		var ps yamlcheck.Problems
		if errors.As(err, &ps) {
			fmt.Fprintf(env.Stderr, "%s\nagentdeck: %s was not imported; nothing was written.\n", ps.Error(), path)
			return ExitFailed
		}
		return fail(env, err)
	}
	entries := make([]store.PromptEntry, len(file))
	for i, e := range file {
		entries[i] = store.PromptEntry(e)
	}
	rep, err := db.ImportPrompts(ctx, entries)
	if err != nil {
		return fail(env, err)
	}
	if asJSON {
		return printJSON(env, rep)
	}
	for _, g := range []struct {
		verb string
		list []store.PromptImported
	}{{"created", rep.Created}, {"updated", rep.Updated}, {"skipped", rep.Skipped}} {
		for _, p := range g.list {
			line := g.verb + "  " + p.Name
			if p.Project != "" {
				line += " (" + p.Project + ")"
			}
			if p.Reason != "" {
				line += ": " + p.Reason
			}
			fmt.Fprintln(env.Stdout, line)
		}
	}
	fmt.Fprintf(env.Stderr, "%d created, %d updated, %d skipped.\n", len(rep.Created), len(rep.Updated), len(rep.Skipped))
	return ExitOK
}

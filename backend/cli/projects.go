package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/store"
)

// cmdProjects manages projects, the groups of sessions that hold their
// defaults:
//
//	agentdeck projects list [--json]
//	agentdeck projects create NAME [--system TEXT] [--model M] [--provider P] [--workflow W] [--temperature X] ...
//	agentdeck projects show NAME [--json]
//	agentdeck projects edit NAME [--name NEW] [the same settings flags; --KEY= unsets one]
//	agentdeck projects delete NAME [--keep-sessions | --delete-sessions]
//
// A project is named by its name (any case) or its id. Deleting one that
// has sessions needs the choice: without it the command is refused,
// counting them, and nothing changes.
func cmdProjects(ctx context.Context, args []string, env Env) int {
	if len(args) == 0 {
		fmt.Fprintln(env.Stderr, "agentdeck: projects needs a command: list, create, show, edit, delete")
		return ExitUsage
	}
	sub := args[0]
	fs := newFlagSet("projects "+sub, env)
	dbFlag := dbFlagOf(fs)
	o := projectOpts{settings: layerFlagsOf(fs)}
	fs.BoolVar(&o.asJSON, "json", false, "print JSON")
	fs.StringVar(&o.rename, "name", "", "edit: the project's new name")
	keep := fs.Bool("keep-sessions", false, "delete: move the project's sessions to no project")
	del := fs.Bool("delete-sessions", false, "delete: delete the project's sessions with it")
	force := forceFlagOf(fs)
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return ExitUsage
	}
	n, ok := map[string]int{"list": 0, "create": 1, "show": 1, "edit": 1, "delete": 1}[sub]
	switch {
	case !ok:
		fmt.Fprintf(env.Stderr, "agentdeck: unknown projects command %q (list, create, show, edit, delete)\n", sub)
		return ExitUsage
	case len(pos) != n:
		fmt.Fprintf(env.Stderr, "agentdeck: projects %s takes %d argument(s)\n", sub, n)
		return ExitUsage
	case *keep && *del:
		fmt.Fprintln(env.Stderr, "agentdeck: pass --keep-sessions or --delete-sessions, not both")
		return ExitUsage
	case *keep:
		o.sessions = store.KeepSessions
	case *del:
		o.sessions = store.DeleteSessions
	}
	return withDB(ctx, *dbFlag, env, func(db *store.DB) int {
		if sub != "list" && sub != "show" {
			if code := mayWrite(db, "change projects", *force, env); code != ExitOK {
				return code
			}
		}
		return projects(ctx, db, sub, pos, o, env)
	})
}

// projectsStore is what the projects commands use of the database.
type projectsStore interface {
	projectFinder
	CreateProject(ctx context.Context, p store.Project) (store.Project, error)
	UpdateProject(ctx context.Context, p store.Project) error
	DeleteProject(ctx context.Context, id, sessions string) ([]string, error)
}

// projectFinder finds a project by what a person typed.
type projectFinder interface {
	ListProjects(ctx context.Context) ([]store.ProjectSummary, error)
	GetProject(ctx context.Context, idOrName string) (store.Project, error)
}

var _ projectsStore = (*store.DB)(nil)

// projectOpts are the flags of the projects commands.
type projectOpts struct {
	asJSON   bool
	rename   string
	sessions string // delete: store.KeepSessions, store.DeleteSessions or ""
	settings layerFlags
}

// projects runs a projects command whose usage was checked.
func projects(ctx context.Context, db projectsStore, sub string, pos []string, o projectOpts, env Env) int {
	switch sub {
	case "list":
		return projectsList(ctx, db, o.asJSON, env)
	case "create":
		p := store.Project{Name: pos[0]}
		if err := o.settings.apply(&p.Settings); err != nil {
			return fail(env, err)
		}
		p, err := db.CreateProject(ctx, p)
		if err != nil {
			return fail(env, err)
		}
		fmt.Fprintf(env.Stderr, "created project %s\n", p.Name)
		return printProject(env, p, o.asJSON)
	case "show":
		p, err := findProject(ctx, db, pos[0])
		if err != nil {
			return fail(env, err)
		}
		return printProject(env, p, o.asJSON)
	case "edit":
		return projectsEdit(ctx, db, pos[0], o, env)
	default:
		return projectsDelete(ctx, db, pos[0], o, env)
	}
}

func projectsList(ctx context.Context, db projectFinder, asJSON bool, env Env) int {
	ps, err := db.ListProjects(ctx)
	if err != nil {
		return fail(env, err)
	}
	if asJSON {
		return printJSON(env, map[string]any{"projects": ps})
	}
	for _, p := range ps {
		fmt.Fprintf(env.Stdout, "%s  %4d %s  %s\n", p.ID, p.Sessions, eval.Plural(p.Sessions, "session ", "sessions"), p.Name)
	}
	return ExitOK
}

func projectsEdit(ctx context.Context, db projectsStore, name string, o projectOpts, env Env) int {
	p, err := findProject(ctx, db, name)
	if err != nil {
		return fail(env, err)
	}
	if o.rename != "" {
		p.Name = o.rename
	}
	if err := o.settings.apply(&p.Settings); err != nil {
		return fail(env, err)
	}
	if err := db.UpdateProject(ctx, p); err != nil {
		return fail(env, err)
	}
	if p, err = db.GetProject(ctx, p.ID); err != nil {
		return fail(env, err)
	}
	return printProject(env, p, o.asJSON)
}

func projectsDelete(ctx context.Context, db projectsStore, name string, o projectOpts, env Env) int {
	p, err := findProject(ctx, db, name)
	if err != nil {
		return fail(env, err)
	}
	deleted, err := db.DeleteProject(ctx, p.ID, o.sessions)
	if apperr.CodeOf(err) == apperr.Conflict {
		// The store's message counts the sessions; say it with the flags.
		fmt.Fprintf(env.Stderr, "agentdeck: the project %q has %d %s: pass --keep-sessions to move them to no project, or --delete-sessions to delete them\n",
			p.Name, p.Sessions, eval.Plural(p.Sessions, "session", "sessions"))
		return ExitFailed
	}
	if err != nil {
		return fail(env, err)
	}
	if deleted == nil {
		deleted = []string{}
	}
	if o.asJSON {
		return printJSON(env, map[string]any{"deleted_project": p, "deleted_sessions": deleted})
	}
	switch {
	case len(deleted) > 0:
		fmt.Fprintf(env.Stderr, "deleted project %s and its %d %s\n", p.Name, len(deleted), eval.Plural(len(deleted), "session", "sessions"))
	case o.sessions == store.KeepSessions && p.Sessions > 0:
		fmt.Fprintf(env.Stderr, "deleted project %s; its sessions are now in no project\n", p.Name)
	default:
		fmt.Fprintf(env.Stderr, "deleted project %s\n", p.Name)
	}
	return ExitOK
}

func printProject(env Env, p store.Project, asJSON bool) int {
	if asJSON {
		return printJSON(env, p)
	}
	fmt.Fprintf(env.Stdout, "%s\n%s · %d %s\n", p.Name, p.ID, p.Sessions, eval.Plural(p.Sessions, "session", "sessions"))
	for _, l := range settingsText(p.Settings) {
		fmt.Fprintf(env.Stdout, "  %s\n", l)
	}
	return ExitOK
}

// findProject finds a project by name (any case) or id; one not found is
// NotFound naming the projects there are.
func findProject(ctx context.Context, db projectFinder, name string) (store.Project, error) {
	p, err := db.GetProject(ctx, name)
	if apperr.CodeOf(err) != apperr.NotFound {
		return p, err
	}
	ps, lerr := db.ListProjects(ctx)
	if lerr != nil || len(ps) == 0 {
		return p, apperr.New(apperr.NotFound, "There is no project %q; there are no projects yet (agentdeck projects create NAME makes one).", name)
	}
	names := make([]string, len(ps))
	for i, q := range ps {
		names[i] = q.Name
	}
	return p, apperr.New(apperr.NotFound, "There is no project %q. The projects are: %s.", name, strings.Join(names, ", "))
}

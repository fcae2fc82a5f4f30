package cli

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/agentdeck/agentdeck/backend/store"
)

// Keeping sessions in order from the command line:
//
//	agentdeck sessions move ID PROJECT | --none
//	agentdeck sessions pin ID [--off]
//	agentdeck sessions tag ID TAG... [--remove TAG]... [--clear]
//	agentdeck sessions archive ID [--off]
//
// and the filters of sessions list (--project NAME | --no-project, --tag
// T, --archived | --archived-only) and of sessions search (--project,
// --no-project, --tag). A project is named by its name (any case) or id.

// orderStore is what these commands use of the database.
type orderStore interface {
	projectFinder
	MoveSession(ctx context.Context, sessionID, projectID string) error
	PinSession(ctx context.Context, sessionID string, pinned bool) error
	ArchiveSession(ctx context.Context, sessionID string, archived bool) error
	SetTags(ctx context.Context, sessionID string, tags []string) error
	SearchIn(ctx context.Context, query string, limit int, sc store.Scope) ([]store.SearchHit, error)
}

var _ orderStore = (*store.DB)(nil)

// orderOpts are the flags of these commands.
type orderOpts struct {
	project      string
	noProject    bool
	tag          string
	archived     bool
	archivedOnly bool
	none         bool // move: to no project
	off          bool // pin, archive: undo
	remove       tagList
	clear        bool
}

func orderFlagsOf(fs *flag.FlagSet) *orderOpts {
	o := &orderOpts{}
	fs.StringVar(&o.project, "project", "", "list, search: only the sessions of this project")
	fs.BoolVar(&o.noProject, "no-project", false, "list, search: only the sessions in no project")
	fs.StringVar(&o.tag, "tag", "", "list, search: only the sessions with this tag")
	fs.BoolVar(&o.archived, "archived", false, "list: archived sessions too")
	fs.BoolVar(&o.archivedOnly, "archived-only", false, "list: only archived sessions")
	fs.BoolVar(&o.none, "none", false, "move: to no project")
	fs.BoolVar(&o.off, "off", false, "pin, archive: unpin, unarchive")
	fs.Var(&o.remove, "remove", "tag: remove this tag (repeatable)")
	fs.BoolVar(&o.clear, "clear", false, "tag: remove every tag first")
	return o
}

// tagList is a repeatable string flag.
type tagList []string

func (l *tagList) String() string     { return strings.Join(*l, ",") }
func (l *tagList) Set(v string) error { *l = append(*l, v); return nil }

// orderArgs checks the positional arguments of these commands: ok false
// when sub is not one of them.
func orderArgs(sub string, pos []string, o *orderOpts, env Env) (code int, ok bool) {
	bad := func(format string, args ...any) (int, bool) {
		fmt.Fprintf(env.Stderr, "agentdeck: "+format+"\n", args...)
		return ExitUsage, true
	}
	switch sub {
	case "move":
		switch {
		case o.none && len(pos) != 1:
			return bad("sessions move ID --none takes only the session's id")
		case !o.none && len(pos) != 2:
			return bad("sessions move takes the session's id and a project (or --none): sessions move ID PROJECT")
		}
	case "pin", "archive":
		if len(pos) != 1 {
			return bad("sessions %s takes the session's id", sub)
		}
	case "tag":
		if len(pos) < 1 || (len(pos) == 1 && len(o.remove) == 0 && !o.clear) {
			return bad("sessions tag takes the session's id and tags: sessions tag ID TAG... [--remove TAG] [--clear]")
		}
	case "list", "search":
		if o.project != "" && o.noProject {
			return bad("pass --project NAME or --no-project, not both")
		}
		if o.archived && o.archivedOnly {
			return bad("pass --archived or --archived-only, not both")
		}
		return ExitOK, false
	default:
		return ExitOK, false
	}
	return ExitOK, true
}

// sessionsOrder runs move, pin, tag and archive.
func sessionsOrder(ctx context.Context, db sessionsStore, sub string, pos []string, o *orderOpts, asJSON bool, env Env) int {
	id := pos[0]
	var err error
	switch sub {
	case "move":
		projectID := ""
		if !o.none {
			var p store.Project
			if p, err = findProject(ctx, db, pos[1]); err != nil {
				return fail(env, err)
			}
			projectID = p.ID
		}
		err = db.MoveSession(ctx, id, projectID)
	case "pin":
		err = db.PinSession(ctx, id, !o.off)
	case "archive":
		err = db.ArchiveSession(ctx, id, !o.off)
	default:
		err = sessionsTag(ctx, db, id, pos[1:], o)
	}
	if err != nil {
		return fail(env, err)
	}
	s, err := db.GetSession(ctx, id)
	if err != nil {
		return fail(env, err)
	}
	if asJSON {
		return printJSON(env, s)
	}
	fmt.Fprintln(env.Stdout, sessionLine(s, projectNames(ctx, db)))
	return ExitOK
}

// sessionsTag adds tags to a session's and removes some (all with clear).
func sessionsTag(ctx context.Context, db sessionsStore, id string, add []string, o *orderOpts) error {
	s, err := db.GetSession(ctx, id)
	if err != nil {
		return err
	}
	tags := s.Tags
	if o.clear {
		tags = nil
	}
	tags = slices.DeleteFunc(tags, func(t string) bool {
		return slices.ContainsFunc(o.remove, func(r string) bool { return strings.EqualFold(strings.TrimPrefix(strings.TrimSpace(r), "#"), t) })
	})
	return db.SetTags(ctx, id, append(tags, add...))
}

// page is the list's filters from the flags.
func (o *orderOpts) page(ctx context.Context, db projectFinder) (store.Page, error) {
	p := store.Page{Tag: o.tag, Archived: o.archived, ArchivedOnly: o.archivedOnly}
	switch {
	case o.noProject:
		p.Project = store.NoProject
	case o.project != "":
		pr, err := findProject(ctx, db, o.project)
		if err != nil {
			return p, err
		}
		p.Project = pr.ID
	}
	return p, nil
}

// keeps is the page's filters applied to a session, for the list read
// row by row from a damaged file.
func keeps(p store.Page, s store.Session) bool {
	switch {
	case p.Project == store.NoProject && s.ProjectID != "",
		p.Project != "" && p.Project != store.NoProject && s.ProjectID != p.Project,
		p.Tag != "" && !slices.ContainsFunc(s.Tags, func(t string) bool { return strings.EqualFold(t, strings.TrimPrefix(p.Tag, "#")) }),
		p.ArchivedOnly && s.ArchivedAt == nil,
		!p.Archived && !p.ArchivedOnly && s.ArchivedAt != nil:
		return false
	}
	return true
}

// projectNames maps project ids to names, for the list; a failure to read
// them leaves ids shown.
func projectNames(ctx context.Context, db projectFinder) map[string]string {
	ps, err := db.ListProjects(ctx)
	if err != nil {
		return nil
	}
	names := make(map[string]string, len(ps))
	for _, p := range ps {
		names[p.ID] = p.Name
	}
	return names
}

// sessionLine is a session in the list: id, last activity, turns, a pin
// mark, its project, its title, its tags, and whether it is archived.
func sessionLine(s store.Session, projects map[string]string) string {
	pin := " "
	if s.PinnedAt != nil {
		pin = "*"
	}
	project := "-"
	if s.ProjectID != "" {
		project = projects[s.ProjectID]
		if project == "" {
			project = s.ProjectID
		}
	}
	line := fmt.Sprintf("%s  %s  %3d turns  %s %-16s  %s", s.ID, s.UpdatedAt.Local().Format("2006-01-02 15:04"), s.Turns, pin, project, s.Title)
	for _, t := range s.Tags {
		line += "  #" + t
	}
	if s.ArchivedAt != nil {
		line += "  (archived)"
	}
	return line
}

package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/knowledge"
	"github.com/agentdeck/agentdeck/backend/setup"
	"github.com/agentdeck/agentdeck/backend/store"
)

const knowledgeUsage = `agentdeck: usage:
  agentdeck knowledge add FILE... --session ID | --project NAME [--json]
  agentdeck knowledge list --session ID | --project NAME [--json]
  agentdeck knowledge search QUERY --session ID | --project NAME [--limit N] [--json]
  agentdeck knowledge remove DOC_ID [--json]`

// knowledgeOptions are the knowledge commands' flags.
type knowledgeOptions struct {
	session, project string
	limit            int
	asJSON           bool
}

// cmdKnowledge manages the documents of a session or a project, which
// the model searches and cites (package knowledge):
//
//	agentdeck knowledge add FILE... --session ID | --project NAME
//	agentdeck knowledge list --session ID | --project NAME
//	agentdeck knowledge search QUERY --session ID | --project NAME [--limit N]
//	agentdeck knowledge remove DOC_ID
//
// A session's list and search take its own documents and its project's.
// They go through the engine's Library, as the window does.
func cmdKnowledge(ctx context.Context, args []string, env Env) int {
	if len(args) == 0 {
		fmt.Fprintln(env.Stderr, knowledgeUsage)
		return ExitUsage
	}
	sub := args[0]
	fs := newFlagSet("knowledge "+sub, env)
	dbFlag := dbFlagOf(fs)
	force := forceFlagOf(fs)
	var o knowledgeOptions
	fs.StringVar(&o.session, "session", "", "the session (its own documents; list and search add its project's)")
	fs.StringVar(&o.project, "project", "", "the project, by name or id")
	fs.IntVar(&o.limit, "limit", 10, "search: at most this many passages")
	fs.BoolVar(&o.asJSON, "json", false, "print JSON")
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return ExitUsage
	}
	if code := o.check(sub, pos, env); code != ExitOK {
		return code
	}
	db, path, code := openDB(ctx, *dbFlag, env)
	if db == nil {
		return code
	}
	defer db.Close()
	if sub == "add" || sub == "remove" {
		if code := mayWrite(db, map[string]string{"add": "add the documents", "remove": "remove the document"}[sub], *force, env); code != ExitOK {
			return code
		}
	}
	eng, err := setup.Build(ctx, db, setup.Options{DataDir: dataDir(path), Logger: quietLogger(env, path)})
	if err != nil {
		return fail(env, err)
	}
	defer eng.Close()
	return knowledgeRun(ctx, db, eng.Library, sub, pos, o, env)
}

// check refuses a knowledge command given the wrong arguments.
func (o knowledgeOptions) check(sub string, pos []string, env Env) int {
	placed := o.session != "" || o.project != ""
	ok := map[string]bool{
		"add":    len(pos) > 0 && placed,
		"list":   len(pos) == 0 && placed,
		"search": len(pos) > 0 && placed && o.limit > 0,
		"remove": len(pos) == 1 && !placed,
	}
	good, known := ok[sub]
	switch {
	case !known:
		fmt.Fprintf(env.Stderr, "agentdeck: unknown knowledge command %q\n%s\n", sub, knowledgeUsage)
		return ExitUsage
	case o.session != "" && o.project != "":
		fmt.Fprintln(env.Stderr, "agentdeck: pass --session or --project, not both: a document belongs to one")
		return ExitUsage
	case !good:
		fmt.Fprintln(env.Stderr, knowledgeUsage)
		return ExitUsage
	}
	return ExitOK
}

// knowledgeStore is what the knowledge commands use of the database
// besides the Library: the session or project a person names.
type knowledgeStore interface {
	GetSession(ctx context.Context, id string) (store.Session, error)
	projectFinder
}

var _ knowledgeStore = (*store.DB)(nil)

// knowledgeRun runs a knowledge command whose usage was checked.
func knowledgeRun(ctx context.Context, db knowledgeStore, lib *knowledge.Library, sub string, pos []string, o knowledgeOptions, env Env) int {
	if sub == "remove" {
		return knowledgeRemove(ctx, lib.Store, pos[0], o.asJSON, env)
	}
	place, err := knowledgePlace(ctx, db, o)
	if err != nil {
		return fail(env, err)
	}
	switch sub {
	case "add":
		return knowledgeAdd(ctx, lib, place, pos, o.asJSON, env)
	case "list":
		return knowledgeList(ctx, lib.Store, place, o.asJSON, env)
	default:
		return knowledgeSearch(ctx, lib, place, strings.Join(pos, " "), o, env)
	}
}

// knowledgePlace is the session or project the flags name, checked.
func knowledgePlace(ctx context.Context, db knowledgeStore, o knowledgeOptions) (knowledge.Place, error) {
	if o.session != "" {
		s, err := db.GetSession(ctx, o.session)
		return knowledge.Place{SessionID: s.ID}, err
	}
	p, err := findProject(ctx, db, o.project)
	return knowledge.Place{ProjectID: p.ID}, err
}

// addFailure is a file knowledge add could not add.
type addFailure struct {
	File    string      `json:"file"`
	Code    apperr.Code `json:"code"`
	Message string      `json:"message"`
}

// knowledgeAdd adds each file; one that cannot be added is said, the
// others are added all the same, and the exit code is 1.
func knowledgeAdd(ctx context.Context, lib *knowledge.Library, place knowledge.Place, files []string, asJSON bool, env Env) int {
	added, failed := []knowledge.Document{}, []addFailure{}
	for _, f := range files {
		d, err := addFile(ctx, lib, place, f)
		if err != nil {
			failed = append(failed, addFailure{File: f, Code: apperr.CodeOf(err), Message: apperr.MessageOf(err)})
			if !asJSON {
				fmt.Fprintf(env.Stderr, "agentdeck: %s: %s\n", f, apperr.MessageOf(err))
			}
			continue
		}
		added = append(added, d)
		if !asJSON {
			fmt.Fprintln(env.Stdout, d.ID)
			fmt.Fprintf(env.Stderr, "added %s: %d %s, %d %s\n", d.Name, d.Pages, eval.Plural(d.Pages, "page", "pages"), d.Passages, eval.Plural(d.Passages, "passage", "passages"))
			if d.Note != "" {
				fmt.Fprintf(env.Stderr, "note: %s\n", d.Note)
			}
		}
	}
	if asJSON {
		if code := printJSON(env, map[string]any{"added": added, "failed": failed}); code != ExitOK {
			return code
		}
	}
	if len(failed) > 0 {
		return ExitFailed
	}
	return ExitOK
}

func addFile(ctx context.Context, lib *knowledge.Library, place knowledge.Place, path string) (knowledge.Document, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return knowledge.Document{}, apperr.New(apperr.Invalid, "%s is a folder; name the files in it.", path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return knowledge.Document{}, apperr.Wrap(err, apperr.NotFound, "cannot read %s: %v", path, err)
	}
	return lib.Add(ctx, knowledge.File{Place: place, Name: filepath.Base(path), Bytes: b})
}

func knowledgeList(ctx context.Context, st knowledge.Store, place knowledge.Place, asJSON bool, env Env) int {
	ds, err := st.ListDocuments(ctx, place)
	if err != nil {
		return fail(env, err)
	}
	if asJSON {
		return printJSON(env, map[string]any{"documents": ds})
	}
	if len(ds) == 0 {
		fmt.Fprintln(env.Stderr, "No documents yet. Add one: agentdeck knowledge add FILE --session ID (or --project NAME)")
		return ExitOK
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tFORMAT\tPAGES\tPASSAGES\tOF\tADDED")
	for _, d := range ds {
		of := "session"
		if d.ProjectID != "" {
			of = "project"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\n", d.ID, d.Name, d.Format, d.Pages, d.Passages, of, d.CreatedAt.Local().Format("2006-01-02 15:04"))
	}
	if err := tw.Flush(); err != nil {
		return fail(env, err)
	}
	return ExitOK
}

func knowledgeSearch(ctx context.Context, lib *knowledge.Library, place knowledge.Place, query string, o knowledgeOptions, env Env) int {
	res, err := lib.Search(ctx, place, query, o.limit)
	if err != nil {
		return fail(env, err)
	}
	if o.asJSON {
		return printJSON(env, res)
	}
	how := map[knowledge.Mode]string{knowledge.Lexical: "by words (lexical)", knowledge.Hybrid: "by words and meaning (hybrid)"}[res.Mode]
	fmt.Fprintf(env.Stderr, "%d %s, searched %s\n", len(res.Hits), eval.Plural(len(res.Hits), "passage", "passages"), how)
	if len(res.Hits) == 0 {
		return ExitOK
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DOCUMENT\tPAGE\tHEADING\tPASSAGE")
	for _, h := range res.Hits {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", h.Document, h.Page, h.Heading, export.Quote(h.Text))
	}
	if err := tw.Flush(); err != nil {
		return fail(env, err)
	}
	return ExitOK
}

func knowledgeRemove(ctx context.Context, st knowledge.Store, id string, asJSON bool, env Env) int {
	d, err := st.GetDocument(ctx, id)
	if err != nil {
		return fail(env, err)
	}
	if err := st.RemoveDocument(ctx, id); err != nil {
		return fail(env, err)
	}
	if asJSON {
		return printJSON(env, map[string]any{"removed": d})
	}
	fmt.Fprintf(env.Stderr, "removed %s: its text and index are gone from the database; turns that cited it keep what they were given\n", d.Name)
	return ExitOK
}

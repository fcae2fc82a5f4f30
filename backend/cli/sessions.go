package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// sessionsStore is what the sessions commands use of the database.
type sessionsStore interface {
	// list
	ListSessions(ctx context.Context, p store.Page) (store.SessionPage, error)
	ReadSessions(ctx context.Context) (sessions []store.Session, lost int, err error)
	// show
	GetSession(ctx context.Context, id string) (store.Session, error)
	ListTurns(ctx context.Context, sessionID string, p store.Page) (store.TurnPage, error)
	SessionTurns(ctx context.Context, sessionID string) (turns []store.Turn, lost []int, err error)
	SessionUsage(ctx context.Context, sessionID string) (store.UsageSum, error)
	turnReader
	// search, export, import, delete
	export.Source
	Import(ctx context.Context, r io.Reader) (store.Session, error)
	ImportDocuments(ctx context.Context, docs []export.Document) ([]store.Session, error)
	DeleteSession(ctx context.Context, id string) error
	// fork
	ForkSession(ctx context.Context, turnID string) (store.Session, error)
	// import, delete and fork write (write.go)
	writeStore
	// move, pin, tag, archive; list's and search's filters (sessions_order.go)
	orderStore
}

var _ sessionsStore = (*store.DB)(nil)

func cmdSessions(ctx context.Context, args []string, env Env) int {
	if len(args) == 0 {
		fmt.Fprintf(env.Stderr, "agentdeck: sessions needs a command: list, show, search, export, import, delete, fork, move, pin, tag, archive\n")
		return ExitUsage
	}
	sub, rest := args[0], args[1:]
	if sub == "set" {
		return cmdSessionsSet(ctx, rest, env)
	}
	if sub == "export" && wantsOTLP(rest) {
		return cmdSessionsExportOTLP(ctx, rest, env)
	}
	fs := newFlagSet("sessions "+sub, env)
	dbFlag := dbFlagOf(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	format := fs.String("format", "", "export format: json, md, jsonl, or otlp (OpenTelemetry traces: see agentdeck sessions export --format otlp -h)")
	out := fs.String("o", "", "write the export to FILE instead of stdout (md: its images go in FILE_images/ beside it)")
	allBranches := fs.Bool("all-branches", false, "export md and jsonl with every branch, not only the active one")
	force := forceFlagOf(fs)
	order := orderFlagsOf(fs)
	pos, err := parseInterleaved(fs, rest)
	if err != nil {
		return ExitUsage
	}
	if code, ok := orderArgs(sub, pos, order, env); ok && code != ExitOK {
		return code
	}
	need := map[string]int{"list": 0, "show": 1, "search": 1, "export": 1, "import": 1, "delete": 1, "fork": 1}
	n, ok := need[sub]
	if _, order := orderWrites[sub]; order {
		n, ok = len(pos), true
	}
	if !ok {
		fmt.Fprintf(env.Stderr, "agentdeck: unknown sessions command %q\n", sub)
		return ExitUsage
	}
	if sub == "search" && len(pos) > 1 {
		pos = []string{strings.Join(pos, " ")}
	}
	if len(pos) != n {
		fmt.Fprintf(env.Stderr, "agentdeck: sessions %s takes %d argument(s)\n", sub, n)
		return ExitUsage
	}
	return withDB(ctx, *dbFlag, env, func(db *store.DB) int {
		if what := sessionWrites[sub] + orderWrites[sub]; what != "" {
			if code := mayWrite(db, what, *force, env); code != ExitOK {
				return code
			}
		}
		return sessions(ctx, db, sub, pos, *asJSON, *format, *out, export.Options{AllBranches: *allBranches}, order, env)
	})
}

// sessionWrites are the sessions commands that write, with what each
// would not do in a damaged file (mayWrite).
var sessionWrites = map[string]string{"import": "import the session", "delete": "delete the session", "fork": "fork the session"}

// orderWrites are the commands that keep sessions in order (sessions_order.go).
var orderWrites = map[string]string{"move": "move the session", "pin": "pin the session", "tag": "tag the session", "archive": "archive the session"}

// sessions runs a sessions command whose usage was checked.
func sessions(ctx context.Context, db sessionsStore, sub string, pos []string, asJSON bool, format, out string, opts export.Options, order *orderOpts, env Env) int {
	switch sub {
	case "list":
		return sessionsList(ctx, db, order, asJSON, env)
	case "show":
		return sessionsShow(ctx, db, pos[0], asJSON, env)
	case "search":
		return sessionsSearch(ctx, db, pos[0], order, asJSON, env)
	case "export":
		return sessionsExport(ctx, db, pos[0], format, out, opts, env)
	case "import":
		return sessionsImport(ctx, db, pos[0], asJSON, env)
	case "fork":
		return sessionsFork(ctx, db, pos[0], asJSON, env)
	case "move", "pin", "tag", "archive":
		return sessionsOrder(ctx, db, sub, pos, order, asJSON, env)
	default:
		if err := db.DeleteSession(ctx, pos[0]); err != nil {
			return fail(env, err)
		}
		fmt.Fprintf(env.Stderr, "deleted session %s\n", pos[0])
		return ExitOK
	}
}

func sessionsList(ctx context.Context, db sessionsStore, order *orderOpts, asJSON bool, env Env) int {
	var all []store.Session
	lost := 0
	filter, err := order.page(ctx, db)
	if err != nil {
		return fail(env, err)
	}
	for {
		p := filter
		p.Limit = 500
		page, err := db.ListSessions(ctx, p)
		if apperr.CodeOf(err) == apperr.Damaged {
			// A damaged page: list what can be read, row by row.
			if all, lost, err = db.ReadSessions(ctx); err != nil {
				return fail(env, err)
			}
			all = slices.DeleteFunc(all, func(s store.Session) bool { return !keeps(filter, s) })
			break
		}
		if err != nil {
			return fail(env, err)
		}
		all = append(append(all, page.Pinned...), page.Sessions...)
		if page.NextCursor == "" {
			break
		}
		filter.Cursor = page.NextCursor
	}
	if asJSON {
		if all == nil {
			all = []store.Session{}
		}
		out := map[string]any{"sessions": all}
		if lost > 0 {
			out["unreadable_sessions"] = lost
		}
		printJSON(env, out)
	} else {
		names := projectNames(ctx, db)
		for _, s := range all {
			fmt.Fprintln(env.Stdout, sessionLine(s, names))
		}
	}
	if lost > 0 {
		fmt.Fprintf(env.Stderr, "agentdeck: %d %s could not be read (damaged pages); the list shows the %d that could\n", lost, eval.Plural(lost, "session", "sessions"), len(all))
		return ExitFailed
	}
	return ExitOK
}

func sessionsShow(ctx context.Context, db sessionsStore, id string, asJSON bool, env Env) int {
	sess, err := db.GetSession(ctx, id)
	sessLost := apperr.CodeOf(err) == apperr.Damaged
	if err != nil && !sessLost {
		return fail(env, err)
	}
	turns, lostSeqs, err := sessionTurns(ctx, db, id)
	if err != nil {
		return fail(env, err)
	}
	partial := sessLost || len(lostSeqs) > 0
	for _, t := range turns {
		partial = partial || len(t.Unreadable) > 0
	}
	usage, err := db.SessionUsage(ctx, id)
	if err != nil && apperr.CodeOf(err) != apperr.Damaged {
		return fail(env, err)
	}
	if asJSON {
		if turns == nil {
			turns = []TurnView{}
		}
		out := map[string]any{"session": sess, "turns": turns, "usage": usage}
		if sessLost {
			out["session"] = nil
		}
		if len(lostSeqs) > 0 {
			out["unreadable_turns"] = lostSeqs
		}
		printJSON(env, out)
	} else {
		if sessLost {
			fmt.Fprintf(env.Stdout, "(session %s: its own record could not be read)\n", id)
		} else {
			fmt.Fprintf(env.Stdout, "%s\n%s · %s · %s\n", sess.Title, sess.ID, sess.Model, sess.Workflow)
		}
		fmt.Fprintf(env.Stdout, "%d model %s · %d in / %d out tokens · %s\n", usage.Calls, eval.Plural(usage.Calls, "call", "calls"), usage.InputTokens, usage.OutputTokens, sumCostText(usage))
		printTurns(env, turns, lostSeqs)
	}
	if partial {
		fmt.Fprintf(env.Stderr, "agentdeck: part of this session could not be read (damaged pages); shown is what could\n")
		return ExitFailed
	}
	return ExitOK
}

// sessionTurns reads a session's turns oldest first. In a damaged file it
// reads what it can: turns whose row is lost are returned by number, and
// a turn whose events or messages cannot be read is shown without them.
func sessionTurns(ctx context.Context, db sessionsStore, id string) ([]TurnView, []int, error) {
	var rows []store.Turn
	var lost []int
	cursor := ""
	for {
		page, err := db.ListTurns(ctx, id, store.Page{Limit: 500, Cursor: cursor})
		if apperr.CodeOf(err) == apperr.Damaged {
			rows, lost, err = db.SessionTurns(ctx, id)
			if err != nil {
				return nil, nil, err
			}
			break
		}
		if err != nil {
			return nil, nil, err
		}
		// Newest first in pages; oldest first reads like the conversation.
		rows = append(page.Turns, rows...)
		if page.NextCursor == "" {
			slices.SortFunc(rows, func(a, b store.Turn) int { return a.Seq - b.Seq })
			break
		}
		cursor = page.NextCursor
	}
	var turns []TurnView
	for _, t := range rows {
		d, err := db.ReadTurn(ctx, t.ID, false)
		if apperr.CodeOf(err) == apperr.Damaged {
			// Its row was read a moment ago: keep what the list gave.
			turns = append(turns, TurnView{Turn: t, Stages: []turn.StageResult{}, PlanSteps: []turn.PlanStep{}, Unreadable: []string{"turn"}})
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		turns = append(turns, turnView(d))
	}
	return turns, lost, nil
}

// printTurns prints a session's turns for people, with a line for each
// turn or part of one that could not be read.
func printTurns(env Env, turns []TurnView, lost []int) {
	for _, t := range turns {
		for len(lost) > 0 && lost[0] < t.Seq {
			fmt.Fprintf(env.Stdout, "\n#%d (this turn could not be read: its record is on a damaged page)\n", lost[0])
			lost = lost[1:]
		}
		fmt.Fprintf(env.Stdout, "\n#%d [%s] %s\n> %s\n%s\n", t.Seq, t.status(), t.ID, t.message(), t.answer())
		if t.FinalNote != "" {
			fmt.Fprintf(env.Stdout, "note: %s\n", t.FinalNote)
		}
		if len(t.Unreadable) > 0 {
			fmt.Fprintf(env.Stdout, "(its %s could not be read: damaged pages)\n", strings.Join(t.Unreadable, " and "))
		}
		if t.State == store.StateRunning && len(t.PlanSteps) > 0 {
			printPlan(env.Stdout, t.PlanSteps, "  ")
		}
		if t.Cost != nil {
			fmt.Fprintf(env.Stdout, "  %s%s\n", costText(t.Cost), copiedNote(t.Copied))
		}
		for _, s := range t.Stages {
			fmt.Fprintf(env.Stdout, "  stage %-14s %-10s %-9s %s\n", s.Name, s.Agent, s.Outcome, s.Termination)
		}
	}
	for _, seq := range lost {
		fmt.Fprintf(env.Stdout, "\n#%d (this turn could not be read: its record is on a damaged page)\n", seq)
	}
}

func sessionsSearch(ctx context.Context, db sessionsStore, q string, order *orderOpts, asJSON bool, env Env) int {
	filter, err := order.page(ctx, db)
	if err != nil {
		return fail(env, err)
	}
	hits, err := db.SearchIn(ctx, q, 50, store.Scope{Project: filter.Project, Tag: filter.Tag})
	if err != nil {
		return fail(env, err)
	}
	if asJSON {
		return printJSON(env, map[string]any{"hits": hits})
	}
	for _, h := range hits {
		snip := strings.NewReplacer(store.HighlightStart, "[", store.HighlightEnd, "]").Replace(h.Snippet)
		fmt.Fprintf(env.Stdout, "%s  #%d  %s\n    %s\n", h.SessionID, h.TurnSeq, h.SessionTitle, snip)
	}
	return ExitOK
}

func sessionsExport(ctx context.Context, db export.Source, id, format, out string, opts export.Options, env Env) int {
	f, err := export.ParseFormat(format)
	if err != nil {
		fmt.Fprintln(env.Stderr, "agentdeck: pass --format json, md or jsonl")
		return ExitUsage
	}
	var w io.Writer = env.Stdout
	var images *imageFolder
	if out != "" {
		file, err := os.OpenFile(out, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			fmt.Fprintf(env.Stderr, "agentdeck: cannot create %s: %v (it must not exist yet)\n", out, err)
			return ExitFailed
		}
		defer file.Close()
		w = file
		// Markdown written to a file has its images as files beside it;
		// on stdout it names them.
		if f == export.Markdown {
			images = newImageFolder(out)
			opts.ImageFile = images.store
		}
	}
	if err := export.Write(ctx, db, id, f, w, opts); err != nil {
		if out != "" {
			os.Remove(out)
		}
		if images != nil {
			images.remove()
		}
		return fail(env, err)
	}
	return ExitOK
}

// sessionsFork starts a new session from a turn: the branch up to it,
// copied. It prints the new session's id (the whole session with --json).
func sessionsFork(ctx context.Context, db sessionsStore, turnID string, asJSON bool, env Env) int {
	sess, err := db.ForkSession(ctx, turnID)
	if err != nil {
		return fail(env, err)
	}
	if asJSON {
		return printJSON(env, sess)
	}
	fmt.Fprintln(env.Stdout, sess.ID)
	fmt.Fprintf(env.Stderr, "forked %s (%d turns) from turn %s of session %s\n", sess.Title, sess.Turns, turnID, sess.ForkedFromSession)
	return ExitOK
}

package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

func cmdSessions(ctx context.Context, args []string, env Env) int {
	if len(args) == 0 {
		fmt.Fprintf(env.Stderr, "agentdeck: sessions needs a command: list, show, search, export, import, delete\n")
		return ExitUsage
	}
	sub, rest := args[0], args[1:]
	fs := newFlagSet("sessions "+sub, env)
	dbFlag := dbFlagOf(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	format := fs.String("format", "", "export format: json, md or jsonl")
	out := fs.String("o", "", "write the export to FILE instead of stdout")
	pos, err := parseInterleaved(fs, rest)
	if err != nil {
		return ExitUsage
	}
	need := map[string]int{"list": 0, "show": 1, "search": 1, "export": 1, "import": 1, "delete": 1}
	n, ok := need[sub]
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
	db, _, code := openDB(ctx, *dbFlag, env)
	if db == nil {
		return code
	}
	defer db.Close()
	switch sub {
	case "list":
		return sessionsList(ctx, db, *asJSON, env)
	case "show":
		return sessionsShow(ctx, db, pos[0], *asJSON, env)
	case "search":
		return sessionsSearch(ctx, db, pos[0], *asJSON, env)
	case "export":
		return sessionsExport(ctx, db, pos[0], *format, *out, env)
	case "import":
		return sessionsImport(ctx, db, pos[0], *asJSON, env)
	default:
		if err := db.DeleteSession(ctx, pos[0]); err != nil {
			return fail(env, err)
		}
		fmt.Fprintf(env.Stderr, "deleted session %s\n", pos[0])
		return ExitOK
	}
}

func sessionsList(ctx context.Context, db *store.DB, asJSON bool, env Env) int {
	var all []store.Session
	cursor := ""
	lost := 0
	for {
		page, err := db.ListSessions(ctx, store.Page{Limit: 500, Cursor: cursor})
		if apperr.CodeOf(err) == apperr.Damaged {
			// A damaged page: list what can be read, row by row.
			if all, lost, err = db.ReadSessions(ctx); err != nil {
				return fail(env, err)
			}
			break
		}
		if err != nil {
			return fail(env, err)
		}
		all = append(all, page.Sessions...)
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
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
		for _, s := range all {
			fmt.Fprintf(env.Stdout, "%s  %s  %3d turns  %s\n", s.ID, s.UpdatedAt.Local().Format("2006-01-02 15:04"), s.Turns, s.Title)
		}
	}
	if lost > 0 {
		fmt.Fprintf(env.Stderr, "agentdeck: %d %s could not be read (damaged pages); the list shows the %d that could\n", lost, plural(lost, "session", "sessions"), len(all))
		return ExitFailed
	}
	return ExitOK
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// TurnView is a turn as `sessions show` and `turns show` print it.
type TurnView struct {
	store.Turn
	StepsUsed            int                `json:"steps_used"`
	ToolCallsUsed        int                `json:"tool_calls_used"`
	Cancelled            bool               `json:"cancelled"`
	BudgetExhausted      bool               `json:"budget_exhausted"`
	PlanSteps            []turn.PlanStep    `json:"plan_steps"`
	PlanIncompleteReason string             `json:"plan_incomplete_reason"`
	Error                string             `json:"error"`
	FinalStageID         string             `json:"final_stage_id,omitempty"`
	FinalNote            string             `json:"final_note,omitempty"`
	Usage                any                `json:"usage"`
	Stages               []turn.StageResult `json:"stages"`
	Events               []turn.Event       `json:"events,omitempty"`
	// Unreadable names the parts of the turn a damaged file did not give
	// (messages, stages, events).
	Unreadable []string `json:"unreadable,omitempty"`
}

func turnView(d store.TurnDetail) TurnView {
	var r turn.Result
	_ = jsonUnmarshal(d.Result, &r)
	v := TurnView{Turn: d.Turn, StepsUsed: r.StepsUsed, ToolCallsUsed: r.ToolCallsUsed, Cancelled: d.State == store.StateCancelled,
		BudgetExhausted: r.BudgetExhausted, PlanSteps: d.Plan, PlanIncompleteReason: r.PlanIncompleteReason, Error: r.Error,
		FinalStageID: r.FinalStageID, FinalNote: r.FinalNote, Usage: r.Usage, Stages: d.Stages, Events: d.Events, Unreadable: d.Unreadable}
	if v.Stages == nil {
		v.Stages = []turn.StageResult{}
	}
	if v.PlanSteps == nil {
		v.PlanSteps = []turn.PlanStep{}
	}
	return v
}

// answer is the turn's answer for people: its final text, or what it has
// instead. It never shows another turn's text.
func (v TurnView) answer() string {
	switch {
	case v.State == store.StateRunning:
		return "(still running: the answer is not stored yet)"
	case strings.TrimSpace(v.FinalText) != "":
		return v.FinalText
	case v.Error != "":
		return "(no answer: " + v.Error + ")"
	}
	return "(no answer)"
}

// status is the turn's state, with how it ended when the state alone does
// not say it: a limit with its numbers.
func (v TurnView) status() string {
	if v.Termination.Kind.IsLimit() {
		return string(v.State) + " · " + v.Termination.Describe()
	}
	return string(v.State)
}

// ended says how the turn ended, "running" while it runs.
func ended(v TurnView) string {
	if v.State == store.StateRunning {
		return "still running"
	}
	return v.Termination.Describe()
}

// printPlan prints a checklist, one step a line.
func printPlan(w io.Writer, steps []turn.PlanStep, indent string) {
	marks := map[string]string{"done": "[x]", "running": "[>]", "error": "[!]"}
	for i, s := range steps {
		m := marks[s.Status]
		if m == "" {
			m = "[ ]"
		}
		fmt.Fprintf(w, "%s%s %d. %s\n", indent, m, i+1, s.Title)
	}
}

func sessionsShow(ctx context.Context, db *store.DB, id string, asJSON bool, env Env) int {
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
	if asJSON {
		if turns == nil {
			turns = []TurnView{}
		}
		out := map[string]any{"session": sess, "turns": turns}
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
func sessionTurns(ctx context.Context, db *store.DB, id string) ([]TurnView, []int, error) {
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
		fmt.Fprintf(env.Stdout, "\n#%d [%s] %s\n> %s\n%s\n", t.Seq, t.status(), t.ID, t.UserMessage, t.answer())
		if t.FinalNote != "" {
			fmt.Fprintf(env.Stdout, "note: %s\n", t.FinalNote)
		}
		if len(t.Unreadable) > 0 {
			fmt.Fprintf(env.Stdout, "(its %s could not be read: damaged pages)\n", strings.Join(t.Unreadable, " and "))
		}
		if t.State == store.StateRunning && len(t.PlanSteps) > 0 {
			printPlan(env.Stdout, t.PlanSteps, "  ")
		}
		for _, s := range t.Stages {
			fmt.Fprintf(env.Stdout, "  stage %-14s %-10s %-9s %s\n", s.Name, s.Agent, s.Outcome, s.Termination)
		}
	}
	for _, seq := range lost {
		fmt.Fprintf(env.Stdout, "\n#%d (this turn could not be read: its record is on a damaged page)\n", seq)
	}
}

func sessionsSearch(ctx context.Context, db *store.DB, q string, asJSON bool, env Env) int {
	hits, err := db.Search(ctx, q, 50)
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

func sessionsExport(ctx context.Context, db *store.DB, id, format, out string, env Env) int {
	f, err := store.ParseExportFormat(format)
	if err != nil {
		fmt.Fprintln(env.Stderr, "agentdeck: pass --format json, md or jsonl")
		return ExitUsage
	}
	var w io.Writer = env.Stdout
	if out != "" {
		file, err := os.OpenFile(out, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			fmt.Fprintf(env.Stderr, "agentdeck: cannot create %s: %v (it must not exist yet)\n", out, err)
			return ExitFailed
		}
		defer file.Close()
		w = file
	}
	if err := db.Export(ctx, id, f, w, store.ExportOptions{}); err != nil {
		if out != "" {
			os.Remove(out)
		}
		return fail(env, err)
	}
	return ExitOK
}

func sessionsImport(ctx context.Context, db *store.DB, path string, asJSON bool, env Env) int {
	file, err := os.Open(path)
	if err != nil {
		fmt.Fprintf(env.Stderr, "agentdeck: cannot open %s: %v\n", path, err)
		return ExitFailed
	}
	defer file.Close()
	sess, err := db.Import(ctx, file)
	if err != nil {
		return fail(env, err)
	}
	if asJSON {
		return printJSON(env, sess)
	}
	fmt.Fprintf(env.Stdout, "imported session %s (%s, %d turns)\n", sess.ID, sess.Title, sess.Turns)
	return ExitOK
}

func cmdTurns(ctx context.Context, args []string, env Env) int {
	if len(args) == 0 || args[0] != "show" {
		fmt.Fprintln(env.Stderr, "agentdeck: usage: agentdeck turns show TURN_ID [--json] [--events]")
		return ExitUsage
	}
	fs := newFlagSet("turns show", env)
	dbFlag := dbFlagOf(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	events := fs.Bool("events", false, "include the event log")
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil || len(pos) != 1 {
		fmt.Fprintln(env.Stderr, "agentdeck: usage: agentdeck turns show TURN_ID [--json] [--events]")
		return ExitUsage
	}
	db, _, code := openDB(ctx, *dbFlag, env)
	if db == nil {
		return code
	}
	defer db.Close()
	d, err := db.ReadTurn(ctx, pos[0], *events)
	if err != nil {
		return fail(env, err)
	}
	v := turnView(d)
	code = ExitOK
	if len(v.Unreadable) > 0 {
		fmt.Fprintf(env.Stderr, "agentdeck: the turn's %s could not be read (damaged pages); shown is what could\n", strings.Join(v.Unreadable, " and "))
		code = ExitFailed
	}
	if *asJSON {
		printJSON(env, v)
		return code
	}
	fmt.Fprintf(env.Stdout, "turn %s (#%d in %s)\nstate %s · outcome %s · ended: %s\n> %s\n\n%s\n", v.ID, v.Seq, v.SessionID, v.State, firstNonEmpty(string(v.Outcome), "-"), ended(v), v.UserMessage, v.answer())
	if v.FinalNote != "" {
		fmt.Fprintf(env.Stdout, "note: %s\n", v.FinalNote)
	}
	if len(v.PlanSteps) > 0 {
		fmt.Fprintln(env.Stdout, "plan:")
		printPlan(env.Stdout, v.PlanSteps, "  ")
	}
	for _, s := range v.Stages {
		fmt.Fprintf(env.Stdout, "stage %-14s %-10s %-9s %-28s %5d ms  %d in / %d out tokens\n", s.Name, s.Agent, s.Outcome, s.Termination.String(), s.Diagnostics.DurationMS, s.Diagnostics.Usage.InputTokens, s.Diagnostics.Usage.OutputTokens)
	}
	if *events {
		for _, e := range v.Events {
			fmt.Fprintf(env.Stdout, "%5d %-18s %s\n", e.Seq, e.Type, clip(string(e.Data), 120))
		}
	}
	return code
}

const dbUsage = "agentdeck: usage: agentdeck db check | db backup FILE | db salvage NEW_FILE  [--db PATH] [--json]"

func cmdDB(ctx context.Context, args []string, env Env) int {
	if len(args) == 0 || !slices.Contains([]string{"check", "backup", "salvage"}, args[0]) {
		fmt.Fprintln(env.Stderr, dbUsage)
		return ExitUsage
	}
	sub := args[0]
	fs := newFlagSet("db "+sub, env)
	dbFlag := dbFlagOf(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return ExitUsage
	}
	if want := map[string]int{"check": 0, "backup": 1, "salvage": 1}[sub]; len(pos) != want {
		fmt.Fprintln(env.Stderr, dbUsage)
		return ExitUsage
	}
	// The db commands look and copy; they never write the database, not
	// even to mark a dead process's turn interrupted (they report it).
	db, code := openDBReadOnly(ctx, *dbFlag, env)
	if db == nil {
		return code
	}
	defer db.Close()
	switch sub {
	case "backup":
		if err := db.Backup(ctx, pos[0]); err != nil {
			return fail(env, err)
		}
		fmt.Fprintf(env.Stdout, "backed up to %s\n", pos[0])
		return ExitOK
	case "salvage":
		return dbSalvage(ctx, db, pos[0], *asJSON, env)
	}
	return dbCheck(ctx, db, *asJSON, env)
}

func dbCheck(ctx context.Context, db *store.DB, asJSON bool, env Env) int {
	rep, err := db.Check(ctx)
	if err != nil {
		return fail(env, err)
	}
	if _, err := os.Stat(store.DamageMark(db.Path())); err == nil && rep.OK {
		// Damage found earlier is gone (the file was repaired or
		// replaced): writes are no longer refused.
		if err := db.ClearDamageMark(); err != nil {
			warn(env, "could not remove the mark of damage found earlier", err)
		} else {
			fmt.Fprintf(env.Stderr, "agentdeck: the damage found earlier in %s is gone; Agentdeck writes into it again\n", db.Path())
		}
	}
	orphans, err := db.Orphans(ctx)
	if err != nil && apperr.CodeOf(err) != apperr.Damaged { // damage: the report says it
		warn(env, "could not look for turns of stopped processes", err)
	}
	if asJSON {
		if orphans == nil {
			orphans = []store.Orphan{}
		}
		printJSON(env, struct {
			store.CheckReport
			// Running turns whose process is gone: not damage, reported
			// for a person to know why they still show as running.
			Orphans []store.Orphan `json:"orphaned_turns"`
		}{rep, orphans})
	} else {
		counts := make([]string, 0, len(rep.Tables))
		for _, c := range rep.Tables {
			if c.Complete {
				counts = append(counts, fmt.Sprintf("%d %s", c.Rows, c.Name))
			} else {
				counts = append(counts, fmt.Sprintf("%s unreadable in part (%d rows readable)", c.Name, c.Rows))
			}
		}
		fmt.Fprintf(env.Stdout, "schema %d · %s · %d bytes\n", rep.SchemaVersion, strings.Join(counts, " · "), rep.SizeBytes)
		if rep.OK {
			fmt.Fprintln(env.Stdout, "integrity: ok")
		}
		for _, p := range rep.DamagedPages {
			fmt.Fprintf(env.Stdout, "damaged: page %d (%s)\n", p.Page, firstNonEmpty(p.Table, "part of the file SQLite cannot place"))
		}
		for _, p := range rep.Problems {
			fmt.Fprintln(env.Stdout, "problem:", p)
		}
		for _, o := range orphans {
			fmt.Fprintf(env.Stdout, "note: turn %s (session %s) is marked running but its process (pid %d) is gone; it will be marked interrupted, with its answer so far, the next time Agentdeck opens this database\n",
				o.TurnID, o.SessionID, o.OwnerPID)
		}
		if len(rep.Unreadable) > 0 || len(rep.DamagedPages) > 0 {
			fmt.Fprintf(env.Stdout, "next: agentdeck db salvage NEW_FILE --db %s copies everything readable into a new database\n", db.Path())
		}
	}
	// A dead process's turn is not damage: it does not fail the check.
	if !rep.OK {
		return ExitFailed
	}
	return ExitOK
}

func dbSalvage(ctx context.Context, db *store.DB, out string, asJSON bool, env Env) int {
	rep, err := db.Salvage(ctx, out)
	if err != nil {
		return fail(env, err)
	}
	if asJSON {
		return printJSON(env, rep)
	}
	w := env.Stdout
	fmt.Fprintf(w, "salvaged %s into %s\n", rep.Source, rep.Out)
	for _, t := range rep.Tables {
		if t.Read == 0 && t.Unreadable == 0 {
			continue
		}
		line := fmt.Sprintf("  %-12s %7d read %7d copied", t.Name, t.Read, t.Copied)
		if t.Dropped > 0 {
			line += fmt.Sprintf(" %5d dropped (they refer to a lost row)", t.Dropped)
		}
		if t.Unreadable > 0 {
			switch t.LostCount {
			case "exact":
				line += fmt.Sprintf(" %5d lost", t.Lost)
			case "at_least":
				if t.Lost > 0 {
					line += fmt.Sprintf("  at least %d lost", t.Lost)
				} else {
					line += "  some lost"
				}
			default:
				line += "  some lost"
			}
			line += fmt.Sprintf(" (%d unreadable %s skipped)", t.Unreadable, plural(t.Unreadable, "stretch", "stretches"))
		}
		fmt.Fprintln(w, line)
		if len(t.Affected) > 0 {
			fmt.Fprintf(w, "    %s of these turns may be incomplete: %s\n", t.Name, strings.Join(t.Affected, ", "))
		}
	}
	if rep.PlaceholderSessions > 0 {
		fmt.Fprintf(w, "%d %s lost; their turns are kept in placeholder sessions titled \"Recovered session\"\n", rep.PlaceholderSessions, plural(rep.PlaceholderSessions, "session was", "sessions were"))
	}
	if rep.RecoveredTurns > 0 {
		fmt.Fprintf(w, "%d %s lost; %s made again from %s messages (state failed, with a note)\n", rep.RecoveredTurns,
			plural(rep.RecoveredTurns, "turn's record was", "turns' records were"), plural(rep.RecoveredTurns, "it was", "they were"), plural(rep.RecoveredTurns, "its", "their"))
	}
	fmt.Fprintf(w, "search index rebuilt: %d entries\n", rep.SearchEntries)
	if rep.Complete {
		fmt.Fprintln(w, "nothing was lost")
	}
	fmt.Fprintf(w, "next: agentdeck db check --db %s, then use it with --db %s (or move it in place of the damaged file)\n", rep.Out, rep.Out)
	return ExitOK
}

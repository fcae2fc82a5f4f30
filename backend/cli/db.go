package cli

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/store"
)

// dbStore is what the db commands use of the database, which they open
// read-only: they look and copy, never write.
type dbStore interface {
	Path() string
	Check(ctx context.Context) (store.CheckReport, error)
	Orphans(ctx context.Context) ([]store.Orphan, error)
	ClearDamageMark() error
	Backup(ctx context.Context, path string) error
	Salvage(ctx context.Context, out string) (store.SalvageReport, error)
}

var _ dbStore = (*store.DB)(nil)

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
	return dbCommand(ctx, db, sub, pos, *asJSON, env)
}

// dbCommand runs a db command whose usage was checked.
func dbCommand(ctx context.Context, db dbStore, sub string, pos []string, asJSON bool, env Env) int {
	switch sub {
	case "backup":
		if err := db.Backup(ctx, pos[0]); err != nil {
			return fail(env, err)
		}
		fmt.Fprintf(env.Stdout, "backed up to %s\n", pos[0])
		return ExitOK
	case "salvage":
		return dbSalvage(ctx, db, pos[0], asJSON, env)
	}
	return dbCheck(ctx, db, asJSON, env)
}

func dbCheck(ctx context.Context, db dbStore, asJSON bool, env Env) int {
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
		// Rows, table by table, as salvage counts them; the events the
		// rows hold are said beside them.
		counts := make([]string, 0, len(rep.Tables))
		for _, c := range rep.Tables {
			held := ""
			if c.Name == "events" {
				held = fmt.Sprintf("holding %d events: a run of streamed tokens is one row", rep.Events)
			}
			switch {
			case c.Complete && held != "":
				counts = append(counts, fmt.Sprintf("%d %s (%s)", c.Rows, c.Name, held))
			case c.Complete:
				counts = append(counts, fmt.Sprintf("%d %s", c.Rows, c.Name))
			case held != "":
				counts = append(counts, fmt.Sprintf("%s unreadable in part (%d rows readable, %s)", c.Name, c.Rows, held))
			default:
				counts = append(counts, fmt.Sprintf("%s unreadable in part (%d rows readable)", c.Name, c.Rows))
			}
		}
		fmt.Fprintf(env.Stdout, "schema %d · rows: %s · %d bytes\n", rep.SchemaVersion, strings.Join(counts, " · "), rep.SizeBytes)
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

func dbSalvage(ctx context.Context, db dbStore, out string, asJSON bool, env Env) int {
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
		// Rows, as db check counts them.
		line := fmt.Sprintf("  %-12s %7d rows read %7d copied", t.Name, t.Read, t.Copied)
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
			line += fmt.Sprintf(" (%d unreadable %s skipped)", t.Unreadable, eval.Plural(t.Unreadable, "stretch", "stretches"))
		}
		fmt.Fprintln(w, line)
		if len(t.Affected) > 0 {
			fmt.Fprintf(w, "    %s of these turns may be incomplete: %s\n", t.Name, strings.Join(t.Affected, ", "))
		}
	}
	if rep.PlaceholderSessions > 0 {
		fmt.Fprintf(w, "%d %s lost; their turns are kept in placeholder sessions titled \"Recovered session\"\n", rep.PlaceholderSessions, eval.Plural(rep.PlaceholderSessions, "session was", "sessions were"))
	}
	if rep.RecoveredTurns > 0 {
		fmt.Fprintf(w, "%d %s lost; %s made again from %s messages (state failed, with a note)\n", rep.RecoveredTurns,
			eval.Plural(rep.RecoveredTurns, "turn's record was", "turns' records were"), eval.Plural(rep.RecoveredTurns, "it was", "they were"), eval.Plural(rep.RecoveredTurns, "its", "their"))
	}
	fmt.Fprintf(w, "search index rebuilt: %d entries\n", rep.SearchEntries)
	if rep.Complete {
		fmt.Fprintln(w, "nothing was lost")
	}
	fmt.Fprintf(w, "next: agentdeck db check --db %s, then use it with --db %s (or move it in place of the damaged file)\n", rep.Out, rep.Out)
	return ExitOK
}

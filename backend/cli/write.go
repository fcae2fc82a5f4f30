package cli

import (
	"flag"
	"slices"
	"strconv"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/paths"
	"github.com/agentdeck/agentdeck/backend/store"
)

// Every command that writes into the database goes through mayWrite
// after it opens the file and before its first write: in a file known to
// be damaged (openDB has said so), it refuses unless --force, the same way
// for every command, and nothing is written. These write:
//
//	run                               a session and its turn
//	replay TURN_ID                    a session and its turn
//	sessions import | delete | fork   a session
//	sessions move | pin | tag | archive   a session's place in the list
//	projects create | edit | delete   a project (delete: its sessions too)
//	eval SUITE.yaml                   a run, its cases' sessions and turns
//	providers add | remove            configuration
//	prompts add | import              the prompt library
//	knowledge add | remove            a session's or project's documents
//
// The providers commands change only configuration, but it is kept in the
// same file: a write anywhere in a damaged file can spread the damage
// (SQLite may reuse a damaged page, or rewrite one that shares a page with
// what was damaged), and nothing is lost by refusing, since db salvage
// copies the providers and settings into the new file, where they can be
// changed safely. The API key of providers add goes to the keyring, not
// the file, but it is not stored either: a key for a provider that was
// not saved would be left behind.
//
// These do not write, so they do not ask: sessions list | show | search |
// export, projects list | show, prompts list | export, knowledge list |
// search, turns, usage, eval runs | show | diff, and db check | backup |
// salvage (which open the file read-only). serve and the window open a damaged file to show what is
// readable; the window asks before each new turn (SendRequest.Force).
//
// eval --temporal hands the command to agentdeck-worker, which opens the
// file itself; before it does, handOver asks the same of the mark a
// damaged file has beside it (mayHandOver).

// writeStore is what mayWrite asks of the database.
type writeStore interface {
	RefuseWrite(what string, force bool) error
}

var _ writeStore = (*store.DB)(nil)

// forceFlagOf adds the --force flag of every command that writes.
func forceFlagOf(fs *flag.FlagSet) *bool {
	return fs.Bool("force", false, "write even into a database known to be damaged")
}

// mayWrite is the check every command that writes goes through: ExitOK to
// go on, or the refusal printed and its exit code. what is what the
// command would not do ("import the session").
func mayWrite(db writeStore, what string, force bool, env Env) int {
	if err := db.RefuseWrite(what, force); err != nil {
		return fail(env, err)
	}
	return ExitOK
}

// mayHandOver is mayWrite for eval --temporal, whose worker opens the file
// itself: it asks the mark a damaged file has beside it (the worker's
// process cannot print the refusal this one would), and gives back args
// without --force, a flag of this command line that the worker does not
// take.
func mayHandOver(args []string, env Env) ([]string, int) {
	dbFlag, force, rest := handOverFlags(args)
	// A database that cannot be found has no mark: the worker says why.
	path, err := paths.DBPath(dbFlag, env.Paths)
	if damaged, reason := store.MarkedDamaged(path); err == nil && damaged && !force {
		env.damage.print(env, path, reason)
		what := "run the suite"
		de := &store.DamageError{Path: path, Doing: "declining to " + what, Reason: reason, Refused: true, Declined: what}
		return nil, fail(env, apperr.Wrap(de, apperr.Damaged, "%s", de.Short()))
	}
	return rest, ExitOK
}

// handOverFlags finds --db and --force among an eval command's args
// (before a "--"), and returns the args without --force.
func handOverFlags(args []string) (db string, force bool, rest []string) {
	end := slices.Index(args, "--")
	if end < 0 {
		end = len(args)
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case i >= end || !strings.HasPrefix(a, "-"):
		case name == "force":
			force = !hasValue
			if hasValue {
				force, _ = strconv.ParseBool(value)
			}
			continue
		case name == "db" && hasValue:
			db = value
		case name == "db" && i+1 < end:
			db = args[i+1]
			rest = append(rest, a)
			i++
			a = args[i]
		}
		rest = append(rest, a)
	}
	return db, force, rest
}

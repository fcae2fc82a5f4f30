package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/agentdeck/agentdeck/backend/arena"
	"github.com/agentdeck/agentdeck/backend/store"
)

const arenaUsage = `agentdeck: usage:
  agentdeck arena votes [--project NAME] [--limit N] [--json]
  agentdeck arena board [--project NAME] [--json]
--project names a project by name or id, or - for the sessions in none; without it, every session's votes.`

// arenaStore is what the arena commands read of the database.
type arenaStore interface {
	ListVotes(ctx context.Context, f store.VoteFilter) ([]store.VoteRecord, error)
	VoteTargets(ctx context.Context, f store.VoteFilter) ([]string, error)
	projectFinder
}

var _ arenaStore = (*store.DB)(nil)

// arenaOptions are the arena commands' flags.
type arenaOptions struct {
	project string
	limit   int
	asJSON  bool
}

// cmdArena shows the votes cast on side-by-side answers and the
// leaderboard they make (package arena):
//
//	agentdeck arena votes [--project NAME] [--limit N] [--json]
//	agentdeck arena board [--project NAME] [--json]
func cmdArena(ctx context.Context, args []string, env Env) int {
	if len(args) == 0 || (args[0] != "votes" && args[0] != "board") {
		if len(args) > 0 {
			fmt.Fprintf(env.Stderr, "agentdeck: unknown arena command %q\n", args[0])
		}
		fmt.Fprintln(env.Stderr, arenaUsage)
		return ExitUsage
	}
	sub := args[0]
	fs := newFlagSet("arena "+sub, env)
	dbFlag := dbFlagOf(fs)
	var o arenaOptions
	fs.StringVar(&o.project, "project", "", "the project, by name or id (- for the sessions in none); default every session")
	fs.IntVar(&o.limit, "limit", 200, "votes: at most this many, newest first (at most 10000)")
	fs.BoolVar(&o.asJSON, "json", false, "print JSON")
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return ExitUsage
	}
	if len(pos) > 0 || o.limit < 1 {
		fmt.Fprintln(env.Stderr, arenaUsage)
		return ExitUsage
	}
	return withDB(ctx, *dbFlag, env, func(db *store.DB) int {
		return arenaRun(ctx, db, sub, o, env)
	})
}

// arenaRun runs an arena command whose usage was checked.
func arenaRun(ctx context.Context, db arenaStore, sub string, o arenaOptions, env Env) int {
	f := store.VoteFilter{Project: o.project, Limit: o.limit}
	if o.project != "" && o.project != store.NoProject {
		p, err := findProject(ctx, db, o.project)
		if err != nil {
			return fail(env, err)
		}
		f.Project = p.ID
	}
	if sub == "board" {
		f.Limit = 10000
	}
	recs, err := db.ListVotes(ctx, f)
	if err != nil {
		return fail(env, err)
	}
	if sub == "votes" {
		return printVotes(recs, o.asJSON, env)
	}
	targets, err := db.VoteTargets(ctx, f)
	if err != nil {
		return fail(env, err)
	}
	return printBoard(boardOf(recs, targets), o.asJSON, env)
}

// boardOf rates the votes; targets are those to list even with no vote.
func boardOf(recs []store.VoteRecord, targets []string) arena.Board {
	votes := make([]arena.Vote, len(recs))
	for i, r := range recs {
		votes[i] = arena.Vote{Targets: r.Targets, Winner: r.Winner}
	}
	return arena.Rate(votes, targets)
}

func printVotes(recs []store.VoteRecord, asJSON bool, env Env) int {
	if asJSON {
		return printJSON(env, recs)
	}
	if len(recs) == 0 {
		fmt.Fprintln(env.Stderr, "no votes yet: vote on a side-by-side answer in the app")
		return ExitOK
	}
	w := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "WHEN\tVERDICT\tTARGETS\tSESSION\tMESSAGE")
	for _, r := range recs {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", r.CreatedAt.Local().Format("2006-01-02 15:04"), verdict(r), strings.Join(r.Targets, " | "),
			oneLine(r.SessionTitle, 30), oneLine(r.Message, 50))
	}
	return flushTable(w, env)
}

// verdict says how a vote came out, as a person reads it.
func verdict(r store.VoteRecord) string {
	var v string
	switch r.Outcome {
	case store.VoteWin:
		v = r.Winner + " better"
	case store.VoteTie:
		v = "tie"
	default:
		v = "both bad"
	}
	if r.Blind {
		v += " (blind)"
	}
	return v
}

func printBoard(b arena.Board, asJSON bool, env Env) int {
	if asJSON {
		return printJSON(env, b)
	}
	if len(b.Ratings) == 0 {
		fmt.Fprintln(env.Stderr, "no votes yet: vote on a side-by-side answer in the app")
		return ExitOK
	}
	w := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "RANK\tTARGET\tSCORE\t95% INTERVAL\tVOTES\tW/L/T")
	for _, r := range b.Ratings {
		if r.Rank == 0 {
			fmt.Fprintf(w, "-\t%s\t-\t-\t0\t-\n", r.Target)
			continue
		}
		fmt.Fprintf(w, "%d\t%s\t%.0f\t%.0f–%.0f\t%d\t%d/%d/%d\n", r.Rank, r.Target, r.Score, r.Low, r.High, r.Votes, r.Wins, r.Losses, r.Ties)
	}
	if code := flushTable(w, env); code != ExitOK {
		return code
	}
	fmt.Fprintf(env.Stderr, "%d votes, %d comparisons; %s\n", b.Votes, b.Comparisons, b.Method)
	return ExitOK
}

func flushTable(w *tabwriter.Writer, env Env) int {
	if err := w.Flush(); err != nil {
		fmt.Fprintf(env.Stderr, "agentdeck: writing output: %v\n", err)
		return ExitFailed
	}
	return ExitOK
}

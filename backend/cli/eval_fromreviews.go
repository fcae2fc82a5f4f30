package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/store"
)

const fromReviewsUsage = "agentdeck eval from-reviews [--rated down|up|reviewed] [--label L] [--since 7d|DATE] [--until DATE] [--project P] [--session ID] [--limit N] [--name NAME] [--models a,b] [-o SUITE.yaml]"

// cmdEvalFromReviews makes an evaluation suite of reviewed turns (eval.
// SuiteFromReviewed): each case starts from its recorded turn, a turn
// rated down must not do again what its review says. To -o FILE (added
// to it when it is a suite already, skipping turns it has a case of), or
// to stdout.
func cmdEvalFromReviews(ctx context.Context, args []string, env Env) int {
	fs := newFlagSet("eval from-reviews", env)
	dbFlag := dbFlagOf(fs)
	rated := fs.String("rated", store.RatedDown, "the turns rated down, up, or reviewed at all (on the turn or a step)")
	label := fs.String("label", "", "only the turns with this label")
	since := fs.String("since", "", "turns started since this long ago (7d, 12h) or this day (YYYY-MM-DD)")
	until := fs.String("until", "", "turns started before this day (YYYY-MM-DD)")
	project := fs.String("project", "", "the project, by name or id (- for the sessions in none)")
	session := fs.String("session", "", "only this session's turns")
	limit := fs.Int("limit", 0, "at most this many turns, newest first (default 200)")
	name := fs.String("name", "", "the new suite's name (default from-reviews)")
	models := fs.String(eval.FlagModels, "", "the suite's provider/model, comma-separated (default: the models the turns ran on)")
	out := fs.String("o", "", "write the suite to FILE; an existing suite file gets the cases added (default: stdout)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return ExitUsage
	}
	if len(pos) != 0 {
		fmt.Fprintf(env.Stderr, "agentdeck: usage: %s\n", fromReviewsUsage)
		return ExitUsage
	}
	f := store.ReviewFilter{Rated: *rated, Label: *label, SessionID: *session, Limit: *limit}
	if *since != "" {
		t, err := parseSince(*since, time.Now())
		if err != nil {
			return fail(env, err)
		}
		if !t.IsZero() {
			f.Since = &t
		}
	}
	if *until != "" {
		t, err := parseDay(*until)
		if err != nil {
			return fail(env, apperr.Wrap(err, apperr.Invalid, "--until: %s", apperr.MessageOf(err)))
		}
		f.Until = &t
	}
	return withDB(ctx, *dbFlag, env, func(db *store.DB) int {
		f.Project = *project
		if f.Project != "" && f.Project != store.NoProject {
			p, err := findProject(ctx, db, f.Project)
			if err != nil {
				return fail(env, err)
			}
			f.Project = p.ID
		}
		return writeReviewSuite(ctx, db, f, eval.ReviewSuiteOptions{Name: *name, Models: splitModels(*models)}, *out, env)
	})
}

// writeReviewSuite makes the suite and writes it to path (stdout when ""),
// adding to the suite there if there is one.
func writeReviewSuite(ctx context.Context, db eval.ReviewSource, f store.ReviewFilter, o eval.ReviewSuiteOptions, path string, env Env) int {
	old, err := os.ReadFile(path)
	existing := path != "" && err == nil
	switch {
	case path == "" || errors.Is(err, os.ErrNotExist):
	case err != nil:
		return fail(env, apperr.Wrap(err, apperr.Unavailable, "%s cannot be read: %v", path, err))
	}
	have := map[string]bool{}
	if existing {
		s, err := eval.ParseAt(path, old)
		if err != nil {
			fmt.Fprintf(env.Stderr, "agentdeck: %s is there and is not a suite that reads; mend it, or write to another file:\n", path)
			return suiteProblems(env, err)
		}
		if len(o.Models) == 0 {
			o.Models = s.Models
		}
		for _, c := range s.Cases {
			have[c.ID] = true
		}
	}
	suite, err := eval.SuiteFromReviewed(ctx, db, f, o)
	if err != nil {
		return fail(env, err)
	}
	kept, skipped := suite.Cases[:0], 0
	for _, c := range suite.Cases {
		if have[c.ID] {
			skipped++
			continue
		}
		kept = append(kept, c)
	}
	suite.Cases = kept
	if len(kept) == 0 {
		return fail(env, apperr.New(apperr.Conflict, "%s already has a case of every turn picked (%d): nothing to add.", path, skipped))
	}
	text, err := eval.SuiteYAML(suite)
	if err != nil {
		return fail(env, err)
	}
	if path == "" {
		_, err := env.Stdout.Write(text)
		if err != nil {
			return fail(env, err)
		}
		return ExitOK
	}
	if existing {
		if text, err = eval.AppendCases(old, text); err != nil {
			return fail(env, err)
		}
	}
	if _, err := eval.ParseAt(path, text); err != nil {
		fmt.Fprintf(env.Stderr, "agentdeck: the suite made would not read back, so %s was left as it was:\n", path)
		return suiteProblems(env, err)
	}
	if err := os.WriteFile(path, text, 0o644); err != nil {
		return fail(env, apperr.Wrap(err, apperr.Unavailable, "%s cannot be written: %v", path, err))
	}
	verb := "Wrote"
	if existing {
		verb = "Added"
	}
	fmt.Fprintf(env.Stderr, "%s %s to %s", verb, eval.Plural(len(kept), "1 case", fmt.Sprintf("%d cases", len(kept))), path)
	if skipped > 0 {
		fmt.Fprintf(env.Stderr, " (%s already in it)", eval.Plural(skipped, "1 turn was", fmt.Sprintf("%d turns were", skipped)))
	}
	fmt.Fprintf(env.Stderr, ". Run it with: agentdeck eval %s\n", path)
	return ExitOK
}

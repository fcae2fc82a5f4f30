package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/store"
	usagefmt "github.com/agentdeck/agentdeck/backend/usage"
)

// cmdUsage prints tokens and cost over time, from the costs kept with each
// model call (replays cost nothing and are left out):
//
//	agentdeck usage [--since 30d|YYYY-MM-DD] [--until YYYY-MM-DD] [--by model|provider|workflow|day|kind] [--json|--csv]
func cmdUsage(ctx context.Context, args []string, env Env) int {
	fs := newFlagSet("usage", env)
	dbFlag := dbFlagOf(fs)
	since := fs.String("since", "30d", "from this long ago (30d, 12h) or this day (YYYY-MM-DD); \"all\" for everything")
	until := fs.String("until", "", "up to this day (YYYY-MM-DD, exclusive; default now)")
	by := fs.String("by", store.UsageByModel, "group by model, provider, workflow or day")
	asJSON := fs.Bool("json", false, "print JSON")
	asCSV := fs.Bool("csv", false, "print CSV, a row a group")
	top := fs.Int("top", 10, "how many of the costliest sessions and turns to list")
	pos, err := parseInterleaved(fs, args)
	if err != nil || len(pos) != 0 || (*asJSON && *asCSV) {
		fmt.Fprintln(env.Stderr, "agentdeck: usage: agentdeck usage [--since 30d] [--by model|provider|workflow|day|kind] [--json|--csv]")
		return ExitUsage
	}
	now := time.Now()
	q := store.UsageQuery{By: *by, Top: *top}
	if q.Since, err = parseSince(*since, now); err != nil {
		return fail(env, err)
	}
	if *until != "" {
		if q.Until, err = parseDay(*until); err != nil {
			return fail(env, err)
		}
	}
	return withDB(ctx, *dbFlag, env, func(db *store.DB) int {
		rep, err := db.Usage(ctx, q)
		if err != nil {
			return fail(env, err)
		}
		switch {
		case *asJSON:
			return printJSON(env, rep)
		case *asCSV:
			return usageCSV(env, rep)
		}
		usageText(env, rep)
		return ExitOK
	})
}

// parseSince reads "30d", "12h", "all" or a day.
func parseSince(s string, now time.Time) (time.Time, error) {
	switch {
	case s == "all" || s == "":
		return time.Time{}, nil
	case strings.HasSuffix(s, "d"):
		if n, err := strconv.Atoi(strings.TrimSuffix(s, "d")); err == nil && n >= 0 {
			return now.AddDate(0, 0, -n), nil
		}
	default:
		if d, err := time.ParseDuration(s); err == nil && d >= 0 {
			return now.Add(-d), nil
		}
	}
	if t, err := parseDay(s); err == nil {
		return t, nil
	}
	return time.Time{}, apperr.New(apperr.Invalid, "--since %q is not a span (30d, 12h), a day (YYYY-MM-DD) or \"all\".", s)
}

// parseDay reads YYYY-MM-DD as the start of that day here.
func parseDay(s string) (time.Time, error) {
	t, err := time.ParseInLocation(time.DateOnly, s, time.Local)
	if err != nil {
		return time.Time{}, apperr.New(apperr.Invalid, "%q is not a day; write it as YYYY-MM-DD.", s)
	}
	return t, nil
}

func usageCSV(env Env, rep store.UsageReport) int {
	if err := usagefmt.WriteCSV(env.Stdout, rep); err != nil {
		return fail(env, err)
	}
	return ExitOK
}

func usageText(env Env, rep store.UsageReport) {
	span := "all time"
	if rep.Since != "" {
		span = "since " + rep.Since[:10]
	}
	if rep.Until != "" {
		span += " until " + rep.Until[:10]
	}
	t := rep.Total
	fmt.Fprintf(env.Stdout, "Usage %s: %d model %s · %d in / %d out tokens · %s cached · %s\n\n", span, t.Calls, eval.Plural(t.Calls, "call", "calls"),
		t.InputTokens, t.OutputTokens, share(t.CachedInputTokens, t.InputTokens), sumCostText(t))
	if e := rep.Evaluations; e.Calls > 0 {
		fmt.Fprintf(env.Stdout, "Of which evaluation runs: %d %s · %d in / %d out tokens · %s\n\n", e.Calls, eval.Plural(e.Calls, "call", "calls"),
			e.InputTokens, e.OutputTokens, sumCostText(e))
	}
	if len(rep.Rows) == 0 {
		fmt.Fprintln(env.Stdout, "No model calls in this span.")
		return
	}
	fmt.Fprintf(env.Stdout, "%-32s %6s %12s %12s %7s %12s\n", strings.ToUpper(rep.By), "CALLS", "IN", "OUT", "CACHED", "COST")
	for _, r := range rep.Rows {
		fmt.Fprintf(env.Stdout, "%-32s %6d %12d %12d %7s %12s\n", clip(firstNonEmpty(r.Key, "(not recorded)"), 32), r.Calls, r.InputTokens, r.OutputTokens,
			share(r.CachedInputTokens, r.InputTokens), rowCost(r.UsageSum))
	}
	if len(rep.TopTurns) > 0 {
		fmt.Fprintln(env.Stdout, "\nCostliest turns:")
		for _, it := range rep.TopTurns {
			fmt.Fprintf(env.Stdout, "  %10s  %s  #%d in %q: %s\n", rowCost(it.UsageSum), it.TurnID, it.Seq, clip(it.Title, 40), clip(it.Message, 60))
		}
	}
}

// rowCost is a group's cost for the table: "-" when none of its calls
// had a price, "~" before an estimate, "+" after a sum missing some.
func rowCost(u store.UsageSum) string {
	if u.Calls > 0 && u.Unpriced == u.Calls {
		return "-"
	}
	s := usd(u.CostUSD)
	if u.Estimated {
		s = "~" + s
	}
	if u.Unpriced > 0 {
		s += "+"
	}
	return s
}

// share is part of whole as a percentage.
func share(part, whole int64) string {
	if whole <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(part)/float64(whole))
}

package cli

import (
	"cmp"
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/store"
)

// A run's report, as agentdeck eval prints it when the run ends, as
// agentdeck eval show prints it again, and as agentdeck-worker prints it
// when a run on Temporal came home: one function for all three.

// EvalReportFormat is how a run's report is printed: as text, or as JSON
// (--json), on stdout; and also as JUnit XML to the file JUnit names
// (--junit), when it names one.
type EvalReportFormat struct {
	JSON  bool
	JUnit string
}

// PrintEvalReport prints rep in format f on env.Stdout, and writes its
// JUnit file, if f names one. It returns ExitOK, or the exit code of what
// could not be written, said on env.Stderr.
func PrintEvalReport(env Env, rep eval.RunReport, f EvalReportFormat) int {
	if code := printEvalReport(env, rep, f.JSON); code != ExitOK {
		return code
	}
	return reportJUnit(f.JUnit, rep, env)
}

// evalReport is a run as eval and eval show print it: what the window shows.
type evalReport = eval.RunReport

// evalReportOf reads run id and its results.
func evalReportOf(ctx context.Context, db evalStore, id string) (evalReport, error) {
	return eval.ReportOf(ctx, db, id)
}

// printEvalReport prints rep on stdout, as text or JSON.
func printEvalReport(env Env, rep evalReport, asJSON bool) int {
	if asJSON {
		return printJSON(env, rep)
	}
	run := rep.Run
	fmt.Fprintf(env.Stdout, "Suite %s · %s · capture %s", run.SuiteName, run.State, run.Capture)
	if run.FromRunID != "" {
		fmt.Fprintf(env.Stdout, " from run %s", run.FromRunID)
	}
	fmt.Fprintf(env.Stdout, " · %d of %d passed\n\n", rep.Passed, rep.Planned)
	tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tPASSED\tRATE\tMEDIAN LATENCY\tCOST")
	for _, m := range rep.Models {
		cost := usd(m.CostUSD)
		switch {
		case m.Unpriced == m.Total:
			cost = "-"
		case m.Unpriced > 0:
			cost += "+" // some costs unknown
		}
		rate := fmt.Sprintf("%.0f%%", 100*m.PassRate)
		if m.Passed+m.Failed == 0 {
			rate = "-" // none ran to an answer that was checked
		}
		fmt.Fprintf(tw, "%s\t%d/%d\t%s\t%d ms\t%s\n", m.Model, m.Passed, m.Total, rate, m.MedianLatencyMS, cost)
	}
	tw.Flush()
	var failing []eval.CellResult
	for _, r := range rep.Results {
		if r.State != store.EvalPassed {
			failing = append(failing, r)
		}
	}
	if len(failing) > 0 {
		fmt.Fprintf(env.Stdout, "\nNot passed (%d):\n", len(failing))
		tw = tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "CASE\tMODEL\t#\tSTATE\tREASON\tTURN")
		for _, r := range failing {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", r.CaseID, r.Model, r.Repeat, r.State,
				oneLine(r.Reason(), 80), cmp.Or(r.TurnID, "-"))
		}
		tw.Flush()
		fmt.Fprintln(env.Stdout, "Open a case's turn with: agentdeck turns show TURN")
	}
	if n := rep.Planned - rep.Total; n > 0 {
		fmt.Fprintf(env.Stdout, "\n%d %s not run (the run was stopped).\n", n, eval.Plural(n, "case was", "cases were"))
	}
	fmt.Fprintf(env.Stdout, "\nRun %s; see it again with: agentdeck eval show %s\n", run.ID, run.ID)
	return ExitOK
}

package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/setup"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/yamlcheck"
)

// cmdEval runs an evaluation suite, or looks at the runs there were:
//
//	agentdeck eval SUITE.yaml [--models a,b] [--filter REGEX] [--repeat N] [--concurrency N]
//	                          [--capture record|replay|auto] [--from RUN_ID] [--json] [--junit FILE]
//	agentdeck eval runs [--suite NAME] [--json]
//	agentdeck eval show RUN_ID [--json]
//	agentdeck eval diff RUN_A RUN_B [--json]
//	agentdeck eval from-reviews [--rated down] [--label L] [--since 7d] [-o SUITE.yaml]   a suite of reviewed turns (eval_fromreviews.go)
//	agentdeck eval SUITE.yaml --temporal HOST:PORT --share DIR [...]   on Temporal workers (handover.go)
//
// A suite file named runs, show, diff or from-reviews is given as ./runs.
func cmdEval(ctx context.Context, args []string, env Env) int {
	if len(args) > 0 {
		switch args[0] {
		case "runs", "show", "diff":
			return cmdEvalLook(ctx, args[0], args[1:], env)
		case "from-reviews":
			return cmdEvalFromReviews(ctx, args[1:], env)
		}
	}
	if wantsTemporal(args) {
		rest, code := mayHandOver(args, env)
		if code != ExitOK {
			return code
		}
		return handOver(ctx, rest, env)
	}
	return cmdEvalRun(ctx, args, env)
}

const evalUsage = "agentdeck eval SUITE.yaml [--models a,b] [--filter REGEX] [--repeat N] [--concurrency N] [--capture record|replay|auto] [--from RUN_ID] [--json] [--junit FILE]"

// evalStore is what looking at evaluation runs uses of the database.
type evalStore interface {
	EvalRun(ctx context.Context, id string) (store.EvalRun, error)
	EvalRuns(ctx context.Context, suite string, limit int) ([]store.EvalRun, error)
	EvalRunTallies(ctx context.Context, suite string, limit int) ([]store.EvalRunTally, error)
	EvalResults(ctx context.Context, runID string) ([]store.EvalResult, error)
}

var (
	_ evalStore       = (*store.DB)(nil)
	_ eval.SuiteStore = (*store.DB)(nil)
)

func cmdEvalRun(ctx context.Context, args []string, env Env) int {
	fs := newFlagSet("eval", env)
	dbFlag := dbFlagOf(fs)
	models := fs.String(eval.FlagModels, "", "run these provider/model, comma-separated, instead of the suite's")
	filter := fs.String(eval.FlagFilter, "", "run only the cases whose id matches this regular expression")
	repeat := fs.Int(eval.FlagRepeat, 0, "run each case on each model N times (default: the suite's)")
	concurrency := fs.Int(eval.FlagConcurrency, 1, "how many cases run at once")
	capture := fs.String(eval.FlagCapture, "", "record (default), replay (offline, from an earlier run's recordings) or auto")
	from := fs.String(eval.FlagFrom, "", "with --capture replay: the run whose recordings are served (default: the suite's latest recorded run)")
	asJSON := fs.Bool("json", false, "print the run's report as JSON")
	junit := fs.String("junit", "", "also write the results as JUnit XML to FILE")
	force := forceFlagOf(fs)
	var mcpf mcpFlags
	mcpf.register(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return ExitUsage
	}
	if len(pos) != 1 {
		fmt.Fprintf(env.Stderr, "agentdeck: usage: %s\n", evalUsage)
		return ExitUsage
	}
	opts, err := eval.ParseRunOptions(eval.RunFlags{Models: splitModels(*models), Filter: *filter, Repeat: *repeat,
		Concurrency: *concurrency, Capture: *capture, FromRunID: *from})
	if err != nil {
		fmt.Fprintf(env.Stderr, "agentdeck: %s\n", flagProblem(err))
		return ExitUsage
	}
	if code := mcpf.check(env); code != ExitOK {
		return code
	}
	suite, err := eval.Load(pos[0])
	if err != nil {
		return suiteProblems(env, err)
	}
	// The run keeps where its suite came from; absolute, it still names
	// the file when read from another folder (the window, a later replay).
	if abs, err := filepath.Abs(suite.Source); err == nil {
		suite.Source = abs
	}
	db, path, code := openDB(ctx, *dbFlag, env)
	if db == nil {
		return code
	}
	defer db.Close()
	if code := mayWrite(db, "run the suite", *force, env); code != ExitOK {
		return code
	}
	return runEvalSuite(ctx, db, path, suite, opts, mcpf, *force, *asJSON, *junit, env)
}

// forcedTurns starts every turn of an evaluation with Force: the person
// passed --force to write into a damaged file (mayWrite).
type forcedTurns struct{ eval.Turns }

func (f forcedTurns) Start(ctx context.Context, req runner.Request) (*runner.Handle, error) {
	req.Force = true
	return f.Turns.Start(ctx, req)
}

// runEvalSuite runs the suite on the engine, Ctrl+C stopping it, and
// reports the run: 0 every case passed, 1 some did not, 130 stopped.
func runEvalSuite(ctx context.Context, db *store.DB, path string, suite *eval.Suite, opts eval.RunOptions, mcpf mcpFlags, force, asJSON bool, junit string, env Env) int {
	log := quietLogger(env, path)
	eng, err := setup.Build(ctx, db, mcpf.options(setup.Options{DataDir: dataDir(path), Logger: log}))
	if err != nil {
		return fail(env, err)
	}
	defer eng.Close()
	if code := connectMCP(ctx, eng, mcpf, env); code != ExitOK {
		return code
	}

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	release := stopOnSignal(env, cancel)
	bar := &evalProgress{w: env.Stderr, tty: isTerminal(env.Stderr)}
	var turns eval.Turns = eng.Runner
	if force {
		turns = forcedTurns{turns}
	}
	run, err := eval.RunSuite(runCtx, db, eval.NewCellRunner(db, turns, nil, log), suite, opts, bar.update)
	bar.finish()
	release()
	if err != nil {
		return fail(env, err)
	}
	rep, err := evalReportOf(context.WithoutCancel(ctx), db, run.ID)
	if err != nil {
		return fail(env, err)
	}
	if code := PrintEvalReport(env, rep, EvalReportFormat{JSON: asJSON, JUnit: junit}); code != ExitOK {
		return code
	}
	switch {
	case run.State == store.EvalCancelled:
		return ExitCancelled
	case rep.Passed == rep.Planned:
		return ExitOK
	}
	return ExitFailed
}

// flagProblem says a refused run option by its flag (--models).
func flagProblem(err error) string {
	var fe *eval.RunFlagError
	if errors.As(err, &fe) {
		return fe.Say(func(flag string) string { return "--" + flag })
	}
	return err.Error()
}

// suiteProblems prints each problem of a suite file on a line of its own,
// file:line:col first as compilers do, so an editor can jump to it.
func suiteProblems(env Env, err error) int {
	var ps yamlcheck.Problems
	if !errors.As(err, &ps) || len(ps) == 0 {
		return fail(env, err)
	}
	for _, p := range ps {
		fmt.Fprintln(env.Stderr, p.Error())
	}
	fmt.Fprintf(env.Stderr, "agentdeck: the suite has %d %s; nothing was run\n", len(ps), eval.Plural(len(ps), "problem", "problems"))
	return ExitUsage
}

// stopOnSignal cancels the run at the first signal (its running cases
// stop and are stored cancelled) and exits at once at a second. release
// stops watching.
func stopOnSignal(env Env, cancel context.CancelFunc) (release func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		stopped := false
		for {
			select {
			case <-done:
				return
			case <-env.Signals:
				if stopped {
					fmt.Fprintln(env.Stderr, "agentdeck: stopped at once")
					env.Exit(ExitCancelled)
					return
				}
				stopped = true
				fmt.Fprintln(env.Stderr, "\nagentdeck: stopping the running cases (press Ctrl+C again to quit at once)")
				cancel()
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// evalProgress shows on stderr how far a run is: a bar redrawn in place
// on a terminal, else a line per finished case (a CI log).
type evalProgress struct {
	w     io.Writer
	tty   bool
	drawn bool
}

// update is an eval.Progress; RunSuite calls it one cell at a time.
func (p *evalProgress) update(done, total int, in eval.Cell, out eval.CellOutput, err error) {
	state := out.State
	if err != nil {
		state = "error: " + apperr.MessageOf(err)
	}
	line := fmt.Sprintf("[%d/%d] %s · %s #%d %s", done, total, in.CaseID, in.Model, in.Repeat, state)
	if !p.tty {
		fmt.Fprintln(p.w, line)
		return
	}
	const width = 20
	filled := width * done / max(total, 1)
	fmt.Fprintf(p.w, "\r\x1b[K%s%s %s", strings.Repeat("█", filled), strings.Repeat("░", width-filled), oneLine(line, 100))
	p.drawn = true
}

// finish ends the bar's line.
func (p *evalProgress) finish() {
	if p.drawn {
		fmt.Fprintln(p.w)
	}
}

// oneLine is s on one line, cut to n characters (not bytes: a reason may
// quote any text).
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// cmdEvalLook runs eval runs, show or diff.
func cmdEvalLook(ctx context.Context, sub string, args []string, env Env) int {
	fs := newFlagSet("eval "+sub, env)
	dbFlag := dbFlagOf(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	suite, junit := "", ""
	switch sub {
	case "runs":
		fs.StringVar(&suite, "suite", "", "only the runs of this suite (its name)")
	case "show":
		fs.StringVar(&junit, "junit", "", "also write the run's results as JUnit XML to FILE")
	}
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return ExitUsage
	}
	if want := map[string]int{"runs": 0, "show": 1, "diff": 2}[sub]; len(pos) != want {
		fmt.Fprintf(env.Stderr, "agentdeck: usage: agentdeck eval %s\n",
			map[string]string{"runs": "runs [--suite NAME] [--json]", "show": "show RUN_ID [--json] [--junit FILE]", "diff": "diff RUN_A RUN_B [--json]"}[sub])
		return ExitUsage
	}
	return withDB(ctx, *dbFlag, env, func(db *store.DB) int {
		switch sub {
		case "runs":
			return evalRuns(ctx, db, suite, *asJSON, env)
		case "show":
			rep, err := evalReportOf(ctx, db, pos[0])
			if err != nil {
				return fail(env, err)
			}
			return PrintEvalReport(env, rep, EvalReportFormat{JSON: *asJSON, JUnit: junit})
		}
		return evalDiff(ctx, db, pos[0], pos[1], *asJSON, env)
	})
}

func evalRuns(ctx context.Context, db evalStore, suite string, asJSON bool, env Env) int {
	runs, err := db.EvalRunTallies(ctx, suite, 0)
	if err != nil {
		return fail(env, err)
	}
	// A run with how many of its cells passed; the list leaves out its
	// suite (eval show has it).
	type listed struct {
		store.EvalRun
		Suite  json.RawMessage `json:"suite,omitempty"`
		Passed int             `json:"passed"`
		Total  int             `json:"total"` // planned
	}
	rows := []listed{}
	for _, r := range runs {
		rows = append(rows, listed{EvalRun: r.Run, Passed: r.Passed, Total: max(eval.PlannedOf(r.Run), r.Results)})
	}
	if asJSON {
		return printJSON(env, struct {
			Runs []listed `json:"runs"`
		}{rows})
	}
	if len(rows) == 0 {
		fmt.Fprintln(env.Stdout, "No evaluation runs yet. Run one with: agentdeck eval SUITE.yaml")
		return ExitOK
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSUITE\tSTATE\tSTARTED\tPASSED\tCAPTURE")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d/%d\t%s\n", r.ID, r.SuiteName, r.State, r.StartedAt.Local().Format("2006-01-02 15:04"), r.Passed, r.Total, r.Capture)
	}
	tw.Flush()
	return ExitOK
}

// evalDiff prints how run b differs from run a, case by case
// (eval.DiffRuns, as the window shows it).
func evalDiff(ctx context.Context, db evalStore, a, b string, asJSON bool, env Env) int {
	repA, err := evalReportOf(ctx, db, a)
	if err != nil {
		return fail(env, err)
	}
	repB, err := evalReportOf(ctx, db, b)
	if err != nil {
		return fail(env, err)
	}
	d := eval.DiffRuns(repA, repB)
	if asJSON {
		return printJSON(env, d)
	}
	fmt.Fprintf(env.Stdout, "Run A %s (%s, %s) vs run B %s (%s, %s)\n", a, repA.Run.SuiteName, repA.Run.StartedAt.Local().Format("2006-01-02 15:04"),
		b, repB.Run.SuiteName, repB.Run.StartedAt.Local().Format("2006-01-02 15:04"))
	for _, g := range []struct {
		title string
		cells []eval.DiffCell
	}{
		{"Regressions (passed in A, not in B)", d.Regressions},
		{"Fixes (passed in B, not in A)", d.Fixes},
		{"Still failing", d.StillFailing},
		{"Only in A", d.OnlyA},
		{"Still running", d.Running},
		{"Only in B", d.OnlyB},
	} {
		fmt.Fprintf(env.Stdout, "\n%s: %d\n", g.title, len(g.cells))
		for _, c := range g.cells {
			fmt.Fprintf(env.Stdout, "  %s · %s #%d: %s → %s", c.CaseID, c.Model, c.Repeat, stateOf(c.A), stateOf(c.B))
			if last := cmp.Or(c.B, c.A); last.Reason() != "" {
				fmt.Fprintf(env.Stdout, " (%s)", oneLine(last.Reason(), 80))
				if last.TurnID != "" {
					fmt.Fprintf(env.Stdout, " turn %s", last.TurnID)
				}
			}
			fmt.Fprintln(env.Stdout)
		}
	}
	fmt.Fprintf(env.Stdout, "\nPassed in both: %d\n", d.Same)
	return ExitOK
}

func stateOf(r *eval.CellResult) string {
	if r == nil {
		return "-"
	}
	return r.State
}

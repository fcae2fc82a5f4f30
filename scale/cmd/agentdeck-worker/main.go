// Command agentdeck-worker runs evaluations on Temporal: as a worker
// that runs cells on its own database, or as the side that starts a run
// and collects it home. `agentdeck eval --temporal HOST:PORT` hands over
// to it, so the app's binary carries no Temporal code.
//
//	agentdeck-worker worker --temporal HOST:PORT --share DIR [--db FILE] [--name NAME] [--concurrency N]
//	agentdeck-worker eval SUITE.yaml --temporal HOST:PORT --share DIR [--db FILE]
//	    [--models a,b] [--filter REGEX] [--repeat N] [--batch N] [--json] [--junit FILE]
//	agentdeck-worker collect RUN_ID --temporal HOST:PORT --share DIR [--db FILE]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/cli"
	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/paths"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/scale/evalflow"
	"github.com/agentdeck/agentdeck/scale/exchange"
	"github.com/agentdeck/agentdeck/scale/submit"
	"github.com/agentdeck/agentdeck/scale/worker"
)

// Exit codes, as agentdeck's: 0 every case passed, 1 some did not (or a
// failure), 2 bad usage, 130 stopped.
const (
	exitOK        = 0
	exitFailed    = 1
	exitUsage     = 2
	exitCancelled = 130
)

const usage = `Usage:
  agentdeck-worker worker --temporal HOST:PORT --share DIR [--db FILE] [--name NAME] [--concurrency N]
      run cells of evaluation runs: turns are stored in FILE, ended cells put in DIR
  agentdeck-worker eval SUITE.yaml --temporal HOST:PORT --share DIR [--db FILE] [--models a,b]
      [--filter REGEX] [--repeat N] [--batch N] [--json] [--junit FILE]
      run a suite on the workers and collect every cell into FILE (default: agentdeck's database)
  agentdeck-worker collect RUN_ID --temporal HOST:PORT --share DIR [--db FILE] [--json] [--junit FILE]
      wait for a run whose eval process ended before it did, and collect it
`

func main() {
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	os.Exit(run(os.Args[1:], signals, os.Stdout, os.Stderr))
}

func run(args []string, signals <-chan os.Signal, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "worker":
		return cmdWorker(args[1:], signals, stderr)
	case "eval":
		return cmdEval(args[1:], signals, stdout, stderr)
	case "collect":
		return cmdCollect(args[1:], signals, stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "agentdeck-worker: unknown command %q\n%s", args[0], usage)
	return exitUsage
}

// common are the flags both commands take.
type common struct {
	temporal, namespace, share, db *string
	verbose                        *bool
}

func commonFlags(fs *flag.FlagSet) common {
	return common{
		temporal:  fs.String("temporal", "", "the Temporal server, HOST:PORT"),
		namespace: fs.String("namespace", "default", "the Temporal namespace"),
		share:     fs.String("share", "", "the folder runs and their cells are exchanged through (the same for every worker)"),
		db:        fs.String("db", "", "database file (default: agentdeck's; env AGENTDECK_DB)"),
		verbose:   fs.Bool("verbose", false, "log everything to stderr (a worker logs its warnings and errors without it)"),
	}
}

func (c common) check(stderr io.Writer) bool {
	if *c.temporal == "" || *c.share == "" {
		fmt.Fprintln(stderr, "agentdeck-worker: --temporal and --share are needed")
		return false
	}
	return true
}

// logger logs to stderr: everything from Info with --verbose; else a
// worker (a service someone looks after) its warnings and errors, and the
// starting side nothing (its output is the report).
func (c common) logger(stderr io.Writer, service bool) *slog.Logger {
	switch {
	case *c.verbose:
		return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	case service:
		return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	return slog.New(slog.DiscardHandler)
}

func (c common) dbPath() (string, error) {
	p, err := paths.DBPath(*c.db, paths.OSEnv())
	if err != nil {
		return "", apperr.Wrap(err, apperr.Invalid, "Cannot find the data directory (%v); pass --db.", err)
	}
	return p, nil
}

func cmdWorker(args []string, signals <-chan os.Signal, stderr io.Writer) int {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := commonFlags(fs)
	name := fs.String("name", "", "this worker's name in scores (default: host-pid)")
	concurrency := fs.Int("concurrency", 4, "how many cells run at once here")
	heartbeat := fs.Duration("heartbeat-every", time.Second, "how often a running cell tells Temporal it is alive")
	if err := fs.Parse(args); err != nil || fs.NArg() != 0 || !c.check(stderr) {
		return exitUsage
	}
	if *concurrency < 1 {
		fmt.Fprintln(stderr, "agentdeck-worker: --concurrency must be 1 or more")
		return exitUsage
	}
	path, err := c.dbPath()
	if err != nil {
		return fail(stderr, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-signals
		cancel()
	}()
	err = worker.Serve(ctx, worker.Config{HostPort: *c.temporal, Namespace: *c.namespace, DBPath: path, Share: *c.share,
		Name: *name, Concurrency: *concurrency, Heartbeat: *heartbeat, Logger: c.logger(stderr, true)})
	if err != nil {
		return fail(stderr, err)
	}
	return exitOK
}

func cmdEval(args []string, signals <-chan os.Signal, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := commonFlags(fs)
	models := fs.String("models", "", "run these provider/model, comma-separated, instead of the suite's")
	filter := fs.String("filter", "", "run only the cases whose id matches this regular expression")
	repeat := fs.Int("repeat", 0, "run each case on each model N times (default: the suite's)")
	batch := fs.Int("batch", 0, "cells per workflow before the run fans out in child workflows (default 500)")
	heartbeat := fs.Duration("heartbeat", evalflow.DefaultActivity.Heartbeat, "how long a cell's worker may go unheard before the cell is given to another")
	attempts := fs.Int("attempts", int(evalflow.DefaultActivity.MaxAttempts), "how many times a cell is tried when its worker dies or its model is busy")
	capture := fs.String("capture", "", "record (default) or auto; a replay runs here, without --temporal")
	from := fs.String("from", "", "not on Temporal: a replay runs here, without --temporal")
	concurrency := fs.Int("concurrency", 0, "not on Temporal: each worker's own --concurrency says how many cells it runs at once")
	report := reportFlags(fs)
	suitePath, ok := parseOne(fs, args, c, stderr)
	if !ok {
		return exitUsage
	}
	if *heartbeat < time.Second || *attempts < 1 || *batch < 0 {
		fmt.Fprintln(stderr, "agentdeck-worker: --heartbeat must be 1s or more, --attempts 1 or more, --batch 0 or more")
		return exitUsage
	}
	if *concurrency != 0 {
		fmt.Fprintln(stderr, "agentdeck-worker: --concurrency is each worker's on Temporal: give it to agentdeck-worker worker")
		return exitUsage
	}
	opts, err := eval.ParseRunOptions(eval.RunFlags{Models: strings.Split(*models, ","), Filter: *filter, Repeat: *repeat, Capture: *capture, FromRunID: *from})
	if err != nil {
		fmt.Fprintf(stderr, "agentdeck-worker: %v\n", flagged(err))
		return exitUsage
	}
	if opts.Capture == "replay" {
		fmt.Fprintln(stderr, "agentdeck-worker: a replay needs no model and reads the recordings in this database: run it here, without --temporal")
		return exitUsage
	}
	suite, err := eval.Load(suitePath)
	if err != nil {
		return fail(stderr, err)
	}
	if abs, err := filepath.Abs(suite.Source); err == nil {
		suite.Source = abs
	}
	h, err := c.openHome(stderr)
	if err != nil {
		return fail(stderr, err)
	}
	defer h.stop()
	defer h.close()
	sr, err := eval.NewSuiteRun(h.ctx, h.db, suite, opts)
	if err != nil {
		return fail(stderr, err)
	}
	go stopOnSignal(h.ctx, signals, h.stop, stderr, "stopping the run's cells")
	fmt.Fprintf(stderr, "agentdeck-worker: run %s: %d cells on Temporal at %s\n", sr.Run.ID, sr.Planned(), *c.temporal)
	timeouts := evalflow.ActivityTimeouts{Heartbeat: *heartbeat, MaxAttempts: int32(*attempts)}
	bar := newProgress(stderr)
	out, err := submit.Run(h.ctx, h.db, sr, submit.Config{Client: h.tc, Share: h.share, BatchSize: *batch, Activity: timeouts, Logger: h.log,
		Started:  func(id string) { fmt.Fprintf(stderr, "agentdeck-worker: workflow %s started\n", id) },
		Progress: bar.update, ProgressEvery: bar.every})
	bar.finish()
	h.close()
	return reportRun(sr.Run.ID, h.path, out, err, report(), stdout, stderr)
}

// cmdCollect waits for a run an earlier eval started, whose process
// ended before the run did, and collects it home.
func cmdCollect(args []string, signals <-chan os.Signal, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("collect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := commonFlags(fs)
	report := reportFlags(fs)
	runID, ok := parseOne(fs, args, c, stderr)
	if !ok {
		return exitUsage
	}
	h, err := c.openHome(stderr)
	if err != nil {
		return fail(stderr, err)
	}
	defer h.stop()
	defer h.close()
	go stopOnSignal(h.ctx, signals, h.stop, stderr, "stopping waiting; the run goes on")
	fmt.Fprintf(stderr, "agentdeck-worker: waiting for run %s on Temporal at %s\n", runID, *c.temporal)
	bar := newProgress(stderr)
	out, err := submit.Resume(h.ctx, h.db, runID, submit.Config{Client: h.tc, Share: h.share, Logger: h.log, Detached: true,
		Progress: bar.update, ProgressEvery: bar.every})
	bar.finish()
	h.close()
	if apperr.CodeOf(err) == apperr.Cancelled {
		fail(stderr, err)
		return exitCancelled
	}
	return reportRun(runID, h.path, out, err, report(), stdout, stderr)
}

// progress shows how many cells are home: a bar redrawn in place on a
// terminal, else a line when the count changes, at most every 10 s (a
// CI log of a 40,000-cell run stays readable).
type progress struct {
	w     io.Writer
	tty   bool
	every time.Duration
	drawn bool
}

func newProgress(w io.Writer) *progress {
	f, ok := w.(*os.File)
	tty := false
	if ok {
		fi, err := f.Stat()
		tty = err == nil && fi.Mode()&os.ModeCharDevice != 0
	}
	p := &progress{w: w, tty: tty, every: 10 * time.Second}
	if tty {
		p.every = time.Second
	}
	return p
}

func (p *progress) update(home, planned int) {
	line := fmt.Sprintf("%d cells home", home)
	if planned > 0 {
		line = fmt.Sprintf("%d of %d cells home", home, planned)
	}
	if !p.tty {
		fmt.Fprintf(p.w, "agentdeck-worker: %s\n", line)
		return
	}
	const width = 20
	filled := 0
	if planned > 0 {
		filled = width * home / planned
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s%s %s", strings.Repeat("█", filled), strings.Repeat("░", width-filled), line)
	p.drawn = true
}

func (p *progress) finish() {
	if p.drawn {
		fmt.Fprintln(p.w)
	}
}

// home is the side that starts runs and collects them: its database, the
// shared folder, and Temporal, with the context eval and collect work in
// (stop cancels it: the first signal, through stopOnSignal, or the
// command as it returns).
type home struct {
	ctx   context.Context
	stop  context.CancelFunc
	db    *store.DB
	path  string
	share *exchange.Dir
	tc    client.Client
	log   *slog.Logger
	close func() // closes the database and the client, once
}

func (c common) openHome(stderr io.Writer) (h *home, err error) {
	ctx, stop := context.WithCancel(context.Background())
	defer func() {
		if err != nil {
			stop()
		}
	}()
	share, err := exchange.New(*c.share)
	if err != nil {
		return nil, err
	}
	path, err := c.dbPath()
	if err != nil {
		return nil, err
	}
	log := c.logger(stderr, false)
	db, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		return nil, err
	}
	tc, err := worker.Dial(*c.temporal, *c.namespace, log)
	if err != nil {
		db.Close()
		return nil, err
	}
	return &home{ctx: ctx, stop: stop, db: db, path: path, share: share, tc: tc, log: log, close: sync.OnceFunc(func() {
		tc.Close()
		db.Close()
	})}, nil
}

// reportFlags registers --json and --junit, which say how eval and
// collect print the run's report, as agentdeck eval's do.
func reportFlags(fs *flag.FlagSet) func() cli.EvalReportFormat {
	asJSON := fs.Bool("json", false, "print the run's report as JSON")
	junit := fs.String("junit", "", "also write the results as JUnit XML to FILE")
	return func() cli.EvalReportFormat { return cli.EvalReportFormat{JSON: *asJSON, JUnit: *junit} }
}

// reportRun says what came home, then prints the run's report from the
// database through the function agentdeck eval and eval show print it
// with, and returns agentdeck eval's exit code.
func reportRun(runID, dbPath string, out submit.Outcome, err error, format cli.EvalReportFormat, stdout, stderr io.Writer) int {
	fmt.Fprintf(stderr, "agentdeck-worker: %d cells came home (%d sessions, %d run more than once), %d failed on every attempt\n",
		out.Collected.Results, out.Collected.Sessions, out.Collected.Duplicates, out.Failed)
	if err != nil {
		fail(stderr, err)
	}
	if out.Run.ID == "" {
		return exitFailed
	}
	ctx := context.Background()
	db, openErr := store.OpenReadOnly(ctx, dbPath)
	if openErr != nil {
		return fail(stderr, openErr)
	}
	defer db.Close()
	rep, repErr := eval.ReportOf(ctx, db, runID)
	if repErr != nil {
		return fail(stderr, repErr)
	}
	if code := cli.PrintEvalReport(cli.Env{Stdout: stdout, Stderr: stderr}, rep, format); code != exitOK {
		return code
	}
	return exitCode(out, rep, err)
}

// exitCode is agentdeck eval's: 0 when every planned cell passed, 130
// when stopped, else 1 (read from the database, as the report was).
func exitCode(out submit.Outcome, rep eval.RunReport, err error) int {
	switch {
	case out.Run.State == store.EvalCancelled:
		return exitCancelled
	case err != nil || out.Run.State != store.EvalCompleted || rep.Passed != rep.Planned:
		return exitFailed
	}
	return exitOK
}

// stopOnSignal calls stop at the first signal, saying what that stops
// (eval: the run, whose running cells come home cancelled; collect: the
// waiting), and exits at once at a second.
func stopOnSignal(ctx context.Context, signals <-chan os.Signal, stop context.CancelFunc, stderr io.Writer, stopping string) {
	select {
	case <-ctx.Done():
		return
	case <-signals:
	}
	fmt.Fprintf(stderr, "\nagentdeck-worker: %s (press Ctrl+C again to quit at once)\n", stopping)
	stop()
	<-signals
	fmt.Fprintln(stderr, "agentdeck-worker: stopped at once")
	os.Exit(exitCancelled)
}

// parseOne parses a command of one positional argument (a suite, a run)
// and its flags, in any order; false is bad usage, already said.
func parseOne(fs *flag.FlagSet, args []string, c common, stderr io.Writer) (string, bool) {
	arg, rest := splitPositional(args)
	if err := fs.Parse(rest); err != nil || arg == "" || fs.NArg() != 0 || !c.check(stderr) {
		if arg == "" {
			fmt.Fprint(stderr, usage)
		}
		return "", false
	}
	return arg, true
}

// splitPositional takes the suite's path from args, wherever it is among
// the flags.
func splitPositional(args []string) (string, []string) {
	var rest []string
	path := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) && path == "" {
				path = args[i+1]
			}
			return path, rest
		case strings.HasPrefix(a, "-"):
			rest = append(rest, a)
			if !strings.Contains(a, "=") && takesValue(a) && i+1 < len(args) {
				i++
				rest = append(rest, args[i])
			}
		case path == "":
			path = a
		default:
			rest = append(rest, a)
		}
	}
	return path, rest
}

func takesValue(flagArg string) bool {
	switch strings.TrimLeft(flagArg, "-") {
	case "json", "verbose", "help", "h":
		return false
	}
	return true
}

// flagged says a run option's problem with its flag's name.
func flagged(err error) string {
	var fe *eval.RunFlagError
	if errors.As(err, &fe) {
		return fe.Say(func(f string) string { return "--" + f })
	}
	return err.Error()
}

func fail(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "agentdeck-worker: %s\n", apperr.MessageOf(err))
	return exitFailed
}

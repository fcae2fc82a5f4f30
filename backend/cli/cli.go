// Package cli is Agentdeck's command line: the desktop app when run with no
// command, and headless commands otherwise.
//
// Rules: commands write results to Stdout and everything for people
// (progress, errors) to Stderr. Errors are printed as their apperr message,
// never as a panic or a stack trace. Exit codes: 0 ok, 1 failed, 2 usage,
// 130 cancelled. --json output uses the same snake_case field names as the
// events and results. A command opens the database (and closes it); the
// code that does the work takes only the store methods it uses, an
// interface per command group declared beside it (sessionsStore, dbStore,
// providerStore, runStore, ...). The window and serve get the database as
// a setup.AppStore (DesktopStart, ServeStart), which main hands to app;
// the desktop's is nil, not a nil *store.DB, when it did not open.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/buildinfo"
	"github.com/agentdeck/agentdeck/backend/paths"
	"github.com/agentdeck/agentdeck/backend/setup"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/traces"
)

// Exit codes.
const (
	ExitOK        = 0
	ExitFailed    = 1
	ExitUsage     = 2
	ExitCancelled = 130
)

// DesktopStart is what the desktop app needs from the command line.
type DesktopStart struct {
	Logger *slog.Logger
	// DB is the open database; nil (the interface, not a nil *store.DB)
	// when opening failed with DBErr.
	DB     setup.AppStore
	DBPath string
	DBErr  error
}

// ServeStart is what the browser mode needs from the command line.
type ServeStart struct {
	Logger      *slog.Logger
	DB          setup.AppStore // open: serve stops before when it cannot open
	DBPath      string
	Addr        string
	AllowRemote bool
	// Ready prints the URL once the server listens.
	Ready func(url string)
	// OTLP, from --otlp-endpoint, sends each turn to an OpenTelemetry
	// collector, over the setting; nil: the setting decides.
	OTLP *traces.Config
}

// Env is everything Main reads from or writes to the outside world.
type Env struct {
	// Stdin is read by run --edit-tool-result - (default os.Stdin).
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	Paths   paths.Env
	Getenv  func(string) string
	Info    buildinfo.Info
	Desktop func(ctx context.Context, start DesktopStart) error
	Serve   func(ctx context.Context, start ServeStart) error
	// Signals delivers SIGINT/SIGTERM: the first stops a running turn, a
	// second exits at once. Nil in tests that send none.
	Signals <-chan os.Signal
	// Exit ends the process at once (a second SIGINT); default os.Exit.
	Exit func(code int)
	// FindWorker finds agentdeck-worker for eval --temporal; default: beside
	// this binary, else on PATH (handover.go).
	FindWorker func() (string, error)

	// logs are the command's log files (see quietLogger), set by Main
	// from --verbose and closed when it returns.
	logs *logs
	// damage prints the damaged-database notice once per command, set
	// by Main.
	damage *damageNotice
	// db is the --db given before the command (`agentdeck --db X run`),
	// set by Main; a --db after the command overrides it.
	db string
}

// takeLeadingDB takes the --db flags before the command, as git and
// docker take their global flags before theirs: `agentdeck --db X run`
// is `agentdeck run --db X`. (--verbose is taken wherever it stands,
// takeVerbose.) A --db without its value is a usage error.
func takeLeadingDB(args []string, env Env) (rest []string, db string, code int) {
	for len(args) > 0 {
		name, val, hasVal := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(args[0], "-"), "-"), "=")
		if !strings.HasPrefix(args[0], "-") || name != "db" {
			break
		}
		switch {
		case hasVal:
			db, args = val, args[1:]
		case len(args) < 2:
			fmt.Fprintf(env.Stderr, "agentdeck: --db needs a database file: --db PATH\n\n%s", usage)
			return nil, "", ExitUsage
		default:
			db, args = args[1], args[2:]
		}
	}
	return args, db, ExitOK
}

// dbOr is the database a command opens: its own --db, else the one given
// before the command.
func (env Env) dbOr(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	return env.db
}

const usage = `Usage:
  agentdeck                                  the desktop app
  agentdeck run [flags] PROMPT               run one turn headless
  agentdeck run --session ID --continue TURN_ID   continue an answer that was stopped or reached a limit
  agentdeck run --model A --model B [...] PROMPT   (or --models A,B) ask 2 to 4 models side by side; each answer
                                             printed whole under its target as it ends; exit 1 if any failed
  agentdeck run [--project NAME] [--system TEXT] [--temperature X] [--top-p X] [--max-tokens N] [--seed N] [--stop S]... [--reasoning-effort E] PROMPT
                                             a new session's settings (with --session: this turn's)
  agentdeck sessions list [--project NAME | --no-project] [--tag T] [--archived | --archived-only] [--json]
  agentdeck sessions show ID [--json]
  agentdeck sessions search QUERY [--project NAME | --no-project] [--tag T] [--json]
  agentdeck sessions export ID --format json|md|jsonl [-o FILE] [--all-branches]
  agentdeck sessions import FILE
  agentdeck sessions delete ID
  agentdeck sessions fork TURN_ID            a new session from the branch up to that turn; prints its id
  agentdeck sessions set ID KEY=VALUE... [--json]  a session's settings: system, temperature, top_p, max_tokens, seed, stop, reasoning_effort, model, provider, workflow (KEY= unsets)
  agentdeck sessions move ID PROJECT | --none   pin ID [--off] | tag ID TAG... [--remove TAG] [--clear] | archive ID [--off]
  agentdeck projects list | create NAME [--system TEXT --model M --temperature X ...] | show NAME | edit NAME [--name NEW] [--KEY=]
                     | delete NAME [--keep-sessions | --delete-sessions]   projects hold their sessions' defaults
  agentdeck run --from TURN_ID:STEP [--edit-message TEXT | --edit-system-prompt TEXT | --edit-tool-result FILE | --edit-reply TEXT | --edit-stage K=V]... [--no-side-effects]
                                             re-run a stored turn from a step with one edit: before it from the recordings, live after
  agentdeck turns show TURN_ID [--json] [--events]   a turn and its steps (the ids run --from takes)
  agentdeck turns tree SESSION_ID [--json]   the session's turns as a tree, the active branch marked *
  agentdeck turns diff TURN_A TURN_B [--json]   what changed: the two turns step by step from where B left A
  agentdeck replay TURN_ID [--strict] [--json] [--no-mcp | --mcp-config FILE]  replay a turn offline from its own recordings
  agentdeck serve [--addr 127.0.0.1:7788]    the UI in a browser
  agentdeck db check | db backup FILE | db salvage NEW_FILE   check, copy, or rescue a damaged database
  agentdeck providers list | add NAME --base-url URL [--model M] [--default] [--price IN,OUT[,CACHED]] [--window N] [--budget USD [--over ask|refuse]] | remove NAME
  agentdeck usage [--since 30d] [--by model|provider|workflow|day] [--json|--csv]   tokens and cost over time
  agentdeck eval SUITE.yaml [--models a,b] [--filter REGEX] [--repeat N] [--concurrency N] [--capture record|replay|auto] [--from RUN_ID] [--json] [--junit FILE]
                                             run an evaluation suite: exit 0 all passed, 1 some did not, 2 a bad suite
  agentdeck eval runs [--suite NAME] [--json] | eval show RUN_ID [--json] [--junit FILE] | eval diff RUN_A RUN_B [--json]
  agentdeck eval SUITE.yaml --temporal HOST:PORT --share DIR [...]
                                             run it on Temporal workers, through agentdeck-worker (docs/SCALE.md)
  agentdeck eval from-reviews [--rated down|up|reviewed] [--label L] [--since 7d|DATE] [--project P] [-o SUITE.yaml]
                                             make a suite of reviewed turns, each case from its recorded turn
  agentdeck prompts list [--project NAME] [--json] | prompts add NAME --body TEXT|--file F [--description D] [--project NAME]
  agentdeck prompts export [-o FILE] [--project NAME] | prompts import FILE [--json]   the prompt library as one YAML file
  agentdeck knowledge add FILE... | list | search QUERY [--limit N]   --session ID | --project NAME [--json]
                                             documents the model searches and cites (PDF, DOCX, Markdown, HTML, text)
  agentdeck knowledge remove DOC_ID [--json]   delete a document and its text from the database
  agentdeck arena votes | board [--project NAME] [--json]   the votes on side-by-side answers, and the leaderboard they make
  agentdeck version

Every command takes --db PATH (default: the user data directory; env AGENTDECK_DB)
and --verbose (the log, kept in agentdeck.log beside the database, also goes to stderr),
before the command or after it: agentdeck --db X run ... is agentdeck run --db X ....
Run 'agentdeck run --help' for the run flags.
`

// Main runs the command in args and returns the process exit code.
func Main(ctx context.Context, args []string, env Env) (code int) {
	defer func() {
		if v := recover(); v != nil {
			fmt.Fprintf(env.Stderr, "agentdeck: an internal error stopped the command (%v). Your data is safe; please report this.\n", v)
			code = ExitFailed
		}
	}()
	if env.Exit == nil {
		env.Exit = os.Exit
	}
	env.damage = &damageNotice{}
	args, env.logs = takeVerbose(args)
	defer env.logs.close()
	args, env.db, code = takeLeadingDB(args, env)
	if code != ExitOK {
		return code
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return cmdDesktop(ctx, args, env)
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "version":
		return cmdVersion(rest, env)
	case "help", "--help", "-h":
		fmt.Fprint(env.Stdout, usage)
		return ExitOK
	case "run":
		return cmdRun(ctx, rest, env)
	case "sessions":
		return cmdSessions(ctx, rest, env)
	case "turns":
		return cmdTurns(ctx, rest, env)
	case "replay":
		return cmdReplay(ctx, rest, env)
	case "serve":
		return cmdServe(ctx, rest, env)
	case "db":
		return cmdDB(ctx, rest, env)
	case "providers":
		return cmdProviders(ctx, rest, env)
	case "projects":
		return cmdProjects(ctx, rest, env)
	case "usage":
		return cmdUsage(ctx, rest, env)
	case "eval":
		return cmdEval(ctx, rest, env)
	case "prompts":
		return cmdPrompts(ctx, rest, env)
	case "knowledge":
		return cmdKnowledge(ctx, rest, env)
	case "arena":
		return cmdArena(ctx, rest, env)
	}
	fmt.Fprintf(env.Stderr, "agentdeck: unknown command %q\n\n%s", cmd, usage)
	return ExitUsage
}

func cmdVersion(args []string, env Env) int {
	fs := newFlagSet("version", env)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return ExitUsage
	}
	if *asJSON {
		return printJSON(env, env.Info)
	}
	// The version first and alone on its line's start: scripts read it
	// with awk '{print $2}'.
	fmt.Fprintf(env.Stdout, "agentdeck %s", env.Info.Version)
	if env.Info.Commit != "" {
		fmt.Fprintf(env.Stdout, " (commit %s)", env.Info.Commit)
	}
	fmt.Fprintln(env.Stdout)
	return ExitOK
}

func cmdDesktop(ctx context.Context, args []string, env Env) int {
	fs := newFlagSet("agentdeck", env)
	dbFlag := fs.String("db", "", "database file (default: the user data directory; env AGENTDECK_DB)")
	if err := fs.Parse(args); err != nil {
		return ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.Stderr, "agentdeck: unexpected argument %q\n\n%s", fs.Arg(0), usage)
		return ExitUsage
	}
	var start DesktopStart
	var db *store.DB
	start.DBPath, start.DBErr = paths.DBPath(env.dbOr(*dbFlag), env.Paths)
	if start.DBErr == nil {
		db, start.DBErr = store.Open(ctx, start.DBPath, store.Options{})
	}
	// After Open, which makes the folder the log file goes in.
	log := quietLogger(env, start.DBPath)
	start.Logger = log
	if start.DBErr != nil {
		// The window still opens and shows the problem; the person can fix
		// it without reading a terminal. start.DB stays nil: a failed
		// Open's nil *store.DB would make a non-nil AppStore.
		log.Error("database unavailable", "path", start.DBPath, "err", start.DBErr)
		fmt.Fprintf(env.Stderr, "agentdeck: %s\n", apperr.MessageOf(start.DBErr))
	} else {
		recoverOrphans(ctx, db, env)
		defer db.Close()
		start.DB = db
	}
	if err := env.Desktop(ctx, start); err != nil {
		fmt.Fprintf(env.Stderr, "agentdeck: the window could not start: %v\n", err)
		return ExitFailed
	}
	return ExitOK
}

func cmdServe(ctx context.Context, args []string, env Env) int {
	fs := newFlagSet("serve", env)
	dbFlag := dbFlagOf(fs)
	addr := fs.String("addr", "127.0.0.1:7788", "address to listen on")
	remote := fs.Bool("allow-remote", false, "allow listening on an address other machines can reach")
	var otlp otlpFlags
	otlp.register(fs)
	if err := fs.Parse(args); err != nil {
		return ExitUsage
	}
	if code := otlp.check(env); code != ExitOK {
		return code
	}
	db, path, code := openDB(ctx, *dbFlag, env)
	if db == nil {
		return code
	}
	defer db.Close()
	if *remote {
		fmt.Fprintf(env.Stderr, "agentdeck: WARNING: serving on %s; anyone who can reach it and has the token can use your sessions and keys\n", *addr)
	}
	log := quietLogger(env, path)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		if env.Signals != nil {
			select {
			case <-env.Signals:
				cancel()
			case <-ctx.Done():
			}
		}
	}()
	err := env.Serve(ctx, ServeStart{Logger: log, DB: db, DBPath: path, Addr: *addr, AllowRemote: *remote, OTLP: otlp.config(), Ready: func(url string) {
		fmt.Fprintf(env.Stdout, "Agentdeck is serving at\n\n  %s\n\nOpen it in a browser. Press Ctrl+C to stop.\n", url)
	}})
	if err != nil {
		return fail(env, err)
	}
	return ExitOK
}

// dbFlagOf adds the --db flag every command takes.
func dbFlagOf(fs *flag.FlagSet) *string {
	return fs.String("db", "", "database file (default: the user data directory; env AGENTDECK_DB)")
}

// openDB resolves and opens the database, printing a clear error, and
// marks interrupted the turns whose process died (a killed run), so no
// command shows them as running.
func openDB(ctx context.Context, flagValue string, env Env) (*store.DB, string, int) {
	path, err := paths.DBPath(env.dbOr(flagValue), env.Paths)
	if err != nil {
		return nil, "", fail(env, apperr.Wrap(err, apperr.Invalid, "cannot find the data directory (%v); pass --db", err))
	}
	// The first read or write that meets damage says so once, whatever
	// the command; its own errors then name only what failed.
	db, err := store.Open(ctx, path, store.Options{OnDamage: func(reason string) { env.damage.print(env, path, reason) }})
	if err != nil {
		return nil, path, fail(env, err)
	}
	if damaged, reason := db.Damaged(); damaged {
		// Found by an earlier command (store.DamageMark).
		env.damage.print(env, path, reason)
	}
	recoverOrphans(ctx, db, env)
	return db, path, ExitOK
}

// withDB opens the database as openDB does, gives it to use and closes it
// after: use's exit code, or openDB's when it could not open.
func withDB(ctx context.Context, flagValue string, env Env, use func(db *store.DB) int) int {
	db, _, code := openDB(ctx, flagValue, env)
	if db == nil {
		return code
	}
	defer db.Close()
	return use(db)
}

// openDBReadOnly opens an existing database to look at it: the db
// commands report and copy, and never change the file (no migration, no
// recovery, no checkpoint).
func openDBReadOnly(ctx context.Context, flagValue string, env Env) (*store.DB, int) {
	path, err := paths.DBPath(env.dbOr(flagValue), env.Paths)
	if err != nil {
		return nil, fail(env, apperr.Wrap(err, apperr.Invalid, "cannot find the data directory (%v); pass --db", err))
	}
	db, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		return nil, fail(env, err)
	}
	return db, ExitOK
}

// orphanRecoverer marks interrupted the turns of processes that died
// (store.DB.RecoverInterrupted): every command that opens the database
// for writing does it first.
type orphanRecoverer interface {
	RecoverInterrupted(ctx context.Context) (int, error)
}

var _ orphanRecoverer = (*store.DB)(nil)

// recoverOrphans marks interrupted the running turns whose process is
// gone. A failure is reported and the command goes on: it can still read.
func recoverOrphans(ctx context.Context, db orphanRecoverer, env Env) {
	// A damaged file is left alone (the notice said so).
	if _, err := db.RecoverInterrupted(ctx); err != nil && apperr.CodeOf(err) != apperr.Damaged {
		warn(env, "could not mark the turns of stopped processes as interrupted", err)
	}
}

// warn prints a problem the command works around.
func warn(env Env, doing string, err error) {
	fmt.Fprintf(env.Stderr, "agentdeck: %s: %s\n", doing, apperr.MessageOf(err))
}

// dataDir is where a database's companions live: its folder.
func dataDir(dbPath string) string { return filepath.Dir(dbPath) }

func newFlagSet(name string, env Env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	return fs
}

// fail prints err for a person and returns the failure exit code.
func fail(env Env, err error) int {
	var de *store.DamageError
	if errors.As(err, &de) && env.damage.said() {
		// The notice already said what is damaged and what to do.
		fmt.Fprintf(env.Stderr, "agentdeck: %s\n", de.Short())
		return ExitFailed
	}
	if apperr.CodeOf(err) == apperr.Damaged {
		env.damage.mark()
	}
	fmt.Fprintf(env.Stderr, "agentdeck: %s\n", apperr.MessageOf(err))
	if apperr.CodeOf(err) == apperr.Invalid {
		return ExitUsage
	}
	return ExitFailed
}

// parseInterleaved parses flags that may come after positional arguments
// (agentdeck sessions show ID --json).
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// damageNotice says once per command that the database is damaged, when
// a read or a write first meets the damage (store.Options.OnDamage) or
// when an error says so first.
type damageNotice struct {
	mu   sync.Mutex
	done bool
}

func (n *damageNotice) print(env Env, path, reason string) {
	if n == nil || !n.claim() {
		return
	}
	fmt.Fprintf(env.Stderr, "agentdeck: the database %s is damaged: %s. %s\n", path, reason, store.DamageAdvice(path))
}

// claim reports whether this is the first notice, and marks it given.
func (n *damageNotice) claim() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	first := !n.done
	n.done = true
	return first
}

func (n *damageNotice) mark() {
	if n != nil {
		n.claim()
	}
}

func (n *damageNotice) said() bool {
	if n == nil {
		return false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.done
}

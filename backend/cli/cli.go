// Package cli is Agentdeck's command line: the desktop app when run with no
// command, and headless commands otherwise.
//
// Rules: commands write results to Stdout and everything for people
// (progress, errors) to Stderr. Errors are printed as their apperr message,
// never as a panic or a stack trace. Exit codes: 0 ok, 1 failed, 2 usage,
// 130 cancelled.
package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/buildinfo"
	"github.com/agentdeck/agentdeck/backend/paths"
	"github.com/agentdeck/agentdeck/backend/store"
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
	DB     *store.DB // nil when opening failed
	DBPath string
	DBErr  error
}

// Env is everything Main reads from or writes to the outside world.
type Env struct {
	Stdout  io.Writer
	Stderr  io.Writer
	Paths   paths.Env
	Getenv  func(string) string
	Info    buildinfo.Info
	Desktop func(ctx context.Context, start DesktopStart) error
}

const usage = `Usage:
  agentdeck [--db PATH]             open the desktop app
  agentdeck version [--json]        print the version

Every command takes --db PATH (default: the user data directory; env AGENTDECK_DB).
`

// Main runs the command in args and returns the process exit code.
func Main(ctx context.Context, args []string, env Env) int {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "version":
			return cmdVersion(args[1:], env)
		case "help":
			fmt.Fprint(env.Stdout, usage)
			return ExitOK
		default:
			fmt.Fprintf(env.Stderr, "agentdeck: unknown command %q\n\n%s", args[0], usage)
			return ExitUsage
		}
	}
	return cmdDesktop(ctx, args, env)
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
	fmt.Fprintf(env.Stdout, "agentdeck %s\n", env.Info.Version)
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
	log := slog.New(slog.NewTextHandler(env.Stderr, nil))
	start := DesktopStart{Logger: log}
	start.DBPath, start.DBErr = paths.DBPath(*dbFlag, env.Paths)
	if start.DBErr == nil {
		start.DB, start.DBErr = store.Open(ctx, start.DBPath, store.Options{})
	}
	if start.DBErr != nil {
		// The window still opens and shows the problem; the person can fix
		// it without reading a terminal.
		log.Error("database unavailable", "path", start.DBPath, "err", start.DBErr)
		fmt.Fprintf(env.Stderr, "agentdeck: %s\n", apperr.MessageOf(start.DBErr))
	} else {
		defer start.DB.Close()
	}
	if err := env.Desktop(ctx, start); err != nil {
		fmt.Fprintf(env.Stderr, "agentdeck: the window could not start: %v\n", err)
		return ExitFailed
	}
	return ExitOK
}

func newFlagSet(name string, env Env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	return fs
}

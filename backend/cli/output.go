package cli

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/agentdeck/agentdeck/backend/logging"
)

// printJSON writes v as one indented JSON document.
func printJSON(env Env, v any) int {
	enc := json.NewEncoder(env.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(env.Stderr, "agentdeck: writing output: %v\n", err)
		return ExitFailed
	}
	return ExitOK
}

// quietLogger is the log of a command on the database at dbPath: the file
// agentdeck.log beside it, and stderr only with --verbose. A terminal never
// sees a log record otherwise; what a person must know is a message.
func quietLogger(env Env, dbPath string) *slog.Logger {
	if env.logs == nil {
		env.logs = &logs{} // a command run without Main: closed with the process
	}
	return env.logs.logger(env, dbPath)
}

// logs are the log files a command opened, one per folder.
type logs struct {
	verbose bool
	mu      sync.Mutex
	open    map[string]*logging.Logger
}

// takeVerbose removes --verbose (or -verbose, --verbose=BOOL) from args,
// wherever it stands before a "--", so every command takes it.
func takeVerbose(args []string) ([]string, *logs) {
	l := &logs{}
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		name, val, hasVal := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if strings.HasPrefix(a, "-") && name == "verbose" {
			b, err := strconv.ParseBool(val)
			l.verbose = !hasVal || (err == nil && b)
			continue
		}
		out = append(out, a)
	}
	return out, l
}

func (l *logs) logger(env Env, dbPath string) *slog.Logger {
	dir := ""
	if dbPath != "" {
		dir = filepath.Dir(dbPath)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if lg := l.open[dir]; lg != nil {
		return lg.Logger
	}
	opts := logging.Options{Dir: dir}
	if l.verbose {
		opts.Verbose = env.Stderr
	}
	lg := logging.New(opts)
	if l.open == nil {
		l.open = map[string]*logging.Logger{}
	}
	l.open[dir] = lg
	return lg.Logger
}

func (l *logs) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, lg := range l.open {
		_ = lg.Close()
	}
	l.open = nil
}

func jsonUnmarshal(b []byte, v any) error {
	if len(b) == 0 {
		return nil
	}
	return json.Unmarshal(b, v)
}

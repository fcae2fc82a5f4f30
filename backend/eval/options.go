package eval

import (
	"fmt"
	"regexp"
	"strings"
)

// How a person asks a run to differ from its suite: the command line's
// flags and the window's Run form give the same RunFlags, checked here
// once, and each says a problem in its own names for the options
// (RunFlagError.Say).

// The options of RunFlags as a RunFlagError names them: the command
// line's flags are these names after --.
const (
	FlagModels      = "models"
	FlagFilter      = "filter"
	FlagRepeat      = "repeat"
	FlagConcurrency = "concurrency"
	FlagCapture     = "capture"
	FlagFrom        = "from"
)

// RunFlags is what a person asked of a run, as given.
type RunFlags struct {
	// Models replace the suite's, "provider/model" each; blank ones are
	// skipped (a trailing comma, an empty field).
	Models []string
	// Filter is a regular expression the ids of the cases to run match.
	Filter string
	// Repeat replaces the suite's repeat; 0 keeps the suite's.
	Repeat int
	// Concurrency is how many cases run at once; 0 is one at a time.
	Concurrency int
	// MaxConcurrency bounds Concurrency; 0 leaves it unbounded.
	MaxConcurrency int
	// Capture is record, replay or auto; "" records, or replays when
	// FromRunID is set (naming the run to replay says it is a replay).
	Capture string
	// FromRunID is the run whose recordings a replay serves.
	FromRunID string
}

// RunFlagError is an option of RunFlags that cannot be used. Error says
// it with the names of the Flag constants; Say with a caller's own.
type RunFlagError struct {
	// Flag is the option, one of the Flag constants.
	Flag string
	// format says what is wrong; {name} stands for an option, named at
	// Say, and the verbs take args.
	format string
	args   []any
}

func (e *RunFlagError) Error() string { return e.Say(func(flag string) string { return flag }) }

// Say is the problem with every option called name(flag): the command
// line's --models, the window's label. The first word is an option's
// name, so a name that starts a sentence should be capitalised.
func (e *RunFlagError) Say(name func(flag string) string) string {
	format := optionName.ReplaceAllStringFunc(e.format, func(p string) string {
		return strings.ReplaceAll(name(p[1:len(p)-1]), "%", "%%")
	})
	return fmt.Sprintf(format, e.args...)
}

var optionName = regexp.MustCompile(`\{[a-z]+\}`)

// ParseRunOptions checks f and returns the options a run is given.
// Every error is a *RunFlagError.
func ParseRunOptions(f RunFlags) (RunOptions, error) {
	opts := RunOptions{Repeat: f.Repeat, Concurrency: max(f.Concurrency, 1), Capture: f.Capture, FromRunID: f.FromRunID}
	for _, m := range f.Models {
		if m = strings.TrimSpace(m); m == "" {
			continue
		}
		if p, name, ok := strings.Cut(m, "/"); !ok || p == "" || name == "" {
			return RunOptions{}, flagError(FlagModels, "{models}: %q is not a provider/model", m)
		}
		opts.Models = append(opts.Models, m)
	}
	if f.Filter != "" {
		re, err := regexp.Compile(f.Filter)
		if err != nil {
			return RunOptions{}, flagError(FlagFilter, "{filter} is not a regular expression: %v", err)
		}
		opts.Filter = re
	}
	if f.FromRunID != "" && f.Capture == "" {
		opts.Capture = "replay"
	}
	switch {
	case f.Repeat < 0 || f.Repeat > maxRepeat:
		return RunOptions{}, flagError(FlagRepeat, "{repeat} must be 1 to %d (0: the suite's), not %d", maxRepeat, f.Repeat)
	case f.Concurrency < 0:
		return RunOptions{}, flagError(FlagConcurrency, "{concurrency} must be 1 or more, not %d", f.Concurrency)
	case f.MaxConcurrency > 0 && f.Concurrency > f.MaxConcurrency:
		return RunOptions{}, flagError(FlagConcurrency, "{concurrency} must be 1 to %d, not %d", f.MaxConcurrency, f.Concurrency)
	case opts.Capture != "" && opts.Capture != "record" && opts.Capture != "replay" && opts.Capture != "auto":
		return RunOptions{}, flagError(FlagCapture, "{capture} must be record, replay or auto, not %q", f.Capture)
	case f.FromRunID != "" && opts.Capture != "replay":
		return RunOptions{}, flagError(FlagFrom, "{from} needs {capture} replay: it names the run whose recordings a replay serves")
	}
	return opts, nil
}

func flagError(flag, format string, args ...any) *RunFlagError {
	return &RunFlagError{Flag: flag, format: format, args: args}
}

// Plural is one when n is 1, else many: a count in a message ("1 case
// was", "3 cases were"), worded alike by the command line and the window.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

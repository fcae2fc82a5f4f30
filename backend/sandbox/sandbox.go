package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"go.starlark.net/lib/math"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/chart"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Limits bound one run. A zero field takes DefaultLimits' value.
type Limits struct {
	MaxSteps       uint64        `json:"max_steps,omitempty"`        // Starlark execution steps
	MaxOutputBytes int           `json:"max_output_bytes,omitempty"` // bytes print() may write
	Timeout        time.Duration `json:"timeout,omitempty"`          // wall time
	MaxMemoryBytes int64         `json:"max_memory_bytes,omitempty"` // growth of the Go heap while the script runs
}

// DefaultLimits are the limits of a run unless settings say otherwise.
func DefaultLimits() Limits {
	return Limits{MaxSteps: 100_000_000, MaxOutputBytes: 64 << 10, Timeout: 10 * time.Second, MaxMemoryBytes: 512 << 20}
}

// Or returns l with its zero fields taken from def.
func (l Limits) Or(def Limits) Limits {
	if l.MaxSteps == 0 {
		l.MaxSteps = def.MaxSteps
	}
	if l.MaxOutputBytes <= 0 {
		l.MaxOutputBytes = def.MaxOutputBytes
	}
	if l.Timeout <= 0 {
		l.Timeout = def.Timeout
	}
	if l.MaxMemoryBytes <= 0 {
		l.MaxMemoryBytes = def.MaxMemoryBytes
	}
	return l
}

// Names of the limits, as turn.CodeError.Limit reports them.
const (
	LimitSteps  = "steps"
	LimitMemory = "memory"
	LimitOutput = "output"
	LimitTime   = "time"
)

// Env is what a run is given: the session's tables (nil: none), the
// limits, and the validator a returned chart spec must pass (nil: a
// returned spec is only a value).
type Env struct {
	Tables Tables
	Limits Limits
	Charts *chart.Validator
}

// Result is what a run did. Error is set when the script failed or hit a
// limit; Output and Steps are what it did until then.
type Result struct {
	Output   string
	Value    string          // repr of `result`, "" when the script set none
	Chart    json.RawMessage // the validated spec when `result` is a chart
	Title    string          // the chart's title
	Error    *turn.CodeError
	Steps    uint64
	Duration time.Duration
}

// FileName is the name the script has in error positions.
const FileName = "script"

// fileOptions are the dialect's syntax: Starlark with the Python a model
// writes (while, top-level for and if, reassigned globals, recursion, set).
var fileOptions = &syntax.FileOptions{Set: true, While: true, TopLevelControl: true, GlobalReassign: true, Recursion: true}

// Run runs code under env. The error is nil unless ctx was cancelled
// (Stop: apperr.Cancelled) or the sandbox itself failed; the script's own
// errors and the limits it hit are in Result.Error.
func Run(ctx context.Context, code string, env Env) (Result, error) {
	lim := env.Limits.Or(DefaultLimits())
	start := time.Now()
	r := &run{lim: lim}
	thread := &starlark.Thread{Name: "run_code", Print: r.print, Load: refuseLoad}
	r.thread = thread
	thread.SetMaxExecutionSteps(lim.MaxSteps)
	thread.OnMaxSteps = func(*starlark.Thread) { r.stop(LimitSteps) }

	wctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	var tabs *tableMap
	if env.Tables != nil {
		tabs = newTableMap(wctx, env.Tables)
	}
	stopWatch := r.watch(ctx, wctx)
	globals, err := r.exec(thread, code, r.universe(tabs))
	stopWatch()
	cancel()

	res := Result{Output: r.out.String(), Steps: thread.ExecutionSteps(), Duration: time.Since(start)}
	if ctx.Err() != nil && r.hit() == "" {
		return res, apperr.Wrap(ctx.Err(), apperr.Cancelled, "The script was stopped.")
	}
	if limit := r.hit(); limit != "" {
		res.Error = r.limitError(limit, err)
		return res, nil
	}
	if err != nil {
		if tabs != nil && tabs.err != nil { // the tables could not be read
			return res, tabs.err
		}
		res.Error = scriptError(err)
		return res, nil
	}
	if v, ok := globals["result"]; ok && v != starlark.None {
		res.Value = r.valueText(v)
		if spec, title, ok := chartSpec(v); ok && env.Charts != nil {
			checked, err := env.Charts.Validate(spec, title, nil)
			if err != nil {
				res.Error = &turn.CodeError{Message: "result is a chart spec that is not valid: " + apperr.MessageOf(err)}
				return res, nil
			}
			res.Chart, res.Title = checked.Spec, checked.Title
		}
	}
	return res, nil
}

// run is the state of one run that the thread's callbacks share.
type run struct {
	lim    Limits
	thread *starlark.Thread
	out    strings.Builder
	// limit is the first limit hit; stopped says Stop cancelled the run.
	limit   atomic.Pointer[string]
	stopped atomic.Bool
}

func (r *run) print(_ *starlark.Thread, msg string) {
	if r.out.Len() > r.lim.MaxOutputBytes {
		return
	}
	room := r.lim.MaxOutputBytes - r.out.Len()
	if len(msg)+1 > room {
		r.out.WriteString(clipBytes(msg, room))
		r.out.WriteString("\n…")
		r.stop(LimitOutput)
		return
	}
	r.out.WriteString(msg)
	r.out.WriteByte('\n')
}

// stop cancels the thread for a limit; the first limit hit wins.
func (r *run) stop(limit string) {
	r.limit.CompareAndSwap(nil, &limit)
	r.thread.Cancel(limit)
}

// hit is the limit that stopped the run, "" if none.
func (r *run) hit() string {
	if l := r.limit.Load(); l != nil {
		return *l
	}
	return ""
}

// interrupted is the error a long built-in returns once the run was
// stopped or hit a limit, nil while it may go on.
func (r *run) interrupted() error {
	if l := r.hit(); l != "" {
		return fmt.Errorf("stopped by the %s limit", l)
	}
	if r.stopped.Load() {
		return errors.New("stopped")
	}
	return nil
}

func (r *run) limitError(limit string, err error) *turn.CodeError {
	var msg string
	switch limit {
	case LimitSteps:
		msg = fmt.Sprintf("the script ran more than %d steps (the steps limit) and was stopped: do less work, e.g. aggregate fewer rows or loop less", r.lim.MaxSteps)
	case LimitOutput:
		msg = fmt.Sprintf("the script printed more than %d bytes (the output limit) and was stopped: print less, e.g. a summary or the first rows", r.lim.MaxOutputBytes)
	case LimitTime:
		msg = fmt.Sprintf("the script ran longer than %s (the time limit) and was stopped: do less work", r.lim.Timeout)
	case LimitMemory:
		msg = fmt.Sprintf("the script used more than %d MiB of memory (the memory limit) and was stopped: keep fewer or smaller values", r.lim.MaxMemoryBytes>>20)
	}
	ce := &turn.CodeError{Message: msg, Limit: limit}
	if pos, ok := errorPos(err); ok {
		ce.Line, ce.Col = int(pos.Line), int(pos.Col)
	}
	return ce
}

// exec parses, guards (guardRepeats), compiles and runs code.
func (r *run) exec(thread *starlark.Thread, code string, predeclared starlark.StringDict) (starlark.StringDict, error) {
	f, err := fileOptions.Parse(FileName, code, 0)
	if err != nil {
		return nil, err
	}
	guardRepeats(f)
	prog, err := starlark.FileProgram(f, predeclared.Has)
	if err != nil {
		return nil, err
	}
	return prog.Init(thread, predeclared)
}

// valueText is the repr of result, cut at the output limit; one too
// large to make is named by its type and size instead.
func (r *run) valueText(v starlark.Value) string {
	if n := reprSize(v, 4*int64(r.lim.MaxOutputBytes)); n > 4*int64(r.lim.MaxOutputBytes) {
		return fmt.Sprintf("<%s, more than %d bytes as text: print a part of it>", v.Type(), 4*r.lim.MaxOutputBytes)
	}
	return clipRunes(v.String(), r.lim.MaxOutputBytes)
}

func refuseLoad(*starlark.Thread, string) (starlark.StringDict, error) {
	return nil, errors.New("load() is not available: there are no modules to load; math, json, sum and tables are built in")
}

// universe is what a script sees besides Starlark's built-ins: no
// module that reaches a file, the network or the clock.
func (r *run) universe(tabs *tableMap) starlark.StringDict {
	if tabs == nil {
		tabs = newTableMap(context.Background(), nil)
	}
	return starlark.StringDict{
		"math":     math.Module,
		"json":     r.jsonModule(),
		"str":      r.guardText(starlark.Universe["str"].(*starlark.Builtin)),
		"repr":     r.guardText(starlark.Universe["repr"].(*starlark.Builtin)),
		"print":    starlark.NewBuiltin("print", r.printFn),
		".join":    r.method(".join"),
		".replace": r.method(".replace"),
		".format":  r.method(".format"),
		"sum":      starlark.NewBuiltin("sum", r.sum),
		"range":    starlark.NewBuiltin("range", r.rangeFn),
		repeatName: starlark.NewBuiltin(repeatName, r.repeat),
		"tables":   tabs,
	}
}

package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// ToolName is the run_code tool's name.
const ToolName = "run_code"

// NewTool returns run_code: it runs a script under env and reports it as
// a code_run event, and its chart, when it returns one, as a chart event.
// It is read-only and deterministic, so a replay runs it again.
func NewTool(env Env) tool.Tool {
	env.Limits = env.Limits.Or(DefaultLimits())
	return &codeTool{env: env}
}

type codeTool struct{ env Env }

// description is what the model is told: the dialect's differences from
// Python, the globals, and the limits.
const description = `Run a script in Starlark, a small deterministic dialect of Python, to compute what SQL cannot express (loops, simulations, string work over many rows). ` +
	`It runs in a sandbox: no imports (load() is refused), no files, network or clock. ` +
	`Allowed beyond plain Starlark: while loops, top-level for/if, reassigning globals, recursion, set(). ` +
	`Differences from Python: no classes, no try/except (an error stops the script; fail(msg) stops it yourself), no with, no yield, no f-strings (use "%%s" %% x or "{}".format(x)), ` +
	`no is (use ==), no del, no ** (use math.pow), no chained comparisons (a < b < c), no global statement (a function cannot assign a global), ` +
	`strings are not iterable (use s.elems() or s.split()), 7 // 2 is 3 and 1 / 2 is 0.5, ints are unbounded, dicts keep insertion order. ` +
	`Built in: print(), len, range, sorted, min, max, sum, abs, enumerate, zip, any, all, str, int, float, repr, type, list, dict, set, tuple, ` +
	`math (math.sqrt, math.floor, math.round, math.log, math.pi, ...) and json (json.encode, json.decode). ` +
	`%s` +
	`Set the global result to return a value; a dict that is a Vega-Lite v6 spec (with "mark" and "$schema" or "encoding", rows in data.values) is drawn as a chart. ` +
	`Limits: %d steps, %d bytes of printed output, %s of time, %d MiB of memory; hitting one stops the script and names it. An error names its line:col.`

const tablesNote = `The session's attached tables are in the read-only global tables (empty when none are attached): tables["sales"] is a table; len(t) rows; for row in t (each row a frozen dict by column name); t[i]; t.columns; t.column("amount") a list of that column's values; t.rows; tables.keys(). ` +
	`Cells are int, float, string, bool or None. `

func (c *codeTool) Spec() tool.Spec {
	// The same words with tables or without: a table attached later must
	// not change what a replay of an earlier turn offers.
	lim := c.env.Limits
	return tool.Spec{
		Name:        ToolName,
		Description: fmt.Sprintf(description, tablesNote, lim.MaxSteps, lim.MaxOutputBytes, lim.Timeout, lim.MaxMemoryBytes>>20),
		Parameters: json.RawMessage(`{
  "type": "object",
  "properties": {
    "code": {"type": "string", "minLength": 1, "description": "The Starlark script"}
  },
  "required": ["code"],
  "additionalProperties": false
}`),
	}
}

func (c *codeTool) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	var in struct {
		Code string `json:"code"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return "", apperr.Wrap(err, apperr.Invalid, `Expected the arguments {"code": "..."}.`)
	}
	res, err := Run(ctx, in.Code, c.env)
	if err != nil {
		return "", err
	}
	tool.Emit(ctx, turn.Draft{Data: turn.CodeRunData{
		CallID: tool.CallID(ctx), Code: in.Code, Output: res.Output, Value: res.Value, Chart: res.Chart,
		Error: res.Error, Steps: int64(res.Steps), DurationMS: res.Duration.Milliseconds(),
	}})
	if res.Chart != nil {
		tool.Emit(ctx, turn.Draft{Data: turn.ChartData{Spec: res.Chart, Title: res.Title}})
	}
	return Report(res), nil
}

// Report is a run's result as the model reads it: output, value, chart,
// error with line:col or the limit hit. It leaves out the duration, so a
// replay of a deterministic script reads the same.
func Report(res Result) string {
	var b strings.Builder
	if res.Output != "" {
		b.WriteString("Output:\n")
		b.WriteString(res.Output)
		if !strings.HasSuffix(res.Output, "\n") {
			b.WriteByte('\n')
		}
	}
	switch {
	case res.Chart != nil: // the spec is the model's own; its repr would only cost tokens
		b.WriteString("result is a chart; it is shown to the user.\n")
	case res.Value != "":
		fmt.Fprintf(&b, "result = %s\n", res.Value)
	}
	if e := res.Error; e != nil {
		switch {
		case e.Limit != "":
			fmt.Fprintf(&b, "Stopped by the %s limit", e.Limit)
		default:
			b.WriteString("Error")
		}
		if e.Line > 0 {
			fmt.Fprintf(&b, " at line %d:%d", e.Line, e.Col)
		}
		fmt.Fprintf(&b, ": %s\n", e.Message)
	}
	if b.Len() == 0 {
		b.WriteString("The script ran and printed nothing; set result to return a value.\n")
	}
	return b.String()
}

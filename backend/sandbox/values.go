package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/agentdeck/agentdeck/backend/chart"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// scriptError is a syntax or runtime error of the script, at its line
// and column.
func scriptError(err error) *turn.CodeError {
	ce := &turn.CodeError{Message: err.Error()}
	var se syntax.Error
	var rl resolve.ErrorList
	var ee *starlark.EvalError
	switch {
	case errors.As(err, &se):
		ce.Message = se.Msg
	case errors.As(err, &rl) && len(rl) > 0:
		ce.Message = rl[0].Msg
		if len(rl) > 1 {
			ce.Message += fmt.Sprintf(" (and %d more errors)", len(rl)-1)
		}
	case errors.As(err, &ee):
		ce.Message = ee.Msg
	}
	if pos, ok := errorPos(err); ok {
		ce.Line, ce.Col = int(pos.Line), int(pos.Col)
	}
	return ce
}

// errorPos is where in the script err happened: a syntax error's
// position, or the innermost frame of the script in a runtime error's
// backtrace (a built-in it called has no position).
func errorPos(err error) (syntax.Position, bool) {
	var se syntax.Error
	var rl resolve.ErrorList
	var ee *starlark.EvalError
	switch {
	case errors.As(err, &se):
		return se.Pos, true
	case errors.As(err, &rl) && len(rl) > 0:
		return rl[0].Pos, true
	case errors.As(err, &ee):
		for i := len(ee.CallStack) - 1; i >= 0; i-- {
			if pos := ee.CallStack[i].Pos; pos.Filename() == FileName && pos.Line > 0 {
				return pos, true
			}
		}
	}
	return syntax.Position{}, false
}

// chartSpec is v as a Vega-Lite spec when it looks like one: a dict with
// "mark" and "$schema" or "encoding". Its "title", when a string, is the
// chart's title.
func chartSpec(v starlark.Value) (json.RawMessage, string, bool) {
	d, ok := v.(*starlark.Dict)
	if !ok {
		return nil, "", false
	}
	has := func(k string) bool { _, found, _ := d.Get(starlark.String(k)); return found }
	if !has("mark") || !(has("$schema") || has("encoding")) {
		return nil, "", false
	}
	if reprSize(d, 2*chart.MaxSpecBytes) > 2*chart.MaxSpecBytes {
		// Too large for the validator, which says so; not made here,
		// since a value held many times would make it huge.
		return json.RawMessage(`{"too_large": "` + strings.Repeat("x", chart.MaxSpecBytes) + `"}`), "", true
	}
	g, err := toGo(d, 0)
	if err != nil {
		return nil, "", false
	}
	b, err := json.Marshal(g)
	if err != nil {
		return nil, "", false
	}
	title, _ := g.(map[string]any)["title"].(string)
	return b, title, true
}

// toGo turns a Starlark value into one encoding/json encodes.
func toGo(v starlark.Value, depth int) (any, error) {
	if depth > 100 {
		return nil, errors.New("nested too deeply")
	}
	switch x := v.(type) {
	case starlark.NoneType:
		return nil, nil
	case starlark.Bool:
		return bool(x), nil
	case starlark.Int:
		if n, ok := x.Int64(); ok {
			return n, nil
		}
		f, _ := starlark.AsFloat(x)
		return f, nil
	case starlark.Float:
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, nil
		}
		return float64(x), nil
	case starlark.String:
		return string(x), nil
	case starlark.Bytes:
		return string(x), nil
	case *starlark.Dict:
		m := make(map[string]any, x.Len())
		for _, kv := range x.Items() {
			k, ok := starlark.AsString(kv[0])
			if !ok {
				return nil, fmt.Errorf("a key is not a string: %s", kv[0])
			}
			g, err := toGo(kv[1], depth+1)
			if err != nil {
				return nil, err
			}
			m[k] = g
		}
		return m, nil
	case starlark.Iterable:
		var out []any
		it := x.Iterate()
		defer it.Done()
		var e starlark.Value
		for it.Next(&e) {
			g, err := toGo(e, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, g)
		}
		return out, nil
	}
	return v.String(), nil
}

// fromGo is a table cell as a Starlark value.
func fromGo(v any) starlark.Value {
	switch x := v.(type) {
	case nil:
		return starlark.None
	case int64:
		return starlark.MakeInt64(x)
	case int:
		return starlark.MakeInt(x)
	case float64:
		return starlark.Float(x)
	case string:
		return starlark.String(x)
	case bool:
		return starlark.Bool(x)
	case []byte:
		if utf8.Valid(x) {
			return starlark.String(x)
		}
		return starlark.Bytes(x)
	}
	return starlark.String(fmt.Sprint(v))
}

// clipBytes cuts s to at most n bytes, on a rune boundary.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// clipRunes cuts s to at most n bytes, marking the cut.
func clipRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return clipBytes(s, n) + "…"
}

package sandbox

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// guardedMethods are the string methods whose result can be much larger
// than their arguments: sep.join(l) (len(sep) times len(l)), s.replace
// (len(new) times the matches) and s.format (an argument many times).
// guardRepeats compiles x.name(args) for these as a call of the built-in
// "."+name with x first, which measures the result before it is made.
var guardedMethods = map[string]bool{"join": true, "replace": true, "format": true}

// guardMethod rewrites a call of a guarded method.
func guardMethod(c *syntax.CallExpr) {
	dot, ok := c.Fn.(*syntax.DotExpr)
	if !ok || !guardedMethods[dot.Name.Name] {
		return
	}
	c.Fn = &syntax.Ident{NamePos: dot.NamePos, Name: "." + dot.Name.Name}
	c.Args = append([]syntax.Expr{dot.X}, c.Args...)
}

// method is the guarded built-in of a string method: it refuses, as the
// memory limit, a result larger than the limit, then calls the method.
func (r *run) method(name string) *starlark.Builtin {
	return starlark.NewBuiltin(name, func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(args) == 0 {
			return nil, fmt.Errorf("%s: no receiver", name)
		}
		recv, rest := args[0], args[1:]
		if s, ok := recv.(starlark.String); ok {
			if size := methodSize(name, string(s), rest, r.lim.MaxMemoryBytes); size > r.lim.MaxMemoryBytes {
				r.stop(LimitMemory)
				return nil, fmt.Errorf("%s would make a string of more than %d MiB, over the memory limit", name, r.lim.MaxMemoryBytes>>20)
			}
		}
		fn, err := starlark.Call(thread, starlark.Universe["getattr"], starlark.Tuple{recv, starlark.String(strings.TrimPrefix(name, "."))}, nil)
		if err != nil {
			return nil, err
		}
		return starlark.Call(thread, fn, rest, kwargs)
	})
}

// methodSize bounds the length of s.name(args...), counted until it
// passes budget.
func methodSize(name, s string, args starlark.Tuple, budget int64) int64 {
	switch name {
	case ".join":
		seq, ok := firstArg(args).(starlark.Sequence)
		if !ok {
			return 0
		}
		n := int64(seq.Len())
		size := int64(len(s)) * max(n-1, 0)
		it := seq.Iterate()
		defer it.Done()
		var e starlark.Value
		for it.Next(&e) && size <= budget {
			size += reprSize(e, budget-size)
		}
		return size
	case ".replace":
		oldV, ok1 := firstArg(args).(starlark.String)
		var newV starlark.String
		var ok2 bool
		if len(args) > 1 {
			newV, ok2 = args[1].(starlark.String)
		}
		if !ok1 || !ok2 || len(newV) <= len(oldV) {
			return int64(len(s))
		}
		matches := int64(strings.Count(s, string(oldV)))
		if oldV == "" {
			matches = int64(utf8.RuneCountInString(s)) + 1
		}
		return int64(len(s)) + matches*int64(len(newV)-len(oldV))
	case ".format":
		var argSize int64
		for _, a := range args {
			argSize += reprSize(a, budget)
		}
		return int64(len(s)) + int64(strings.Count(s, "{"))*argSize
	}
	return 0
}

func firstArg(args starlark.Tuple) starlark.Value {
	if len(args) == 0 {
		return nil
	}
	return args[0]
}

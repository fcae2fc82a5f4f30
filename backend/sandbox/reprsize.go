package sandbox

import (
	"fmt"

	starjson "go.starlark.net/lib/json"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// reprSize is about how many bytes v's text (str, repr, print,
// json.encode) takes, counted until it passes budget: a value that holds
// another many times (l = [s] * 1000; m = [l] * 1000) has a text far
// larger than the memory it holds, made in one built-in call.
func reprSize(v starlark.Value, budget int64) int64 {
	var n int64
	var walk func(v starlark.Value, depth int)
	walk = func(v starlark.Value, depth int) {
		if n > budget {
			return
		}
		if depth > 64 { // Starlark shows a cycle as [...]
			n += 8
			return
		}
		switch x := v.(type) {
		case starlark.String:
			n += int64(len(x)) + 2
		case starlark.Bytes:
			n += int64(len(x)) + 3
		case *starlark.List:
			n += 2
			for i := 0; i < x.Len() && n <= budget; i++ {
				n += 2
				walk(x.Index(i), depth+1)
			}
		case starlark.Tuple:
			n += 2
			for _, e := range x {
				if n += 2; n > budget {
					return
				}
				walk(e, depth+1)
			}
		case *starlark.Dict:
			n += 2
			for _, kv := range x.Items() {
				if n += 4; n > budget {
					return
				}
				walk(kv[0], depth+1)
				walk(kv[1], depth+1)
			}
		case *starlark.Set:
			n += 5
			it := x.Iterate()
			var e starlark.Value
			for it.Next(&e) && n <= budget {
				n += 2
				walk(e, depth+1)
			}
			it.Done()
		case starlark.Int:
			if _, ok := x.Int64(); ok {
				n += 20
			} else {
				n += int64(x.BigInt().BitLen()/3 + 2)
			}
		default:
			n += 24 // numbers, None, bools, functions, tables: short
		}
	}
	walk(v, 0)
	return n
}

// guardText wraps a built-in that turns its arguments into text (str,
// repr, json.encode) so that a text larger than the memory limit is
// refused, as the memory limit, before it is made.
func (r *run) guardText(inner *starlark.Builtin) *starlark.Builtin {
	return starlark.NewBuiltin(inner.Name(), func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := r.checkText(b.Name(), args, r.lim.MaxMemoryBytes, LimitMemory); err != nil {
			return nil, err
		}
		return starlark.Call(thread, inner, args, kwargs)
	})
}

// print is Starlark's print, refusing, as the output limit, what would
// not fit the output left, before its text is made.
func (r *run) printFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	room := int64(r.lim.MaxOutputBytes-r.out.Len()) + 64
	if err := r.checkText("print", args, room, LimitOutput); err != nil {
		return nil, err
	}
	return starlark.Call(thread, starlark.Universe["print"], args, kwargs)
}

func (r *run) checkText(name string, args starlark.Tuple, budget int64, limit string) error {
	var n int64
	for _, a := range args {
		if n += reprSize(a, budget-n); n > budget {
			r.stop(limit)
			return fmt.Errorf("%s: the text would pass the %s limit", name, limit)
		}
	}
	return nil
}

// jsonModule is lib/json with encode guarded.
func (r *run) jsonModule() *starlarkstruct.Module {
	members := starlark.StringDict{}
	for k, v := range starjson.Module.Members {
		members[k] = v
	}
	members["encode"] = r.guardText(starjson.Module.Members["encode"].(*starlark.Builtin))
	return &starlarkstruct.Module{Name: starjson.Module.Name, Members: members}
}

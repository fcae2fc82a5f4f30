package sandbox

import (
	"fmt"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// sum is Python's sum(iterable, start=0). Each element is a step, so a
// sum over a long range counts against the steps limit like a loop, and
// stops at once when the run is stopped.
func (r *run) sum(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var iterable starlark.Iterable
	var acc starlark.Value = starlark.MakeInt(0)
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &iterable, &acc); err != nil {
		return nil, err
	}
	it := iterable.Iterate()
	defer it.Done()
	var x starlark.Value
	for i := 0; it.Next(&x); i++ {
		thread.Steps++
		if thread.Steps >= r.lim.MaxSteps {
			r.stop(LimitSteps)
		}
		if i&1023 == 0 {
			if err := r.interrupted(); err != nil {
				return nil, err
			}
		}
		var err error
		if acc, err = starlark.Binary(syntax.PLUS, acc, x); err != nil {
			return nil, fmt.Errorf("sum: %v", err)
		}
	}
	return acc, nil
}

// rangeFn is Starlark's range, refusing a range no script could use
// within its limits: longer than the steps limit (a loop over it would
// pass it) or than the memory limit holds (list(range(n)) is made in one
// built-in call, which the watchdog cannot stop half way).
func (r *run) rangeFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	v, err := starlark.Call(thread, starlark.Universe["range"], args, kwargs)
	if err != nil {
		return nil, err
	}
	n := v.(starlark.Sequence).Len()
	switch {
	case uint64(n) > r.lim.MaxSteps:
		r.stop(LimitSteps)
		return nil, fmt.Errorf("range of %d elements is longer than the steps limit (%d)", n, r.lim.MaxSteps)
	case int64(n) > r.lim.MaxMemoryBytes/16:
		r.stop(LimitMemory)
		return nil, fmt.Errorf("range of %d elements is longer than the memory limit holds", n)
	}
	return v, nil
}

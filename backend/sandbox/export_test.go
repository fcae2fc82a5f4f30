package sandbox

import "go.starlark.net/starlark"

// FloatRepr is how a script's float result reads.
func FloatRepr(f float64) string { return starlark.Float(f).String() }

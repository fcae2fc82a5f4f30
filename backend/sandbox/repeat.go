package sandbox

import (
	"fmt"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// repeatName is the predeclared built-in every x * y of a script calls
// instead (see guardRepeats). It is no identifier a script can write.
const repeatName = "*"

// guardRepeats rewrites every x * y of f, and every name *= y, into a
// call of repeatName, which refuses a repeat (s * n, list * n) bigger
// than the memory limit before it is made. A repeat is the one Starlark
// operation that makes a value much larger than its operands in one step
// (up to 2^30 elements), too fast for the watchdog. a[i] *= n is left as
// it is (rewriting it would evaluate a[i] twice).
func guardRepeats(f *syntax.File) {
	stmts(f.Stmts)
}

func stmts(list []syntax.Stmt) {
	for _, s := range list {
		switch s := s.(type) {
		case *syntax.AssignStmt:
			expr(&s.LHS)
			expr(&s.RHS)
			if id, ok := s.LHS.(*syntax.Ident); ok && s.Op == syntax.STAR_EQ {
				s.Op = syntax.EQ
				s.RHS = repeatCall(&syntax.Ident{NamePos: id.NamePos, Name: id.Name}, s.RHS, s.OpPos)
			}
		case *syntax.DefStmt:
			exprs(s.Params)
			stmts(s.Body)
		case *syntax.ExprStmt:
			expr(&s.X)
		case *syntax.IfStmt:
			expr(&s.Cond)
			stmts(s.True)
			stmts(s.False)
		case *syntax.ForStmt:
			expr(&s.X)
			stmts(s.Body)
		case *syntax.WhileStmt:
			expr(&s.Cond)
			stmts(s.Body)
		case *syntax.ReturnStmt:
			expr(&s.Result)
		}
	}
}

func exprs(list []syntax.Expr) {
	for i := range list {
		expr(&list[i])
	}
}

func expr(p *syntax.Expr) {
	switch e := (*p).(type) {
	case nil:
	case *syntax.BinaryExpr:
		expr(&e.X)
		expr(&e.Y)
		if e.Op == syntax.STAR {
			*p = repeatCall(e.X, e.Y, e.OpPos)
		}
	case *syntax.UnaryExpr:
		expr(&e.X)
	case *syntax.ParenExpr:
		expr(&e.X)
	case *syntax.CallExpr:
		expr(&e.Fn)
		exprs(e.Args)
		guardMethod(e)
	case *syntax.DotExpr:
		expr(&e.X)
	case *syntax.IndexExpr:
		expr(&e.X)
		expr(&e.Y)
	case *syntax.SliceExpr:
		expr(&e.X)
		expr(&e.Lo)
		expr(&e.Hi)
		expr(&e.Step)
	case *syntax.Comprehension:
		expr(&e.Body)
		for _, c := range e.Clauses {
			switch c := c.(type) {
			case *syntax.ForClause:
				expr(&c.X)
			case *syntax.IfClause:
				expr(&c.Cond)
			}
		}
	case *syntax.DictExpr:
		exprs(e.List)
	case *syntax.DictEntry:
		expr(&e.Key)
		expr(&e.Value)
	case *syntax.LambdaExpr:
		exprs(e.Params)
		expr(&e.Body)
	case *syntax.ListExpr:
		exprs(e.List)
	case *syntax.TupleExpr:
		exprs(e.List)
	case *syntax.CondExpr:
		expr(&e.Cond)
		expr(&e.True)
		expr(&e.False)
	}
}

// repeatCall is repeatName(x, y), at the operator's position.
func repeatCall(x, y syntax.Expr, pos syntax.Position) *syntax.CallExpr {
	return &syntax.CallExpr{Fn: &syntax.Ident{NamePos: pos, Name: repeatName}, Lparen: pos, Args: []syntax.Expr{x, y}, Rparen: pos}
}

// repeat is x * y, refused as over the memory limit when it would make a
// string, bytes, list or tuple larger than the limit (16 bytes an
// element of a list or tuple).
func (r *run) repeat(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
	x, y := args[0], args[1]
	if size, ok := repeatSize(x, y); ok && size > r.lim.MaxMemoryBytes {
		r.stop(LimitMemory)
		return nil, fmt.Errorf("%s * %s would make a value of %d MiB, over the memory limit", x.Type(), y.Type(), size>>20)
	}
	return starlark.Binary(syntax.STAR, x, y)
}

// repeatSize is the size of the value seq * n (or n * seq) would make.
func repeatSize(x, y starlark.Value) (int64, bool) {
	if _, ok := x.(starlark.Int); ok {
		x, y = y, x
	}
	n, ok := y.(starlark.Int)
	if !ok {
		return 0, false
	}
	count, ok := n.Int64()
	if !ok {
		return 0, false // too big: Starlark refuses it itself
	}
	var unit, length int64
	switch s := x.(type) {
	case starlark.String:
		unit, length = 1, int64(len(s))
	case starlark.Bytes:
		unit, length = 1, int64(len(s))
	case *starlark.List:
		unit, length = 16, int64(s.Len())
	case starlark.Tuple:
		unit, length = 16, int64(len(s))
	default:
		return 0, false
	}
	if count <= 0 || length == 0 {
		return 0, true
	}
	if length > (1<<62)/unit/count {
		return 1 << 62, true
	}
	return unit * length * count, true
}

package sandbox

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"go.starlark.net/starlark"
)

// Tables gives a run the session's tables, read-only. ScanTable calls
// columns once, then row for every row (the slice may be reused): cells
// are int64, float64, string, bool, []byte or nil.
type Tables interface {
	TableNames(ctx context.Context) ([]string, error)
	ScanTable(ctx context.Context, name string, columns func([]string), row func([]any) error) error
}

// tableMap is the global `tables`: a read-only mapping from name to
// table, each read on first use and kept for the run.
type tableMap struct {
	ctx   context.Context
	src   Tables
	once  sync.Once
	names []string
	read  map[string]*table
	err   error // the tables could not be read: the run fails, not the script
}

var (
	_ starlark.IterableMapping = (*tableMap)(nil)
	_ starlark.HasAttrs        = (*tableMap)(nil)
)

func newTableMap(ctx context.Context, src Tables) *tableMap {
	return &tableMap{ctx: ctx, src: src, read: map[string]*table{}}
}

func (m *tableMap) list() ([]string, error) {
	m.once.Do(func() {
		if m.src == nil {
			return
		}
		names, err := m.src.TableNames(m.ctx)
		if err != nil {
			m.err = err
			return
		}
		m.names = names
	})
	if m.err != nil {
		return nil, fmt.Errorf("the tables cannot be read")
	}
	return m.names, nil
}

func (m *tableMap) String() string {
	names, _ := m.list()
	return "<tables: " + strings.Join(names, ", ") + ">"
}
func (m *tableMap) Type() string         { return "tables" }
func (m *tableMap) Freeze()              {}
func (m *tableMap) Truth() starlark.Bool { names, _ := m.list(); return len(names) > 0 }
func (m *tableMap) Hash() (uint32, error) {
	return 0, fmt.Errorf("unhashable type: tables")
}
func (m *tableMap) Len() int { names, _ := m.list(); return len(names) }

func (m *tableMap) Iterate() starlark.Iterator {
	names, _ := m.list()
	vals := make([]starlark.Value, len(names))
	for i, n := range names {
		vals[i] = starlark.String(n)
	}
	return starlark.NewList(vals).Iterate()
}

func (m *tableMap) Items() []starlark.Tuple {
	names, _ := m.list()
	var out []starlark.Tuple
	for _, n := range names {
		t, err := m.table(n)
		if err != nil {
			return out
		}
		out = append(out, starlark.Tuple{starlark.String(n), t})
	}
	return out
}

func (m *tableMap) Get(k starlark.Value) (starlark.Value, bool, error) {
	name, ok := starlark.AsString(k)
	if !ok {
		return nil, false, fmt.Errorf("tables[%s]: a table's name is a string", k)
	}
	names, err := m.list()
	if err != nil {
		return nil, false, err
	}
	for _, n := range names {
		if n == name {
			t, err := m.table(n)
			return t, err == nil, err
		}
	}
	if len(names) == 0 {
		return nil, false, fmt.Errorf("there is no table %q: no tables are attached to this session", name)
	}
	return nil, false, fmt.Errorf("there is no table %q; the tables are: %s", name, strings.Join(names, ", "))
}

func (m *tableMap) Attr(name string) (starlark.Value, error) {
	switch name {
	case "keys":
		return starlark.NewBuiltin("keys", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
			names, err := m.list()
			vals := make([]starlark.Value, len(names))
			for i, n := range names {
				vals[i] = starlark.String(n)
			}
			return starlark.NewList(vals), err
		}), nil
	case "get":
		return starlark.NewBuiltin("get", func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var k string
			if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &k); err != nil {
				return nil, err
			}
			v, found, err := m.Get(starlark.String(k))
			if !found || err != nil {
				return starlark.None, nil
			}
			return v, nil
		}), nil
	}
	return nil, nil
}

func (m *tableMap) AttrNames() []string { return []string{"get", "keys"} }

// table reads the table called name, once per run.
func (m *tableMap) table(name string) (*table, error) {
	if t, ok := m.read[name]; ok {
		return t, nil
	}
	t := &table{name: name}
	err := m.src.ScanTable(m.ctx, name,
		func(cols []string) {
			t.columns = append([]string(nil), cols...)
			t.cols = make([][]starlark.Value, len(cols))
		},
		func(row []any) error {
			for i := range t.cols {
				var v any
				if i < len(row) {
					v = row[i]
				}
				t.cols[i] = append(t.cols[i], fromGo(v))
			}
			t.n++
			return nil
		})
	if err != nil {
		if m.ctx.Err() != nil {
			return nil, fmt.Errorf("reading table %q was stopped", name)
		}
		m.err = err
		return nil, fmt.Errorf("table %q cannot be read", name)
	}
	t.keys = make([]starlark.String, len(t.columns))
	for i, c := range t.columns {
		t.keys[i] = starlark.String(c)
	}
	t.lists = make([]*starlark.List, len(t.columns))
	m.read[name] = t
	return t, nil
}

// table is one table, held by column. Its rows are frozen dicts made
// when asked for; its columns frozen lists made once.
type table struct {
	name    string
	columns []string
	keys    []starlark.String
	cols    [][]starlark.Value
	lists   []*starlark.List
	n       int
}

var (
	_ starlark.Indexable = (*table)(nil)
	_ starlark.Iterable  = (*table)(nil)
	_ starlark.HasAttrs  = (*table)(nil)
)

func (t *table) String() string {
	return fmt.Sprintf("<table %s: %d rows, columns %s>", t.name, t.n, strings.Join(t.columns, ", "))
}
func (t *table) Type() string         { return "table" }
func (t *table) Freeze()              {}
func (t *table) Truth() starlark.Bool { return t.n > 0 }
func (t *table) Hash() (uint32, error) {
	return 0, fmt.Errorf("unhashable type: table")
}
func (t *table) Len() int { return t.n }

func (t *table) Index(i int) starlark.Value {
	d := starlark.NewDict(len(t.keys))
	for c, k := range t.keys {
		_ = d.SetKey(k, t.cols[c][i])
	}
	d.Freeze()
	return d
}

func (t *table) Iterate() starlark.Iterator { return &rowIter{t: t} }

func (t *table) Attr(name string) (starlark.Value, error) {
	switch name {
	case "columns":
		vals := make([]starlark.Value, len(t.keys))
		for i, k := range t.keys {
			vals[i] = k
		}
		return starlark.Tuple(vals), nil
	case "rows":
		return rows{t}, nil
	case "column":
		return starlark.NewBuiltin("column", t.column), nil
	}
	return nil, nil
}

func (t *table) AttrNames() []string { return []string{"column", "columns", "rows"} }

// column returns a column's values as a frozen list.
func (t *table) column(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &name); err != nil {
		return nil, err
	}
	for i, c := range t.columns {
		if c != name {
			continue
		}
		if t.lists[i] == nil {
			l := starlark.NewList(t.cols[i][:t.n:t.n])
			l.Freeze()
			t.lists[i] = l
		}
		return t.lists[i], nil
	}
	return nil, fmt.Errorf("table %s has no column %q; its columns are: %s", t.name, name, strings.Join(t.columns, ", "))
}

// rows is t.rows: the table's rows as a sequence of frozen dicts.
type rows struct{ t *table }

func (r rows) String() string        { return fmt.Sprintf("<rows of %s: %d>", r.t.name, r.t.n) }
func (r rows) Type() string          { return "rows" }
func (r rows) Freeze()               {}
func (r rows) Truth() starlark.Bool  { return r.t.n > 0 }
func (r rows) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: rows") }
func (r rows) Len() int              { return r.t.n }
func (r rows) Index(i int) starlark.Value {
	return r.t.Index(i)
}
func (r rows) Iterate() starlark.Iterator { return &rowIter{t: r.t} }

type rowIter struct {
	t *table
	i int
}

func (it *rowIter) Next(p *starlark.Value) bool {
	if it.i >= it.t.n {
		return false
	}
	*p = it.t.Index(it.i)
	it.i++
	return true
}

func (it *rowIter) Done() {}

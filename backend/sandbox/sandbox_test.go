package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/chart"
	"github.com/agentdeck/agentdeck/backend/sandbox"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// memTables is a Tables of in-memory rows.
type memTables map[string]struct {
	cols []string
	rows [][]any
}

func (m memTables) TableNames(context.Context) ([]string, error) {
	var out []string
	for n := range m {
		out = append(out, n)
	}
	return out, nil
}

func (m memTables) ScanTable(ctx context.Context, name string, columns func([]string), row func([]any) error) error {
	t, ok := m[name]
	if !ok {
		return errors.New("no such table")
	}
	columns(t.cols)
	for _, r := range t.rows {
		if err := row(r); err != nil {
			return err
		}
	}
	return ctx.Err()
}

func salesTable(n int) memTables {
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{int64(i), fmt.Sprintf("r%d", i%4), float64(i%100) / 4}
	}
	return memTables{"sales": {cols: []string{"id", "region", "amount"}, rows: rows}}
}

func TestRun(t *testing.T) {
	charts := chart.NewValidator()
	big := salesTable(100_000)
	var wantSum float64
	for i := range 100_000 {
		wantSum += float64(i%100) / 4
	}
	cases := []struct {
		name   string
		code   string
		lim    sandbox.Limits
		tables sandbox.Tables
		// want: the value's repr, the output, the limit, an error's
		// message part and its line:col.
		value, output, limit, msg string
		line, col                 int
		chart                     bool
	}{
		{name: "value and print", code: "print('hi', 1+1)\nresult = [x*x for x in range(4)]", value: "[0, 1, 4, 9]", output: "hi 2\n"},
		{name: "python-like syntax", code: "n = 0\nwhile n < 5:\n    n += 1\nif n == 5:\n    n = n * 2\ndef fib(k):\n    return k if k < 2 else fib(k-1) + fib(k-2)\nresult = (n, fib(10), sorted(set([3, 1, 3])))", value: "(10, 55, [1, 3])"},
		{name: "sum and math", code: "result = (sum([1, 2.5]), math.floor(2.7), json.encode({'a': 1}))", value: `(3.5, 2, "{\"a\":1}")`},
		{name: "runaway loop stops at the step limit", code: "x = 0\nwhile True:\n    x += 1", lim: sandbox.Limits{MaxSteps: 10_000}, limit: "steps"},
		{name: "sum over a long range counts steps", code: "result = sum(range(1000000))", lim: sandbox.Limits{MaxSteps: 10_000}, limit: "steps"},
		{name: "a range too long for the steps", code: "for i in range(2000000000):\n    pass", lim: sandbox.Limits{MaxSteps: 10_000}, limit: "steps", line: 1},
		{name: "huge output stops at the output limit", code: "for i in range(100000):\n    print('line', i)", lim: sandbox.Limits{MaxOutputBytes: 1000}, limit: "output", line: 2},
		{name: "memory limit", code: "s = 'x' * 1000000\nkeep = []\nwhile True:\n    keep.append(s + str(len(keep)))", lim: sandbox.Limits{MaxMemoryBytes: 64 << 20, MaxSteps: 1 << 40, Timeout: time.Hour}, limit: "memory"},
		{name: "a huge repeat is refused before it is made", code: "x = 1\ns = 'ab' * (1 << 29)", lim: sandbox.Limits{MaxMemoryBytes: 64 << 20}, limit: "memory", line: 2, col: 10},
		{name: "a huge list repeat in a function", code: "def f(n):\n    l = [0]\n    l *= n\n    return l\nresult = f(1 << 25)", lim: sandbox.Limits{MaxMemoryBytes: 64 << 20}, limit: "memory", line: 3},
		{name: "repeats still work", code: "a = 'ab' * 3\nb = 3 * [1]\nc = 2 * 3.5\nd = 4\nd *= 5\nresult = (a, b, c, d, (1,) * 2)", value: `("ababab", [1, 1, 1], 7.0, 20, (1, 1))`},
		{name: "a bad repeat names its line", code: "x = 1\ny = 'a' * 'b'", msg: "unknown binary op: string * string", line: 2, col: 9},
		{name: "a text made huge by sharing is refused", code: "l = ['x' * 1000] * 1000\nm = [l] * 1000\ns = str(m)", lim: sandbox.Limits{MaxMemoryBytes: 64 << 20}, limit: "memory", line: 3},
		{name: "json of a shared value is refused", code: "l = ['x' * 1000] * 1000\nm = [l] * 1000\ns = json.encode(m)", lim: sandbox.Limits{MaxMemoryBytes: 64 << 20}, limit: "memory", line: 3},
		{name: "printing a shared value stops at the output limit", code: "l = ['x' * 1000] * 1000\nm = [l] * 1000\nprint('first')\nprint(m)", lim: sandbox.Limits{MaxOutputBytes: 1000}, limit: "output", output: "first\n", line: 4},
		{name: "a huge result is named, not shown", code: "l = ['x' * 1000] * 1000\nresult = [l] * 1000", value: "<list, more than 262144 bytes as text: print a part of it>"},
		{name: "a huge chart is refused", code: "v = [{'a': 'x' * 1000}] * 1000\nresult = {'mark': 'bar', 'encoding': {}, 'data': {'values': [v] * 1000}}", msg: "not valid"},
		{name: "a huge join is refused", code: "sep = 'x' * 100000\nl = [''] * 100000\ns = sep.join(l)", lim: sandbox.Limits{MaxMemoryBytes: 64 << 20}, limit: "memory", line: 3},
		{name: "a huge replace is refused", code: "s = 'a' * 10000\nt = s.replace('', s)", lim: sandbox.Limits{MaxMemoryBytes: 64 << 20}, limit: "memory", line: 2},
		{name: "a huge format is refused", code: "s = 'x' * 1000000\nt = ('{0}' * 100).format(s)", lim: sandbox.Limits{MaxMemoryBytes: 64 << 20}, limit: "memory", line: 2},
		{name: "guarded methods still work", code: "result = (', '.join(['a', 'b']), 'aXa'.replace('a', 'bb', 1), '{} {x}'.format(1, x=2), [1, 2].index(2))", value: `("a, b", "bbXa", "1 2", 1)`},
		{name: "a method error names its line", code: "x = 1\ny = ', '.join([1, 2])", msg: "join: in list, want string, got int", line: 2},
		{name: "runaway recursion is an error", code: "def f(n):\n    return f(n + 1)\nf(0)", msg: "stack overflow", line: 2},
		{name: "time limit", code: "while True:\n    pass", lim: sandbox.Limits{Timeout: 50 * time.Millisecond, MaxSteps: 1 << 62}, limit: "time", line: 1},
		{name: "load refused", code: "load('os.star', 'system')", msg: "load() is not available", line: 1, col: 1},
		{name: "open is undefined", code: "f = open('/etc/passwd')", msg: "undefined: open", line: 1, col: 5},
		{name: "import is a syntax error", code: "import os", msg: "got import", line: 1, col: 1},
		{name: "no clock", code: "t = time.now()", msg: "undefined: time", line: 1, col: 5},
		{name: "runtime error has line and col", code: "a = 1\nb = [1, 2]\nc = b[5]", msg: "index 5 out of range", line: 3, col: 6},
		{name: "error in a function names the script's line", code: "def f(x):\n    return int(x)\nresult = f('nope')", msg: "invalid literal", line: 2, col: 15},
		{name: "syntax error", code: "x = (1,\ny = 2", msg: "got '=', want ')'", line: 2},
		{name: "tables are read-only", code: "t = tables['sales']\nt[0]['id'] = 5", tables: salesTable(3), msg: "frozen", line: 2},
		{name: "unknown table", code: "t = tables['nope']", tables: salesTable(3), msg: `no table "nope"; the tables are: sales`, line: 1},
		{name: "a 100,000-row table", code: "t = tables['sales']\ntotal = 0\nfor row in t:\n    total += row['amount']\nresult = (len(t), total, sum(t.column('amount')), t.columns)",
			tables: big, value: fmt.Sprintf("(100000, %v, %v, (\"id\", \"region\", \"amount\"))", wantSum, wantSum)},
		{name: "table access", code: "t = tables['sales']\nresult = (tables.keys(), 'sales' in tables, tables.get('nope'), len(t.rows), t[1], t.rows[2]['region'], [r['id'] for r in t.rows])",
			tables: salesTable(3), value: `(["sales"], True, None, 3, {"id": 1, "region": "r1", "amount": 0.25}, "r2", [0, 1, 2])`},
		{name: "an unknown column", code: "t = tables['sales']\nx = t.column('amont')", tables: salesTable(3), msg: `no column "amont"; its columns are: id, region, amount`, line: 2},
		{name: "no tables attached", code: "result = (len(tables), tables.keys())", value: "(0, [])"},
		{name: "a chart", code: "result = {'$schema': 'https://vega.github.io/schema/vega-lite/v6.json', 'mark': 'bar', 'title': 'T', 'data': {'values': [{'a': 1}]}, 'encoding': {'x': {'field': 'a', 'type': 'quantitative'}}}", chart: true},
		{name: "an invalid chart", code: "result = {'mark': 'nonsense', 'encoding': {}}", msg: "not valid"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := sandbox.Run(context.Background(), tc.code, sandbox.Env{Tables: tc.tables, Limits: tc.lim, Charts: charts})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if tc.value != "" && res.Value != tc.value {
				t.Errorf("value = %s, want %s", res.Value, tc.value)
			}
			if tc.output != "" && res.Output != tc.output {
				t.Errorf("output = %q, want %q", res.Output, tc.output)
			}
			if tc.chart != (res.Chart != nil) {
				t.Errorf("chart = %s, want one: %v (error %+v)", res.Chart, tc.chart, res.Error)
			}
			wantErr := tc.limit != "" || tc.msg != ""
			if (res.Error != nil) != wantErr {
				t.Fatalf("error = %+v, want one: %v", res.Error, wantErr)
			}
			if !wantErr {
				return
			}
			if res.Error.Limit != tc.limit {
				t.Errorf("limit = %q, want %q (%s)", res.Error.Limit, tc.limit, res.Error.Message)
			}
			if !strings.Contains(res.Error.Message, tc.msg) {
				t.Errorf("message = %q, want %q in it", res.Error.Message, tc.msg)
			}
			if tc.line != 0 && res.Error.Line != tc.line {
				t.Errorf("line = %d, want %d", res.Error.Line, tc.line)
			}
			if tc.col != 0 && res.Error.Col != tc.col {
				t.Errorf("col = %d, want %d", res.Error.Col, tc.col)
			}
			if tc.limit == "output" && len(res.Output) > 1100 {
				t.Errorf("output is %d bytes, over the limit", len(res.Output))
			}
		})
	}
}

// Stop (the turn's context cancelled) stops a script at once, as a
// cancellation, not as a limit.
func TestStop(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	tabs := startSignal{started: started}
	go func() { <-started; cancel() }()
	_, err := sandbox.Run(ctx, "t = tables['x']\nwhile True:\n    pass", sandbox.Env{Tables: tabs, Limits: sandbox.Limits{MaxSteps: 1 << 62, Timeout: time.Hour}})
	if apperr.CodeOf(err) != apperr.Cancelled {
		t.Fatalf("err = %v, want Cancelled", err)
	}
}

// startSignal is an empty table x whose reading says the script started.
type startSignal struct{ started chan struct{} }

func (s startSignal) TableNames(context.Context) ([]string, error) { return []string{"x"}, nil }
func (s startSignal) ScanTable(_ context.Context, _ string, columns func([]string), _ func([]any) error) error {
	columns([]string{"a"})
	close(s.started)
	return nil
}

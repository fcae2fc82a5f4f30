package data

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/chart"
	"github.com/agentdeck/agentdeck/backend/tool"
)

func TestToolsSchemas(t *testing.T) {
	d := mustOpen(t)
	ts, err := tool.NewSet(d.Tools(Limits{})...)
	if err != nil {
		t.Fatalf("the schemas do not compile: %v", err)
	}
	for _, name := range []string{ToolListData, ToolQueryData} {
		tool, ok := ts.Get(name)
		if !ok {
			t.Fatalf("no tool %s", name)
		}
		if tool.Spec().SideEffects {
			t.Errorf("%s has side effects", name)
		}
	}
	tests := []struct {
		tool, args string
		ok         bool
	}{
		{ToolListData, `{}`, true},
		{ToolListData, ``, true},
		{ToolListData, `{"x": 1}`, false},
		{ToolQueryData, `{"sql": "SELECT 1"}`, true},
		{ToolQueryData, `{"sql": "SELECT 1", "name": "by_region_2"}`, true},
		{ToolQueryData, `{}`, false},
		{ToolQueryData, `{"sql": ""}`, false},
		{ToolQueryData, `{"sql": "SELECT 1", "name": "By Region"}`, false},
		{ToolQueryData, `{"sql": "SELECT 1", "name": "` + strings.Repeat("a", 42) + `"}`, false},
	}
	for _, tt := range tests {
		if _, err := ts.Validate(tt.tool, tt.args); (err == nil) != tt.ok {
			t.Errorf("Validate(%s, %s) = %v, want ok=%v", tt.tool, tt.args, err, tt.ok)
		}
	}
}

// exec runs a tool of d by name through its Execute with JSON args.
func exec(t *testing.T, tools []tool.Tool, name, args string) (string, error) {
	t.Helper()
	for _, tool := range tools {
		if tool.Spec().Name == name {
			return tool.Execute(context.Background(), json.RawMessage(args))
		}
	}
	t.Fatalf("no tool %s", name)
	return "", nil
}

func TestListData(t *testing.T) {
	d := mustOpen(t)
	tools := d.Tools(Limits{})
	out, err := exec(t, tools, ToolListData, `{}`)
	if err != nil || !strings.Contains(out, "No data is attached") {
		t.Fatalf("empty list_data = %q, %v", out, err)
	}
	mustAttach(t, d, "sales.csv", salesCSV+"north,1,false\n")
	mustAttach(t, d, "order.json", `[{"from": "a", "to": "b", "when": "2024-01-01"}]`)
	out, err = exec(t, tools, ToolListData, `{}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"2 attached tables",
		"## sales (from sales.csv, 4 rows)",
		"Columns: region TEXT, amount REAL, paid BOOLEAN",
		"| region | amount | paid |",
		"| east | 10 | true |",
		"| east | 5 | true |",
		`## "order" (from order.json, 1 row)`,
		`Columns: "from" TEXT, "to" TEXT, "when" DATE`,
		"| a | b | 2024-01-01 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("list_data lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "north") || strings.Contains(out, "showing the first") {
		t.Errorf("list_data shows more than 3 sample rows, or a truncation note:\n%s", out)
	}
}

func TestQueryDataAndDatasets(t *testing.T) {
	d := mustOpen(t)
	mustAttach(t, d, "sales.csv", salesCSV)
	tools := d.Tools(Limits{})

	out, err := exec(t, tools, ToolQueryData, `{"sql": "SELECT region, sum(amount) AS total FROM sales GROUP BY region ORDER BY region", "name": "sales_by_region"}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| region | total |", "| east | 15 |", "| west | 20.5 |", `Saved as dataset "sales_by_region" (2 rows)`, `"data": {"name": "sales_by_region"}`} {
		if !strings.Contains(out, want) {
			t.Errorf("query_data lacks %q:\n%s", want, out)
		}
	}

	ds := d.Datasets()
	rows, ok := ds.Dataset("sales_by_region")
	want := []map[string]any{{"region": "east", "total": 15.0}, {"region": "west", "total": 20.5}}
	if !ok || !reflect.DeepEqual(rows, want) {
		t.Fatalf("Dataset(sales_by_region) = %v, %v", rows, ok)
	}
	rows, ok = ds.Dataset("sales")
	if !ok || len(rows) != 3 || !reflect.DeepEqual(rows[1], map[string]any{"region": "west", "amount": 20.5, "paid": false}) {
		t.Fatalf("Dataset(sales) = %v, %v", rows, ok)
	}
	if _, ok := ds.Dataset("nosuch"); ok {
		t.Fatal("Dataset(nosuch) found")
	}
	names := ds.(chart.DatasetNames).Names()
	if !reflect.DeepEqual(names, []string{"sales", "sales_by_region"}) {
		t.Fatalf("Names = %v", names)
	}

	// The last result under a name wins; duplicate columns keep both values.
	if _, err := exec(t, tools, ToolQueryData, `{"sql": "SELECT 1 AS a, 2 AS a", "name": "sales_by_region"}`); err != nil {
		t.Fatal(err)
	}
	rows, _ = ds.Dataset("sales_by_region")
	if !reflect.DeepEqual(rows, []map[string]any{{"a": int64(1), "a_2": int64(2)}}) {
		t.Fatalf("replaced dataset = %v", rows)
	}

	// Errors go back to the model; a bad query saves nothing.
	_, err = exec(t, tools, ToolQueryData, `{"sql": "DELETE FROM sales", "name": "oops"}`)
	wantAppErr(t, err, apperr.Invalid, "read-only")
	_, err = exec(t, tools, ToolQueryData, `{"sql": "SELECT 1", "name": "Bad Name"}`)
	wantAppErr(t, err, apperr.Invalid, "dataset name")
	if _, ok := ds.Dataset("oops"); ok {
		t.Fatal("a failed query saved a dataset")
	}
	out, _ = exec(t, tools, ToolListData, `{}`)
	if !strings.Contains(out, "Saved datasets for render_chart: sales_by_region (1 row)") {
		t.Errorf("list_data does not list the saved dataset:\n%s", out)
	}
}

func TestDatasetRowLimit(t *testing.T) {
	d := mustOpen(t)
	d.SetLimits(Limits{MaxDatasetRows: 5})
	var b strings.Builder
	b.WriteString("n,x\n")
	for i := range 20 {
		fmt.Fprintf(&b, "%d,%d.5\n", i, i)
	}
	mustAttach(t, d, "nums.csv", b.String())
	tools := d.Tools(Limits{MaxRows: 3})
	out, err := exec(t, tools, ToolQueryData, `{"sql": "SELECT n, 1e999 AS inf FROM nums", "name": "all_nums"}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "only its first 5 rows") || !strings.Contains(out, "showing the first 3 of 20 rows") {
		t.Errorf("query_data =\n%s", out)
	}
	rows, _ := d.Datasets().Dataset("all_nums")
	if len(rows) != 5 || rows[4]["n"] != int64(4) || rows[0]["inf"] != nil {
		t.Fatalf("dataset = %v", rows)
	}
	if rows, _ := d.Datasets().Dataset("nums"); len(rows) != 5 {
		t.Fatalf("table dataset has %d rows, want 5", len(rows))
	}
}

// A chart spec can name a saved query result, end to end.
func TestDatasetsFeedCharts(t *testing.T) {
	d := mustOpen(t)
	mustAttach(t, d, "sales.csv", salesCSV)
	if _, err := exec(t, d.Tools(Limits{}), ToolQueryData, `{"sql": "SELECT region, sum(amount) AS total FROM sales GROUP BY region ORDER BY region", "name": "totals"}`); err != nil {
		t.Fatal(err)
	}
	v := chart.NewValidator()
	spec := `{"data": {"name": "totals"}, "mark": "bar", "encoding": {"x": {"field": "region", "type": "nominal"}, "y": {"field": "total", "type": "quantitative"}}}`
	res, err := v.Validate(json.RawMessage(spec), "Totals", d.Datasets())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.Spec), `"totals":[{"region":"east","total":15}`) {
		t.Errorf("spec = %s", res.Spec)
	}
	_, err = v.Validate(json.RawMessage(`{"data": {"name": "nope"}, "mark": "bar"}`), "", d.Datasets())
	if err == nil || !strings.Contains(err.Error(), "totals") {
		t.Errorf("an unknown name should list the known ones: %v", err)
	}
}

// Attaching, querying and charting at once is safe (run with -race).
func TestConcurrentUse(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	d, err := Open(context.Background(), t.TempDir()+"/data.db")
	if err != nil {
		t.Fatal(err)
	}
	mustAttach(t, d, "sales.csv", salesCSV)
	tools := d.Tools(Limits{})
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 4 {
		wg.Add(3)
		path := writeFile(t, fmt.Sprintf("more%d.csv", i), salesCSV)
		go func() {
			defer wg.Done()
			if _, err := d.Attach(context.Background(), path); err != nil {
				errs <- err
			}
		}()
		go func() {
			defer wg.Done()
			args := fmt.Sprintf(`{"sql": "SELECT count(*) AS n FROM sales", "name": "n%d"}`, i)
			if _, err := exec(t, tools, ToolQueryData, args); err != nil {
				errs <- err
			}
		}()
		go func() {
			defer wg.Done()
			ds := d.Datasets()
			ds.(chart.DatasetNames).Names()
			ds.Dataset("sales")
			if _, err := exec(t, tools, ToolListData, `{}`); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	tables, err := d.Tables(context.Background())
	if err != nil || len(tables) != 5 {
		t.Fatalf("Tables = %d, %v", len(tables), err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
}

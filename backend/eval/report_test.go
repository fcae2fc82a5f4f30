package eval

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/store"
)

func stored(caseID, model string, repeat int, state string, score float64, latency int64, cost *float64) store.EvalResult {
	outcomes := `[]`
	if state == store.EvalFailedCase {
		outcomes = `[{"kind":"contains","passed":true,"score":1,"reason":""},{"kind":"regex","passed":false,"score":0,"reason":"no match"}]`
	}
	return store.EvalResult{ID: caseID + model, CaseID: caseID, Model: model, Repeat: repeat, State: state, Score: score,
		Outcomes: json.RawMessage(outcomes), LatencyMS: latency, CostUSD: cost, TurnID: "t-" + caseID}
}

// TestNewReport: results are summed per model in the suite's order, the
// pass rate is of the results judged (errors and cancellations apart),
// latency is a median, unknown costs are counted, and a failing result's
// reason is its first failing assertion's; results are in the suite's
// order, whatever order they ran in.
func TestNewReport(t *testing.T) {
	c := func(v float64) *float64 { return &v }
	run := store.EvalRun{ID: "r", Suite: json.RawMessage(`{"name":"s","models":["b/m","a/m"],"cases":[{"id":"one"},{"id":"two"},{"id":"three"}]}`)}
	rep := NewReport(run, []store.EvalResult{
		stored("one", "a/m", 1, store.EvalPassed, 1, 100, c(0.01)),
		stored("two", "a/m", 1, store.EvalFailedCase, 0.5, 300, c(0.02)),
		stored("one", "b/m", 1, store.EvalPassed, 1, 200, nil),
		stored("two", "b/m", 1, store.EvalError, 0, 0, nil),
		stored("three", "a/m", 1, store.EvalPassed, 1, 200, c(0.01)),
	})
	if rep.Total != 5 || rep.Passed != 3 || rep.AllPassed() || rep.Planned != 6 {
		t.Fatalf("totals: %d of %d, %d planned", rep.Passed, rep.Total, rep.Planned)
	}
	var order []string
	for _, r := range rep.Results {
		order = append(order, r.CaseID+" "+r.Model)
	}
	if got := strings.Join(order, ", "); got != "one b/m, one a/m, two b/m, two a/m, three a/m" {
		t.Fatalf("results in the order %s", got)
	}
	if len(rep.Models) != 2 || rep.Models[0].Model != "b/m" {
		t.Fatalf("models out of the suite's order: %+v", rep.Models)
	}
	a, b := rep.Models[1], rep.Models[0]
	if a.Total != 3 || a.Passed != 2 || a.Failed != 1 || a.PassRate != 2.0/3 || a.MedianLatencyMS != 200 || a.CostUSD != 0.04 || a.Unpriced != 0 {
		t.Fatalf("a/m: %+v", a)
	}
	if b.Errors != 1 || b.PassRate != 1 || b.Unpriced != 2 {
		t.Fatalf("b/m: %+v", b)
	}
	if got := rep.Results[3].Reason(); got != "regex: no match" {
		t.Fatalf("reason %q", got)
	}
	if got := rep.Results[0].Reason(); got != "" {
		t.Fatalf("a pass has reason %q", got)
	}
}

// TestDiffRuns: cells are matched by case, model and repeat: a pass that
// fails is a regression, the reverse a fix, cells in one run only are
// listed apart, and a cell still running is neither yet.
func TestDiffRuns(t *testing.T) {
	a := NewReport(store.EvalRun{ID: "a"}, []store.EvalResult{
		stored("keeps", "m/x", 1, store.EvalPassed, 1, 1, nil),
		stored("breaks", "m/x", 1, store.EvalPassed, 1, 1, nil),
		stored("mends", "m/x", 1, store.EvalFailedCase, 0, 1, nil),
		stored("stays", "m/x", 1, store.EvalError, 0, 1, nil),
		stored("gone", "m/x", 1, store.EvalPassed, 1, 1, nil),
		stored("pending", "m/x", 1, store.EvalPassed, 1, 1, nil),
	})
	b := NewReport(store.EvalRun{ID: "b"}, []store.EvalResult{
		stored("keeps", "m/x", 1, store.EvalPassed, 1, 1, nil),
		stored("breaks", "m/x", 1, store.EvalFailedCase, 0, 1, nil),
		stored("mends", "m/x", 1, store.EvalPassed, 1, 1, nil),
		stored("stays", "m/x", 1, store.EvalFailedCase, 0, 1, nil),
		stored("keeps", "m/x", 2, store.EvalPassed, 1, 1, nil),
		stored("pending", "m/x", 1, store.EvalRunning, 0, 0, nil),
	})
	d := DiffRuns(a, b)
	ids := func(cs []DiffCell) (out []string) {
		for _, c := range cs {
			out = append(out, c.CaseID)
		}
		return out
	}
	if got := ids(d.Running); len(got) != 1 || got[0] != "pending" {
		t.Fatalf("running %v", got)
	}
	if got := ids(d.Regressions); len(got) != 1 || got[0] != "breaks" {
		t.Fatalf("regressions %v", got)
	}
	if got := ids(d.Fixes); len(got) != 1 || got[0] != "mends" {
		t.Fatalf("fixes %v", got)
	}
	if got := ids(d.StillFailing); len(got) != 1 || got[0] != "stays" {
		t.Fatalf("still failing %v", got)
	}
	if d.Same != 1 || len(d.OnlyA) != 1 || d.OnlyA[0].CaseID != "gone" || len(d.OnlyB) != 1 || d.OnlyB[0].Repeat != 2 {
		t.Fatalf("same %d, only a %+v, only b %+v", d.Same, d.OnlyA, d.OnlyB)
	}
	if d.Regressions[0].A.State != store.EvalPassed || d.Regressions[0].B.State != store.EvalFailedCase {
		t.Fatalf("a regression's sides: %+v", d.Regressions[0])
	}
}

package usage_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/chart"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/usage"
)

func report() store.UsageReport {
	sum := func(calls int, in, out, cached int64, usd float64) store.UsageSum {
		return store.UsageSum{Calls: calls, InputTokens: in, OutputTokens: out, CachedInputTokens: cached, CostUSD: usd}
	}
	return store.UsageReport{By: store.UsageByModel,
		Total: sum(3, 3000, 300, 1000, 0.5),
		Rows:  []store.UsageRow{{Key: "gpt-x", UsageSum: sum(2, 2000, 200, 1000, 0.5)}, {Key: "", UsageSum: sum(1, 1000, 100, 0, 0.0001+0.00022)}},
		Series: []store.UsagePoint{
			{Day: "2026-11-01", Key: "gpt-x", UsageSum: sum(2, 2000, 200, 1000, 0.5)},
			{Day: "2026-11-02", Key: "", UsageSum: sum(1, 1000, 100, 0, 0)},
		}}
}

// TestChartsPassTheValidator: the page's four charts are specs the chart
// validator passed (the schema named, rows inline), holding the report's
// numbers; a report with no calls has no charts.
func TestChartsPassTheValidator(t *testing.T) {
	v := chart.NewValidator()
	charts, err := usage.Charts(v, report())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range charts {
		ids = append(ids, c.ID)
		var spec map[string]any
		if err := json.Unmarshal(c.Spec, &spec); err != nil || spec["$schema"] != chart.SchemaURL || c.Title == "" {
			t.Fatalf("%s: %v %s", c.ID, err, c.Spec)
		}
		if _, err := v.Validate(c.Spec, c.Title, nil); err != nil {
			t.Fatalf("%s does not validate again: %v", c.ID, err)
		}
	}
	if strings.Join(ids, ",") != "tokens,cost,groups,cached" {
		t.Fatalf("charts %v", ids)
	}
	for _, want := range []string{`"2026-11-02"`, `"(not recorded)"`, `"tokens":2200`, `"cost":0.5`} {
		if !bytes.Contains(charts[0].Spec, []byte(want)) && !bytes.Contains(charts[1].Spec, []byte(want)) {
			t.Errorf("the daily charts lack %s", want)
		}
	}
	if !bytes.Contains(charts[3].Spec, []byte(`"tokens":1000`)) || !bytes.Contains(charts[3].Spec, []byte(`"tokens":2000`)) {
		t.Errorf("the cache chart: %s", charts[3].Spec)
	}
	none, err := usage.Charts(v, store.UsageReport{By: store.UsageByModel})
	if err != nil || len(none) != 0 {
		t.Fatalf("no calls: %d charts, %v", len(none), err)
	}
}

// TestWriteCSV: a header, then a row a group with its numbers, a cost
// summed from float prices written as the number it is.
func TestWriteCSV(t *testing.T) {
	var b bytes.Buffer
	if err := usage.WriteCSV(&b, report()); err != nil {
		t.Fatal(err)
	}
	want := "model,calls,input_tokens,output_tokens,cached_input_tokens,reasoning_tokens,cost_usd,unpriced_calls,estimated\n" +
		"gpt-x,2,2000,200,1000,0,0.5,0,false\n,1,1000,100,0,0,0.00032,0,false\n"
	if b.String() != want {
		t.Fatalf("%q", b.String())
	}
}

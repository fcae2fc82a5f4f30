// Package usage turns a store.UsageReport into what people read: Vega-Lite
// charts for the Usage page and CSV for a spreadsheet.
//
// Rules:
//
//   - Every chart spec is built here, in Go, and passes the same
//     chart.Validator as the agent's charts before it reaches the UI: the
//     UI renders usage with the renderer it renders model output with, and
//     trusts neither more.
//   - Charts carry their rows inline; nothing is loaded from anywhere.
//   - Cost is what was kept with each call (see store.Usage): a call whose
//     price was unknown adds tokens and no cost, and the CSV says how many.
package usage

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"strconv"

	"github.com/agentdeck/agentdeck/backend/chart"
	"github.com/agentdeck/agentdeck/backend/store"
)

// Chart is one chart of the Usage page.
type Chart struct {
	// ID names the chart for the page and its tests: "tokens", "cost",
	// "groups", "cached".
	ID    string          `json:"id"`
	Title string          `json:"title"`
	Spec  json.RawMessage `json:"spec"`
}

// Charts draws rep: tokens and cost a day, stacked by rep's grouping (by
// model when grouped by day), what each group cost, and the share of input
// tokens served from the prompt cache. A report with no calls has none.
func Charts(v *chart.Validator, rep store.UsageReport) ([]Chart, error) {
	if rep.Total.Calls == 0 {
		return []Chart{}, nil
	}
	series := make([]map[string]any, 0, len(rep.Series))
	for _, p := range rep.Series {
		series = append(series, map[string]any{"day": p.Day, "key": keyName(p.Key), "tokens": p.InputTokens + p.OutputTokens, "cost": p.CostUSD})
	}
	groups := make([]map[string]any, 0, len(rep.Rows))
	for _, r := range rep.Rows {
		groups = append(groups, map[string]any{"key": keyName(r.Key), "tokens": r.InputTokens + r.OutputTokens, "cost": r.CostUSD})
	}
	stackBy := rep.By
	if stackBy == store.UsageByDay {
		stackBy = store.UsageByModel
	}
	measure, measureTitle := "cost", "Cost (US$)"
	if rep.Total.CostUSD == 0 {
		measure, measureTitle = "tokens", "Tokens"
	}
	specs := []struct {
		id, title string
		spec      map[string]any
	}{
		{"tokens", "Tokens a day", daily(series, "tokens", "Tokens", stackBy)},
		{"cost", "Cost a day", daily(series, "cost", "Cost (US$)", stackBy)},
		{"groups", measureTitle + " by " + rep.By, map[string]any{
			"data": map[string]any{"values": groups},
			"mark": map[string]any{"type": "bar", "tooltip": true},
			"encoding": map[string]any{
				"y": map[string]any{"field": "key", "type": "nominal", "title": rep.By, "sort": "-x"},
				"x": map[string]any{"field": measure, "type": "quantitative", "title": measureTitle},
			},
		}},
		{"cached", "Input tokens from the prompt cache", map[string]any{
			"data": map[string]any{"values": []map[string]any{
				{"kind": "cached", "tokens": rep.Total.CachedInputTokens},
				{"kind": "not cached", "tokens": rep.Total.InputTokens - rep.Total.CachedInputTokens},
			}},
			"mark": map[string]any{"type": "arc", "innerRadius": 40, "tooltip": true},
			"encoding": map[string]any{
				"theta": map[string]any{"field": "tokens", "type": "quantitative"},
				"color": map[string]any{"field": "kind", "type": "nominal", "title": "Input"},
			},
		}},
	}
	out := make([]Chart, 0, len(specs))
	for _, s := range specs {
		raw, err := json.Marshal(s.spec)
		if err != nil {
			return nil, err
		}
		res, err := v.Validate(raw, s.title, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, Chart{ID: s.id, Title: res.Title, Spec: res.Spec})
	}
	return out, nil
}

// daily is a bar a day of field, stacked by group.
func daily(rows []map[string]any, field, title, group string) map[string]any {
	return map[string]any{
		"data": map[string]any{"values": rows},
		"mark": map[string]any{"type": "bar", "tooltip": true},
		"encoding": map[string]any{
			"x":     map[string]any{"field": "day", "type": "ordinal", "title": "Day"},
			"y":     map[string]any{"field": field, "type": "quantitative", "title": title, "aggregate": "sum"},
			"color": map[string]any{"field": "key", "type": "nominal", "title": group},
		},
	}
}

// keyName is a group's name for people.
func keyName(k string) string {
	if k == "" {
		return "(not recorded)"
	}
	return k
}

// WriteCSV writes rep's groups as CSV, a row a group, with a header.
func WriteCSV(w io.Writer, rep store.UsageReport) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{rep.By, "calls", "input_tokens", "output_tokens", "cached_input_tokens", "reasoning_tokens", "cost_usd", "unpriced_calls", "estimated"})
	for _, r := range rep.Rows {
		_ = cw.Write([]string{r.Key, strconv.Itoa(r.Calls), i64(r.InputTokens), i64(r.OutputTokens), i64(r.CachedInputTokens), i64(r.ReasoningTokens),
			dollars(r.CostUSD), strconv.Itoa(r.Unpriced), strconv.FormatBool(r.Estimated)})
	}
	cw.Flush()
	return cw.Error()
}

func i64(v int64) string { return strconv.FormatInt(v, 10) }

// dollars writes a cost rounded to a billionth of a dollar, so sums of
// float prices read as the numbers they are (0.00032, not
// 0.00031999999999999997).
func dollars(v float64) string {
	return strconv.FormatFloat(math.Round(v*1e9)/1e9, 'f', -1, 64)
}

package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/chart"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/turn/turntest"
)

// validator is shared by the chart tests: its schema compiles once.
var validator = chart.NewValidator()

func chartHarness(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t)
	h.addTools(t, chart.NewTool(validator, nil))
	return h
}

func chartArgs(t *testing.T, title string, spec string) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"title": title, "spec": json.RawMessage(spec)})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const barSpec = `{"mark":"bar","data":{"values":[{"region":"North","sales":12},{"region":"South","sales":7}]},"encoding":{"x":{"field":"region","type":"nominal"},"y":{"field":"sales","type":"quantitative"}}}`

func TestChartIsEmitted(t *testing.T) {
	h := chartHarness(t)
	h.srv.Enqueue(toolCall("c1", "render_chart", chartArgs(t, "Sales by region", barSpec)), text("Here is the chart."))
	h.turn(t, context.Background(), "chart sales")
	charts := h.rec.Of(turn.EventChart)
	if len(charts) != 1 {
		t.Fatalf("%d chart events", len(charts))
	}
	d := turntest.Data[turn.ChartData](t, charts[0])
	if d.Title != "Sales by region" || !strings.Contains(string(d.Spec), `"North"`) {
		t.Fatalf("chart %+v", d)
	}
	call := h.rec.Of(turn.EventToolCall)[0]
	if charts[0].ParentID != call.ID {
		t.Fatal("the chart event must point at the tool call that drew it")
	}
}

func TestInvalidChartIsCorrectedOnTheSecondTry(t *testing.T) {
	h := chartHarness(t)
	bad := strings.Replace(barSpec, `"quantitative"`, `"quantitativ"`, 1)
	h.srv.Enqueue(
		toolCall("c1", "render_chart", chartArgs(t, "Sales", bad)),
		toolCall("c2", "render_chart", chartArgs(t, "Sales", barSpec)),
		text("Fixed."),
	)
	res := h.turn(t, context.Background(), "chart")
	errs := h.rec.Of(turn.EventToolError)
	if len(errs) != 1 || !strings.Contains(turntest.Data[turn.ToolErrorData](t, errs[0]).Error, "/encoding/y/type") {
		t.Fatalf("the first try must fail naming the bad field: %+v", errs)
	}
	// The error went back to the model so it could fix the spec.
	second := h.srv.Requests()[1].Messages
	if last := second[len(second)-1]; last.Role != "tool" || !strings.Contains(last.Content, "/encoding/y/type") {
		t.Fatalf("the model did not get the schema error: %+v", last)
	}
	if len(h.rec.Of(turn.EventChart)) != 1 || !res.OK {
		t.Fatal("the corrected chart was not emitted")
	}
}

func TestChartWithAURLIsRejected(t *testing.T) {
	h := chartHarness(t)
	spec := `{"mark":"point","data":{"url":"https://evil.example/data.csv"},"encoding":{"x":{"field":"a","type":"quantitative"}}}`
	h.srv.Enqueue(toolCall("c1", "render_chart", chartArgs(t, "x", spec)), text("ok"))
	h.turn(t, context.Background(), "chart")
	if len(h.rec.Of(turn.EventChart)) != 0 {
		t.Fatal("a chart that loads a URL was emitted")
	}
	e := turntest.Data[turn.ToolErrorData](t, h.rec.Of(turn.EventToolError)[0])
	if !strings.Contains(e.Error, "URL") {
		t.Fatalf("error %q should say URLs are not allowed", e.Error)
	}
}

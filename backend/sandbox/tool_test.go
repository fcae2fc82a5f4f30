package sandbox_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/chart"
	"github.com/agentdeck/agentdeck/backend/sandbox"
	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// run_code reports each run as a code_run event (and a chart event when
// the script returns a chart), and tells the model the output, the value,
// and an error at its line:col or the limit by name.
func TestTool(t *testing.T) {
	tl := sandbox.NewTool(sandbox.Env{Charts: chart.NewValidator(), Limits: sandbox.Limits{MaxSteps: 1000}})
	if _, err := tool.NewSet(tl); err != nil {
		t.Fatalf("the schema does not compile: %v", err)
	}
	if s := tl.Spec(); s.SideEffects || s.Recorded || !strings.Contains(s.Description, "1000 steps") {
		t.Fatalf("spec %+v", s)
	}
	cases := []struct {
		name, code string
		want       []string // parts of the result text
		events     []turn.EventType
	}{
		{"output and value", "print('hi')\nresult = 6 * 7", []string{"Output:\nhi\n", "result = 42"}, []turn.EventType{turn.EventCodeRun}},
		{"an error at its line", "x = 1\ny = x.nope", []string{"Error at line 2:6:", "has no .nope field"}, []turn.EventType{turn.EventCodeRun}},
		{"a limit by name", "while True:\n    pass", []string{"Stopped by the steps limit", "1000 steps"}, []turn.EventType{turn.EventCodeRun}},
		{"a chart", `result = {"mark": "bar", "data": {"values": [{"a": 1}]}, "encoding": {"x": {"field": "a", "type": "quantitative"}}}`,
			[]string{"result is a chart; it is shown to the user."}, []turn.EventType{turn.EventCodeRun, turn.EventChart}},
		{"nothing", "x = 1", []string{"printed nothing"}, []turn.EventType{turn.EventCodeRun}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []turn.Draft
			ctx := tool.WithCallID(tool.WithEmitter(context.Background(), func(d turn.Draft) { got = append(got, d) }), "call-1")
			args, _ := json.Marshal(map[string]string{"code": tc.code})
			out, err := tl.Execute(ctx, args)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("result %q does not say %q", out, w)
				}
			}
			if len(got) != len(tc.events) {
				t.Fatalf("%d events, want %v", len(got), tc.events)
			}
			for i, d := range got {
				if d.Data.EventType() != tc.events[i] {
					t.Errorf("event %d is %s, want %s", i, d.Data.EventType(), tc.events[i])
				}
			}
			run := got[0].Data.(turn.CodeRunData)
			if run.CallID != "call-1" || run.Code != tc.code || run.Steps == 0 {
				t.Errorf("code_run %+v", run)
			}
		})
	}
}

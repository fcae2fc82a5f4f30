package turn

import (
	"encoding/json"
	"fmt"
	"strings"
)

// PlanIncomplete names the failed and unfinished steps, or "" when
// there is no plan or every step is done.
func PlanIncomplete(steps []PlanStep) string {
	var failed, open []string
	for i, s := range steps {
		label := fmt.Sprintf("%d %q", i+1, s.Title)
		switch s.Status {
		case "error":
			failed = append(failed, label)
		case "pending", "running":
			open = append(open, label)
		}
	}
	var parts []string
	if len(failed) > 0 {
		parts = append(parts, "failed: "+strings.Join(failed, ", "))
	}
	if len(open) > 0 {
		parts = append(parts, "not finished: "+strings.Join(open, ", "))
	}
	return strings.Join(parts, "; ")
}

// ApplyPlanEvent moves a plan along by one event: plan_generated replaces
// it, step_start marks a step running, step_end done or error. Other
// events leave it as it is. The agent, the store (a running turn's live
// plan) and the exports all rebuild plans this one way.
func ApplyPlanEvent(steps *[]PlanStep, typ EventType, data []byte) {
	switch typ {
	case EventPlanGenerated:
		var p PlanData
		_ = json.Unmarshal(data, &p)
		*steps = append([]PlanStep(nil), p.Steps...)
	case EventStepStart:
		var d StepStartData
		if json.Unmarshal(data, &d) == nil && d.StepIndex >= 0 && d.StepIndex < len(*steps) {
			(*steps)[d.StepIndex].Status = "running"
		}
	case EventStepEnd:
		var d StepEndData
		if json.Unmarshal(data, &d) == nil && d.StepIndex >= 0 && d.StepIndex < len(*steps) {
			(*steps)[d.StepIndex].Status = map[bool]string{true: "done", false: "error"}[d.Success]
		}
	}
}

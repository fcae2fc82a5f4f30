package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/agentdeck/agentdeck/backend/chart"
)

// Names of the built-in tools.
const (
	ToolUpdatePlan  = "update_plan"
	ToolRenderChart = "render_chart"
)

const maxPlanSteps = 12

var planStatuses = map[string]bool{"pending": true, "running": true, "done": true, "error": true}

// planTool keeps the turn's checklist. The model sends the whole list each
// time; the tool emits plan_generated when the list itself changed and
// step_start / step_end as statuses move.
type planTool struct {
	mu    sync.Mutex
	steps []PlanStep
	emit  func(ctx context.Context, d Draft)
}

func (p *planTool) Spec() ToolSpec {
	return ToolSpec{
		Name:        ToolUpdatePlan,
		Description: "Publish or update your plan as a checklist the user sees live. Send the whole list every time (at most 12 steps). Mark a step running when you start it and done (or error) when it ends.",
		Parameters: json.RawMessage(`{
  "type": "object",
  "properties": {
    "steps": {
      "type": "array", "minItems": 1, "maxItems": 12,
      "items": {
        "type": "object",
        "properties": {
          "title": {"type": "string", "minLength": 1, "maxLength": 200},
          "status": {"type": "string", "enum": ["pending", "running", "done", "error"]}
        },
        "required": ["title", "status"],
        "additionalProperties": false
      }
    }
  },
  "required": ["steps"],
  "additionalProperties": false
}`),
	}
}

func (p *planTool) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	var in struct {
		Steps []PlanStep `json:"steps"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return "", fmt.Errorf("steps must be a list of {title, status}: %v", err)
	}
	if len(in.Steps) == 0 || len(in.Steps) > maxPlanSteps {
		return "", fmt.Errorf("a plan has 1 to %d steps; you sent %d", maxPlanSteps, len(in.Steps))
	}
	for i, s := range in.Steps {
		if !planStatuses[s.Status] {
			return "", fmt.Errorf("step %d: status must be pending, running, done or error", i+1)
		}
	}

	p.mu.Lock()
	prev := p.steps
	p.steps = append([]PlanStep(nil), in.Steps...)
	p.mu.Unlock()

	if !sameTitles(prev, in.Steps) || len(prev) == 0 {
		p.emit(ctx, Draft{Type: EventPlanGenerated, Data: PlanData{Steps: in.Steps}})
		prev = nil // every status below is new
	}
	for i, s := range in.Steps {
		old := "pending"
		if i < len(prev) {
			old = prev[i].Status
		}
		if old == s.Status {
			continue
		}
		if s.Status == "running" || (old == "pending" && (s.Status == "done" || s.Status == "error")) {
			p.emit(ctx, Draft{Type: EventStepStart, Data: StepStartData{StepIndex: i, Description: s.Title}})
		}
		if s.Status == "done" || s.Status == "error" {
			p.emit(ctx, Draft{Type: EventStepEnd, Data: StepEndData{StepIndex: i, Success: s.Status == "done"}})
		}
	}
	done := 0
	for _, s := range in.Steps {
		if s.Status == "done" {
			done++
		}
	}
	return fmt.Sprintf("Plan updated: %d of %d steps done.", done, len(in.Steps)), nil
}

// snapshot returns the current plan.
func (p *planTool) snapshot() []PlanStep {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]PlanStep(nil), p.steps...)
}

func sameTitles(a, b []PlanStep) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Title != b[i].Title {
			return false
		}
	}
	return true
}

// planIncompleteReason names the failed and unfinished steps, or "" when
// there is no plan or every step is done.
func planIncompleteReason(steps []PlanStep) string {
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

// chartTool validates a Vega-Lite spec and emits it as a chart event.
type chartTool struct {
	validator *chart.Validator
	datasets  chart.Datasets
	emit      func(ctx context.Context, d Draft)
}

func (c *chartTool) Spec() ToolSpec {
	return ToolSpec{
		Name:        ToolRenderChart,
		Description: "Draw a chart for the user from a Vega-Lite v6 spec. Put the rows in data.values, or refer to a dataset by name with data: {\"name\": ...}. URLs are not allowed.",
		Parameters: json.RawMessage(`{
  "type": "object",
  "properties": {
    "title": {"type": "string", "maxLength": 200},
    "spec": {"type": ["object", "string"], "description": "A Vega-Lite v6 spec"}
  },
  "required": ["spec"]
}`),
	}
}

func (c *chartTool) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	var in struct {
		Title string          `json:"title"`
		Spec  json.RawMessage `json:"spec"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return "", fmt.Errorf("expected {title, spec}: %v", err)
	}
	res, err := c.validator.Validate(in.Spec, in.Title, c.datasets)
	if err != nil {
		return "", err
	}
	c.emit(ctx, Draft{Type: EventChart, Data: ChartData{Spec: res.Spec, Title: res.Title}})
	return "The chart is shown to the user.", nil
}

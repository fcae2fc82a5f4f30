// Package plan is the update_plan tool: the model keeps a checklist the
// user sees live. It reports plan_generated when the list itself changes
// and step_start / step_end as statuses move; the agent folds those events
// into the run's plan (turn.ApplyPlanEvent).
package plan

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Name is the tool's name, by which a workflow's agent asks for it.
const Name = "update_plan"

// New returns a plan tool with an empty checklist: one per agent run.
func New() tool.Tool { return &planTool{} }

const maxPlanSteps = 12

var planStatuses = map[string]bool{"pending": true, "running": true, "done": true, "error": true}

// planTool keeps the turn's checklist. The model sends the whole list each
// time; the tool emits plan_generated when the list itself changed and
// step_start / step_end as statuses move.
type planTool struct {
	mu    sync.Mutex
	steps []turn.PlanStep
}

func (p *planTool) Spec() tool.Spec {
	return tool.Spec{
		Name:        Name,
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
		Steps []turn.PlanStep `json:"steps"`
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
	p.steps = append([]turn.PlanStep(nil), in.Steps...)
	p.mu.Unlock()

	if !sameTitles(prev, in.Steps) || len(prev) == 0 {
		tool.Emit(ctx, turn.Draft{Data: turn.PlanData{Steps: in.Steps}})
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
			tool.Emit(ctx, turn.Draft{Data: turn.StepStartData{StepIndex: i, Description: s.Title}})
		}
		if s.Status == "done" || s.Status == "error" {
			tool.Emit(ctx, turn.Draft{Data: turn.StepEndData{StepIndex: i, Success: s.Status == "done"}})
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

func sameTitles(a, b []turn.PlanStep) bool {
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

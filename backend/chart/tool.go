package chart

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// ToolName is the render_chart tool's name, by which a workflow's agent
// asks for it.
const ToolName = "render_chart"

// NewTool returns the render_chart tool: it validates a Vega-Lite spec
// with v (named datasets inlined from datasets) and reports it as a chart
// event.
func NewTool(v *Validator, datasets Datasets) tool.Tool {
	return &chartTool{validator: v, datasets: datasets}
}

// chartTool validates a Vega-Lite spec and emits it as a chart event.
type chartTool struct {
	validator *Validator
	datasets  Datasets
}

func (c *chartTool) Spec() tool.Spec {
	return tool.Spec{
		Name:        ToolName,
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
	tool.Emit(ctx, turn.Draft{Data: turn.ChartData{Spec: res.Spec, Title: res.Title}})
	return "The chart is shown to the user.", nil
}

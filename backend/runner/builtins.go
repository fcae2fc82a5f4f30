package runner

import (
	"slices"

	"github.com/agentdeck/agentdeck/backend/artifact"
	"github.com/agentdeck/agentdeck/backend/chart"
	"github.com/agentdeck/agentdeck/backend/knowledge/cite"
	"github.com/agentdeck/agentdeck/backend/plan"
	"github.com/agentdeck/agentdeck/backend/recall"
	"github.com/agentdeck/agentdeck/backend/sandbox"
	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/web"
)

// The built-in tools: the one table of them. An agent definition names
// them in its tools (or "*" for all), beside the session's own tools and
// the MCP servers'; the list in docs/WORKFLOWS.md is made from this table
// (builtins_test.go). Adding a built-in tool is its package and a row here.

// builtinTool is a tool the runner offers every agent that names it.
type builtinTool struct {
	name string
	// make builds the tool for one agent of a turn, from the runner's
	// dependencies and the turn's tools; nil when the runner lacks what it
	// needs (no chart validator).
	make func(r *Runner, tt turnTools) tool.Tool
}

// builtinTools are in the order the model has always been offered them
// (recordings' keys depend on it).
var builtinTools = []builtinTool{
	// A new plan for each agent.
	{plan.Name, func(*Runner, turnTools) tool.Tool { return plan.New() }},
	// Charts of the rows a call gives or of the session's datasets.
	{chart.ToolName, func(r *Runner, tt turnTools) tool.Tool {
		if r.cfg.Charts == nil {
			return nil
		}
		return chart.NewTool(r.cfg.Charts, tt.datasets)
	}},
	// Search of past turns in the store.
	{recall.Name, func(r *Runner, _ turnTools) tool.Tool {
		if r.cfg.DB == nil {
			return nil
		}
		return recall.New(r.cfg.DB)
	}},
	// Passages of the session's documents (and its project's), numbered
	// for citing; offered only when there are documents.
	{cite.Name, func(r *Runner, tt turnTools) tool.Tool {
		if r.cfg.Knowledge == nil || !tt.documents {
			return nil
		}
		return cite.NewTool(r.cfg.Knowledge, tt.place, tt.numbers)
	}},
	// Web pages, read under the fetcher's rules and numbered for citing.
	{web.Name, func(r *Runner, tt turnTools) tool.Tool {
		if r.cfg.Web == nil {
			return nil
		}
		return web.NewTool(r.cfg.Web, tt.numbers)
	}},
	// HTML pages and SVG images shown in a sealed frame, numbered as
	// versions after the conversation's.
	{artifact.Name, func(_ *Runner, tt turnTools) tool.Tool { return artifact.NewTool(tt.artifacts) }},
	// Starlark scripts over the session's tables (or none): offered when
	// the runner has a sandbox, or in a replay when the original was.
	{sandbox.ToolName, func(r *Runner, tt turnTools) tool.Tool {
		if tt.code == nil {
			return nil
		}
		return sandbox.NewTool(sandbox.Env{Tables: tt.tables, Limits: *tt.code, Charts: r.cfg.Charts})
	}},
}

// builtins makes the built-in tools an agent definition names ("*": all).
func (r *Runner) builtins(names []string, tt turnTools) []tool.Tool {
	var out []tool.Tool
	for _, b := range builtinTools {
		if !slices.Contains(names, "*") && !slices.Contains(names, b.name) {
			continue
		}
		t := b.make(r, tt)
		if t == nil {
			continue
		}
		switch s := t.Spec(); {
		case tt.recorded != nil && (s.Recorded || s.SideEffects):
			t = tt.recorded(t)
		case tt.edited != nil:
			t = tt.edited(t)
		}
		out = append(out, t)
	}
	return out
}

package runner

import (
	"context"
	"os"
	"path/filepath"
	"slices"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/chart"
	"github.com/agentdeck/agentdeck/backend/data"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/workflow"
	"github.com/agentdeck/agentdeck/backend/workspace"
)

// turnTools are the tools a turn's agents may use, and the datasets charts
// may name.
type turnTools struct {
	all      []agent.Tool
	datasets chart.Datasets
}

// tools gathers the session's tools: its data tables (attaching any new
// files first), its workspace, and the MCP servers. The returned func
// releases them.
func (r *Runner) tools(ctx context.Context, t turnRun) (turnTools, func(), error) {
	var tt turnTools
	closers := []func(){}
	release := func() {
		for _, c := range closers {
			c()
		}
	}
	// Files to attach were loaded by Start, before the turn existed.
	if dataPath := r.dataPath(t.dataSession); fileExists(dataPath) {
		ddb, err := data.Open(ctx, dataPath)
		if err != nil {
			return tt, release, err
		}
		closers = append(closers, func() { ddb.Close() })
		tt.all = append(tt.all, ddb.Tools(data.Limits{})...)
		tt.datasets = ddb.Datasets()
	}
	if ws := firstOf(t.req.Workspace, t.sess.Workspace); ws != "" {
		w, err := workspace.New(ws, workspace.Limits{})
		if err != nil {
			return tt, release, apperr.Wrap(err, apperr.Invalid, "The workspace folder %s cannot be used", ws)
		}
		tt.all = append(tt.all, w.Tools()...)
	}
	if r.cfg.MCP != nil {
		tt.all = append(tt.all, r.cfg.MCP.Tools()...)
	}
	return tt, release, nil
}

// attach loads files as tables of the session. It runs before the turn
// exists: a file that cannot be attached refuses the message and leaves
// nothing behind, not a failed turn, and not an empty table store.
func (r *Runner) attach(ctx context.Context, sessionID string, files []string) error {
	if len(files) == 0 {
		return nil
	}
	path := r.dataPath(sessionID)
	existed := fileExists(path)
	ddb, err := data.Open(ctx, path)
	if err != nil {
		return err
	}
	for _, f := range files {
		if _, err = ddb.Attach(ctx, f); err != nil {
			break
		}
	}
	ddb.Close()
	if err != nil && !existed {
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			_ = os.Remove(p)
		}
		_ = os.Remove(filepath.Dir(path)) // only if empty
	}
	return err
}

// dataPath is the session's table store.
func (r *Runner) dataPath(sessionID string) string {
	return filepath.Join(store.SessionDir(r.cfg.DB.Path(), sessionID), "data.db")
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// agentFactory builds a workflow's agents for this turn.
func (r *Runner) agentFactory(t turnRun, tt turnTools) workflow.AgentFactory {
	return func(name string, def workflow.AgentDef) (*agent.Agent, error) {
		ts, err := agent.NewToolset(pick(tt.all, def.Tools)...)
		if err != nil {
			return nil, err
		}
		lim := t.req.Limits
		if def.Limits.MaxSteps > 0 {
			lim.MaxSteps = def.Limits.MaxSteps
		}
		if def.Limits.MaxToolCalls > 0 {
			lim.MaxToolCalls = def.Limits.MaxToolCalls
		}
		if def.Limits.TokenBudget > 0 && (lim.TokenBudget == 0 || def.Limits.TokenBudget < lim.TokenBudget) {
			lim.TokenBudget = def.Limits.TokenBudget
		}
		if def.Limits.Timeout > 0 {
			lim.Timeout = timeDuration(def.Limits.Timeout)
		}
		model := firstOf(def.Model, t.model)
		wantsAll := slices.Contains(def.Tools, "*")
		var charts *chart.Validator
		if (wantsAll || slices.Contains(def.Tools, agent.ToolRenderChart)) && r.cfg.Charts != nil {
			if charts, err = r.cfg.Charts(); err != nil {
				return nil, err
			}
		}
		return &agent.Agent{
			Name:         name,
			Client:       t.client,
			Model:        model,
			SystemPrompt: def.SystemPrompt,
			Tools:        ts,
			Limits:       lim,
			Temperature:  def.Temperature,
			Charts:       charts,
			Datasets:     tt.datasets,
			Plan:         wantsAll || slices.Contains(def.Tools, agent.ToolUpdatePlan),
			Approver:     t.req.Approver,
			Approvals:    r.approvals,
			Memory:       memoryIf(wantsAll || slices.Contains(def.Tools, agent.ToolRecall), r.cfg.DB),
			Logger:       r.log,
		}, nil
	}
}

// pick selects the tools an agent definition names; "*" means all.
func pick(all []agent.Tool, names []string) []agent.Tool {
	if slices.Contains(names, "*") {
		return all
	}
	var out []agent.Tool
	for _, t := range all {
		if slices.Contains(names, t.Spec().Name) {
			out = append(out, t)
		}
	}
	return out
}

func memoryIf(on bool, m agent.MemorySearcher) agent.MemorySearcher {
	if on && m != nil {
		return m
	}
	return nil
}

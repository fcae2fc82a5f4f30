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
	"github.com/agentdeck/agentdeck/backend/knowledge"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/workflow"
	"github.com/agentdeck/agentdeck/backend/workspace"
)

// turnTools are the tools a turn's agents may use, the datasets charts
// may name, and the numbering of the sources the turn's tools give the
// model to cite (one per turn, shared by search_knowledge and fetch_url).
type turnTools struct {
	all      []tool.Tool
	datasets chart.Datasets
	numbers  *knowledge.Numbers
	// wrap puts tools behind their replay stand-ins; nil outside a replay.
	wrap func([]tool.Tool) []tool.Tool
}

// tools gathers the session's tools: its data tables (attaching any new
// files first), its workspace, and the MCP servers. The returned func
// releases them.
func (r *Runner) tools(ctx context.Context, t turnRun) (turnTools, func(), error) {
	tt := turnTools{numbers: &knowledge.Numbers{}}
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
		tt.all = append(tt.all, enabledTools(r.cfg.MCP.Tools(), t.settings.Settings.MCPServers)...)
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
		// The session's tools, then the built-ins, in the order the model
		// has always been offered them (recordings' keys depend on it).
		builtins := r.builtins(def.Tools, tt)
		if tt.wrap != nil {
			builtins = replayBuiltins(builtins, tt.wrap)
		}
		ts, err := tool.NewSet(append(pick(tt.all, def.Tools), builtins...)...)
		if err != nil {
			return nil, err
		}
		model := firstOf(def.Model, t.model)
		window := 0
		if model == t.model {
			window = t.window // what its server or the user said
		}
		a := &agent.Agent{
			Name:          name,
			Client:        t.client,
			Model:         model,
			ContextWindow: window,
			Tools:         ts,
			Limits:        agentLimits(t.req.Limits, def.Limits),
			Approver:      t.req.Approver,
			Approvals:     r.approvals,
			WaitNotice:    r.cfg.WaitNotice,
			Logger:        r.log,
		}
		configure(a, name, def, t.def, t.settings.Settings)
		return a, nil
	}
}

// replayBuiltins puts the recorded and side-effecting built-ins
// (fetch_url, search_knowledge) behind their replay stand-ins; the
// read-only ones (update_plan, render_chart, recall) run as they always
// have in a replay, unchecked.
func replayBuiltins(builtins []tool.Tool, wrap func([]tool.Tool) []tool.Tool) []tool.Tool {
	out := make([]tool.Tool, len(builtins))
	for i, t := range builtins {
		out[i] = t
		if s := t.Spec(); s.Recorded || s.SideEffects {
			out[i] = wrap([]tool.Tool{t})[0]
		}
	}
	return out
}

// agentLimits are the turn's limits narrowed by the agent definition's.
func agentLimits(lim turn.Limits, def workflow.Limits) turn.Limits {
	if def.MaxSteps > 0 {
		lim.MaxSteps = def.MaxSteps
	}
	if def.MaxToolCalls > 0 {
		lim.MaxToolCalls = def.MaxToolCalls
	}
	if def.TokenBudget > 0 && (lim.TokenBudget == 0 || def.TokenBudget < lim.TokenBudget) {
		lim.TokenBudget = def.TokenBudget
	}
	if def.Timeout > 0 {
		lim.Timeout = timeDuration(def.Timeout)
	}
	return lim
}

// pick selects the tools an agent definition names; "*" means all.
func pick(all []tool.Tool, names []string) []tool.Tool {
	if slices.Contains(names, "*") {
		return all
	}
	var out []tool.Tool
	for _, t := range all {
		if slices.Contains(names, t.Spec().Name) {
			out = append(out, t)
		}
	}
	return out
}

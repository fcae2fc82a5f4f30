package runner

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/workflow"
)

// What a turn runs with: the layers of settings (the app's defaults, the
// session's project, the session, the turn) resolved once when the turn
// starts and stored with it (runSpec.Settings), so the turn keeps how it
// ran after its project's or session's settings change, and a replay runs
// with the original's. Each agent then takes its sampling from them
// unless its workflow file sets a value (the file wins, for that agent),
// and the instructions after its own system prompt when the workflow
// says it receives them (workflow.Definition.ReceivesInstructions).

// settingsStore reads the layers a session's turns resolve.
type settingsStore interface {
	SettingsFor(ctx context.Context, sessionID string) ([]turn.Layer, error)
}

// turnSettings resolves the turn's settings: the session's layers, then
// the turn's own (its Settings, then the model source and limits the
// request names, which win as they always have). A replay's are the
// original's as stored (none for a turn stored before turns kept them).
func (r *Runner) turnSettings(ctx context.Context, sessionID string, req Request, replay *replaySource) (turn.Resolved, error) {
	if replay != nil {
		if s := replay.spec.Settings; s != nil {
			return *s, nil
		}
		return turn.Resolved{From: map[string]string{}}, nil
	}
	if err := req.Settings.Validate(); err != nil {
		return turn.Resolved{}, apperr.Wrap(err, apperr.Invalid, "The turn's settings are not valid: %v.", err)
	}
	layers, err := r.cfg.DB.SettingsFor(ctx, sessionID)
	if err != nil {
		return turn.Resolved{}, err
	}
	asked := turn.RunSettings{Provider: req.Provider, Model: req.Model, Workflow: req.Workflow, Limits: req.Limits}
	layers = append(layers, turn.Layer{Name: turn.LayerTurn, Settings: req.Settings}, turn.Layer{Name: turn.LayerTurn, Settings: asked})
	return turn.Resolve(layers...), nil
}

// configure gives an agent of the turn its sampling and instructions:
// each sampling value the agent's definition sets wins over the turn's,
// and the turn's instructions follow the agent's own system prompt, a
// blank line between, when the workflow says the agent receives them.
func configure(a *agent.Agent, name string, def workflow.AgentDef, wf *workflow.Definition, set turn.RunSettings) {
	a.SystemPrompt = def.SystemPrompt
	if ins := set.InstructionsText(); ins != "" && wf.ReceivesInstructions(name) {
		if a.SystemPrompt != "" {
			a.SystemPrompt += "\n\n"
		}
		a.SystemPrompt += ins
	}
	a.Temperature = firstSet(def.Temperature, float32Of(set.Temperature))
	a.TopP = firstSet(def.TopP, float32Of(set.TopP))
	a.Seed = firstSet(def.Seed, set.Seed)
	a.MaxTokens = def.MaxTokens
	if a.MaxTokens == 0 && set.MaxTokens != nil {
		a.MaxTokens = *set.MaxTokens
	}
	a.Stop = set.Stop
	if def.Stop != nil {
		a.Stop = def.Stop
	}
	a.ReasoningEffort = firstOf(def.ReasoningEffort, set.ReasoningEffort)
}

// agentRuns are, per agent of the workflow, the sampling its file sets
// and whether it receives the instructions: what the turn's diagnostics
// show beside its settings.
func agentRuns(wf *workflow.Definition) map[string]store.AgentRun {
	out := map[string]store.AgentRun{}
	for name, def := range wf.Agents {
		out[name] = store.AgentRun{Instructions: wf.ReceivesInstructions(name), Sampling: turn.Sampling{
			Temperature: float64Of(def.Temperature), TopP: float64Of(def.TopP), Seed: def.Seed,
			Stop: def.Stop, ReasoningEffort: def.ReasoningEffort, MaxTokens: positive(def.MaxTokens)}}
	}
	return out
}

// float64Of is a file's float32 as the decimal it was written as (0.2,
// not 0.20000000298).
func float64Of(p *float32) *float64 {
	if p == nil {
		return nil
	}
	f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(*p), 'g', -1, 32), 64)
	return &f
}

func positive(n int) *int {
	if n <= 0 {
		return nil
	}
	return &n
}

func firstSet[T any](a, b *T) *T {
	if a != nil {
		return a
	}
	return b
}

// float32Of is a setting as the request carries it.
func float32Of(p *float64) *float32 {
	if p == nil {
		return nil
	}
	f := float32(*p)
	return &f
}

// serverTool is a tool of an MCP server (mcp's tools say which).
type serverTool interface {
	Server() string
}

// enabledTools drops the tools of MCP servers the settings do not enable;
// nil enables every server.
func enabledTools(ts []tool.Tool, servers []string) []tool.Tool {
	if servers == nil {
		return ts
	}
	return slices.DeleteFunc(slices.Clone(ts), func(t tool.Tool) bool {
		st, ok := t.(serverTool)
		return ok && !slices.Contains(servers, st.Server())
	})
}

// workflow resolves a workflow by name ("": chat), or loads it from a
// file path.
func (r *Runner) workflow(name string) (*workflow.Definition, error) {
	name = firstOf(name, "chat")
	if fi, err := os.Stat(name); err == nil && !fi.IsDir() {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, apperr.Wrap(err, apperr.Invalid, "cannot read the workflow file %s", name)
		}
		def, err := workflow.Parse(filepath.Base(name), data)
		if err != nil {
			return nil, apperr.Wrap(err, apperr.Invalid, "the workflow file %s is not valid: %v", name, err)
		}
		return def, nil
	}
	if def, ok := workflow.Lookup(r.cfg.Workflows(), name); ok {
		return def, nil
	}
	return nil, apperr.New(apperr.Invalid, "There is no workflow named %q. Pick one of the listed workflows, or pass a workflow file.", name)
}

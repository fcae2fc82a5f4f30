package runner

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/artifact"
	"github.com/agentdeck/agentdeck/backend/chart"
	"github.com/agentdeck/agentdeck/backend/data"
	"github.com/agentdeck/agentdeck/backend/knowledge"
	"github.com/agentdeck/agentdeck/backend/knowledge/cite"
	"github.com/agentdeck/agentdeck/backend/knowledge/extract"
	"github.com/agentdeck/agentdeck/backend/sandbox"
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
	// numbers are the turn's citation numbers, shared by every tool that
	// gives the model sources ([n] is unique in the turn).
	numbers *knowledge.Numbers
	// place is where the turn's documents are; documents says there are
	// some (or, in a replay, that the original searched them):
	// search_knowledge is offered only then, so a turn without documents
	// keeps the tool list its recordings were made with.
	place     knowledge.Place
	documents bool
	// artifacts numbers the versions of the turn's artifacts, after
	// those of its history (shared by its agents).
	artifacts *artifact.Versions
	// recorded puts a Recorded built-in behind its replay stand-in (its
	// result served back); nil outside a replay.
	recorded func(tool.Tool) tool.Tool
	// edited puts every other built-in of a re-run behind a stand-in that
	// gives the step's typed result for the edited call and runs the
	// rest (a plan or a chart is drawn again); nil outside a re-run.
	edited func(tool.Tool) tool.Tool
	// code are run_code's limits, nil when it is not offered; tables
	// are the session's tables it reads (nil: none attached).
	code   *sandbox.Limits
	tables sandbox.Tables
}

// tools gathers the session's tools: its data tables (attaching any new
// files first), its workspace, and the MCP servers. The returned func
// releases them.
func (r *Runner) tools(ctx context.Context, t turnRun) (turnTools, func(), error) {
	tt := turnTools{numbers: &knowledge.Numbers{}, place: knowledge.Place{SessionID: t.dataSession}, artifacts: artifact.NewVersions(t.history), code: t.code}
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
		tt.tables = ddb
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
	docs, err := r.hasDocuments(ctx, tt.place, t.replay)
	if err != nil {
		return tt, release, err
	}
	tt.documents = docs
	return tt, release, nil
}

// codeLimits are the limits run_code is offered with in a turn, nil for
// none: a replay's and a re-run's are the original's, so their tool list
// and their scripts' limits are the original's; a new turn's are its
// settings' (limits.code_*), over the runner's, over the defaults.
func (r *Runner) codeLimits(replay *replaySource, rr *rerun, set turn.Limits) *sandbox.Limits {
	switch {
	case replay != nil:
		return replay.spec.Sandbox
	case rr != nil:
		return rr.src.spec.Sandbox
	case r.cfg.Sandbox == nil:
		return nil
	}
	// The turn's settings (app → project → session → turn) over the
	// runner's, over the defaults.
	lim := sandbox.Limits{MaxSteps: uint64(max(set.CodeSteps, 0)), MaxOutputBytes: set.CodeOutput, Timeout: set.CodeTimeout,
		MaxMemoryBytes: int64(set.CodeMemoryMB) << 20}.Or(r.cfg.Sandbox.Or(sandbox.DefaultLimits()))
	return &lim
}

// hasDocuments reports whether search_knowledge is offered: the place has
// documents, or the replayed turn searched them (they may be gone since;
// the replay serves back what it was given).
func (r *Runner) hasDocuments(ctx context.Context, place knowledge.Place, replay *replaySource) (bool, error) {
	if r.cfg.Knowledge == nil {
		return false, nil
	}
	if replay != nil && replay.called(cite.Name) {
		return true, nil
	}
	docs, err := r.cfg.Knowledge.Store.ListDocuments(ctx, place)
	return len(docs) > 0, err
}

// attach adds documents (PDF, DOCX, Markdown, HTML, text) to the
// session's knowledge and loads other files as its tables. It runs before
// the turn exists: a file that cannot be attached refuses the message and
// leaves nothing behind, not a failed turn, not the documents added before
// it, and not an empty table store.
func (r *Runner) attach(ctx context.Context, sessionID string, files []string) error {
	var tables []string
	var added []string // documents added, removed again if a file fails
	undo := func() {
		for _, id := range added {
			if err := r.cfg.Knowledge.Store.RemoveDocument(context.WithoutCancel(ctx), id); err != nil {
				r.log.Error("removing a document of a refused message", "document", id, "err", err)
			}
		}
	}
	for _, f := range files {
		if r.cfg.Knowledge == nil || !isDocument(f) {
			tables = append(tables, f)
			continue
		}
		id, err := r.addDocument(ctx, sessionID, f)
		if err != nil {
			undo()
			return err
		}
		added = append(added, id)
	}
	if err := r.attachTables(ctx, sessionID, tables); err != nil {
		undo()
		return err
	}
	return nil
}

// isDocument reports whether a file is a document by its name and first
// bytes; a file that cannot be read is left to the tables, which say why.
func isDocument(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	_, ok := extract.Detect(filepath.Base(path), head[:n])
	return ok
}

// addDocument adds one file to the session's documents.
func (r *Runner) addDocument(ctx context.Context, sessionID, path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", apperr.Wrap(err, apperr.Invalid, "%s cannot be read", filepath.Base(path))
	}
	d, err := r.cfg.Knowledge.Add(ctx, knowledge.File{Place: knowledge.Place{SessionID: sessionID}, Name: filepath.Base(path), Bytes: b})
	if err != nil {
		return "", err
	}
	return d.ID, nil
}

// attachTables loads files as tables of the session.
func (r *Runner) attachTables(ctx context.Context, sessionID string, files []string) error {
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
		ts, err := tool.NewSet(append(pick(tt.all, def.Tools), r.builtins(def.Tools, tt)...)...)
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
		if t.shape != nil {
			// A re-run's stage edits: this agent, from the step's stage on.
			t.shape.applyStages(a, name, t.started())
		}
		return a, nil
	}
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

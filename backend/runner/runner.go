package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/chart"
	"github.com/agentdeck/agentdeck/backend/knowledge"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/llm/openai"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
	"github.com/agentdeck/agentdeck/backend/sandbox"
	"github.com/agentdeck/agentdeck/backend/secrets"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/tokens"
	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/web"
	"github.com/agentdeck/agentdeck/backend/workflow"
)

// ToolSource gives extra tools to every agent (MCP servers).
type ToolSource interface {
	Tools() []tool.Tool
}

// Config holds the Runner's dependencies.
type Config struct {
	// DB is the database turns are stored in (a *store.DB).
	DB      Store
	Secrets secrets.Store // may be nil: no stored keys
	// Charts checks the specs of render_chart; nil means no charts.
	Charts *chart.Validator
	// Workflows lists the workflows a session may name.
	Workflows  func() []*workflow.Definition
	MCP        ToolSource // may be nil
	HTTPClient *http.Client
	// ModelCalls tunes every model call: IdleTimeout, MaxRetries,
	// RetryInitial and RetryMax are used (zero: the llm defaults); the
	// other fields are set per turn.
	ModelCalls openai.Config
	// WaitNotice is how long a model call may receive nothing before the
	// turn says it is waiting for the model (agent.Agent.WaitNotice).
	WaitNotice time.Duration
	// Tokens counts prompts for the context meter (nil: a new Counter).
	Tokens *tokens.Counter
	// Knowledge holds the documents search_knowledge searches and an
	// attached document joins; nil means no documents.
	Knowledge *knowledge.Library
	// Web reads the pages fetch_url asks for; nil means no fetch_url.
	Web *web.Fetcher
	// Sandbox are run_code's limits (zero fields: sandbox.DefaultLimits);
	// nil means no run_code.
	Sandbox *sandbox.Limits
	Logger  *slog.Logger
	// Ended, if set, is told of each turn once its record is stored
	// whole (its ending and last events), before Wait returns: the
	// OpenTelemetry export follows turns there. It runs on the turn's
	// goroutine, so it must not block.
	Ended func(sessionID, turnID string)
}

// Runner runs turns. It is safe for concurrent use.
type Runner struct {
	cfg       Config
	log       *slog.Logger
	approvals *agent.Approvals
	counter   *tokens.Counter
	meter     meterCache
	unkept    factsMemo

	mu      sync.Mutex
	running map[string]*Handle // by turn id
	// pending holds the endings a full disk kept from being stored, by
	// turn id (pending.go).
	pending map[string]pendingEnding
}

// New returns a Runner.
func New(cfg Config) *Runner {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.Workflows == nil {
		cfg.Workflows = func() []*workflow.Definition { return nil }
	}
	counter := cfg.Tokens
	if counter == nil {
		counter = tokens.New()
	}
	return &Runner{cfg: cfg, log: log, approvals: agent.NewApprovals(), counter: counter, running: map[string]*Handle{}, pending: map[string]pendingEnding{}}
}

// Request asks for one turn.
type Request struct {
	SessionID string
	Message   string
	// Parent is the turn the new one follows: given the parent of an
	// existing turn, the new turn is another version of it. "" follows the
	// session's active turn. The model is sent the branch up to Parent.
	Parent string
	// VersionOf, when set, makes the turn a new version of that turn (an
	// edit, a regeneration, a retry): it follows the same turn, a first
	// message's version follows none. It overrides Parent.
	VersionOf string
	// Continue, when set, continues the answer of that turn (stopped, or
	// ended at a limit): the new turn follows it, is marked as its
	// continuation, and Message is ignored. See continuation.go.
	Continue string
	// Workflow is a workflow name or a file path; "" uses the session's.
	Workflow string
	// Model, Provider and BaseURL override the session's model source.
	Model    string
	Provider string
	BaseURL  string
	// APIKey is a key from the caller's environment (CLI); never stored.
	APIKey string
	// Limits set by the caller win over the settings' (CLI flags).
	Limits turn.Limits
	// Settings is the turn's own layer of settings (turn.LayerTurn): over
	// the app's, the project's and the session's, for this turn only.
	Settings turn.RunSettings
	Capture  recording.Mode
	Approver agent.Approver // nil: deny side effects
	Sinks    []turn.Sink
	// TurnSinks, if set, gives sinks that need the turn's id (the app's
	// live hub); they are added after Sinks, before any event is emitted.
	TurnSinks func(turnID string) []turn.Sink
	// Images go with Message, for a model that sees (stored with the
	// turn's user message).
	Images []llm.Image
	// Attach lists files to load as tables before the turn runs.
	Attach    []string
	Workspace string
	// History, when set, replaces the session's stored conversation.
	History []llm.Message
	// Replay, when set, replays a recorded turn (see Replay): its message,
	// history, workflow and limits are the original's, and Message,
	// History, Workflow, Model and Limits are ignored.
	Replay *Replay
	// Force stores the turn even in a database known to be damaged (see
	// store.StartOptions): the person was told and insisted.
	Force bool
	// OverBudget sends even though the provider's monthly budget is spent:
	// the person was asked and agreed (the app), or said so (--over-budget).
	OverBudget bool
	// Column, set by StartGroup, starts the turn as a column of a
	// side-by-side group; it names the turn's parent itself.
	Column *Column
	// From, when set, re-runs a stored turn from one of its steps with one
	// edit (rerun.go): the steps before it come from the original's
	// recordings, the rest runs live. Message, History and Workflow are
	// the original's (Message is the edit's when it edits the message);
	// Model, Provider and BaseURL are for the live part.
	From *From
}

// Handle is a started turn.
type Handle struct {
	TurnID    string
	SessionID string
	// Seq is the turn's number in its session.
	Seq int
	// Group, Slot and Target place a side-by-side column ("" otherwise).
	Group  string
	Slot   int
	Target string
	cancel context.CancelFunc
	done   chan struct{}
	res    turn.Result
}

// Done is closed when the turn has ended and is stored.
func (h *Handle) Done() <-chan struct{} { return h.done }

// Wait blocks until the turn ends and returns its result.
func (h *Handle) Wait() turn.Result {
	<-h.done
	return h.res
}

// Start begins a turn and returns at once; the turn runs in the background.
func (r *Runner) Start(ctx context.Context, req Request) (*Handle, error) {
	db := r.cfg.DB
	sess, err := db.GetSession(ctx, req.SessionID)
	if err != nil {
		return nil, err
	}
	var replay *replaySource
	var rr *rerun
	switch {
	case req.Replay != nil:
		if replay, req, err = r.prepareReplay(ctx, req); err != nil {
			return nil, err
		}
	case req.From != nil:
		if rr, req, err = r.prepareRerun(ctx, req); err != nil {
			return nil, err
		}
	}
	set, err := r.turnSettings(ctx, sess.ID, req, firstSource(replay, rr))
	if err != nil {
		return nil, err
	}
	if rr != nil {
		set = rr.settings(set)
	}
	def, err := r.resolveWorkflow(firstOf(req.Workflow, set.Settings.Workflow), firstSource(replay, rr))
	if err != nil {
		return nil, err
	}
	// A replay's model is the original's (req.Model, from prepareReplay);
	// a re-run's agents ask for the original's, and its live calls for
	// liveModel when the edit or the caller names one.
	model := firstOf(req.Model, set.Settings.Model)
	liveModel := ""
	if rr != nil {
		model, liveModel = rr.src.agentModel(), firstOf(rr.from.Edit.Settings.Model, req.Model)
	}
	var src source
	switch {
	case rr != nil:
		// The live part's server: the edit's, the caller's (run --from
		// --provider, an evaluation's target), else the original's.
		provider := firstOf(rr.from.Edit.Settings.Provider, req.Provider, set.Settings.Provider)
		if src, err = r.modelSource(ctx, provider, req, firstOf(liveModel, model)); err != nil {
			return nil, err
		}
	case replay == nil:
		req.Limits = set.Settings.Limits
		if src, err = r.modelSource(ctx, set.Settings.Provider, req, model); err != nil {
			return nil, err
		}
	}
	parent, err := r.parentOf(ctx, sess, req)
	if err != nil {
		return nil, err
	}
	start := store.StartOptions{Force: req.Force, Follows: true}
	if c := req.Column; c != nil {
		parent, start.Group, start.Slot, start.Target = c.Parent, c.Group, c.Slot, c.Target
	}
	for _, im := range req.Images {
		if err := store.CheckImage(im); err != nil {
			return nil, err
		}
	}
	history := req.History
	if history == nil {
		if history, err = r.pathHistory(ctx, parent); err != nil {
			return nil, err
		}
	}
	if req.Continue != "" {
		req.Message = continuationMessage(src.cfg.Prefix, def, history)
	}
	if err := r.attach(ctx, sess.ID, req.Attach); err != nil {
		return nil, err
	}
	if err := r.storePending(ctx, sess.ID); err != nil {
		return nil, err
	}
	row := store.Turn{SessionID: sess.ID, UserMessage: req.Message, Workflow: def.Name, Model: firstOf(liveModel, model), ParentTurnID: parent, Continues: req.Continue != "", Images: req.Images}
	var rspec *rerunSpec
	if rr != nil {
		row.FromTurnID, row.FromStep, row.FromEdit = rr.from.TurnID, rr.step.ID, string(rr.from.Edit.Kind)
		rspec = rr.spec(model, liveModel)
	} else if replay != nil {
		rspec = replay.spec.Rerun // a replay of a re-run is shaped as it was
	}
	tr, err := db.StartTurn(ctx, row, start)
	if err != nil {
		return nil, err
	}
	req.Images = tr.Images // stored now, with their ids: the message names them when the turn ends
	code := r.codeLimits(replay, rr, set.Settings.Limits)
	if spec, err := json.Marshal(runSpec{Limits: req.Limits, Workflow: def, Capture: captureOf(req, replay != nil || rr != nil), Settings: &set, Agents: agentRuns(def), Rerun: rspec, Sandbox: code}); err == nil {
		if err := db.SetTurnRun(ctx, tr.ID, spec); err != nil {
			r.log.Error("saving how the turn runs", "turn", tr.ID, "err", err)
		}
	}
	h := &Handle{TurnID: tr.ID, SessionID: sess.ID, Seq: tr.Seq, Group: tr.GroupID, Slot: tr.GroupSlot, Target: tr.Target, done: make(chan struct{})}
	// The turn outlives the request that started it; only Stop ends it.
	turnCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	h.cancel = cancel
	r.mu.Lock()
	r.running[tr.ID] = h
	r.mu.Unlock()

	evlog := db.NewEventLog(tr.ID, store.EventLogOptions{Logger: r.log})
	sinks := append([]turn.Sink{evlog}, req.Sinks...)
	if req.TurnSinks != nil {
		sinks = append(sinks, req.TurnSinks(tr.ID)...)
	}
	em := turn.NewEmitter(turn.EmitterConfig{SessionID: sess.ID, TurnID: tr.ID, Sinks: sinks, Logger: r.log})
	t := turnRun{req: req, sess: sess, def: def, settings: set, model: model, history: history, em: em, evlog: evlog, dataSession: sess.ID, shape: rspec, code: code}
	switch {
	case replay != nil:
		rc := replay.client(db.TurnRecordings(replay.orig.ID), db.Captures(tr.ID), req.Replay.Strict, em)
		// A replayed call costs nothing (catalog.WithPrice); one the record
		// lacks has no price here.
		t.client = catalog.WithPrice(replay.failAgain(rc), "", func(string) *llm.Price { return nil })
		if rspec != nil {
			sc := &shapeClient{recorded: t.client, live: t.client, k: rspec.RecordedCalls, spec: rspec}
			t.client, t.started = sc, sc.started
		}
		t.replay, t.replayClient, t.dataSession = replay, rc, replay.orig.SessionID
		req.Approver = replay.approver()
	case rr != nil:
		live := src.client(db.Captures(tr.ID), recording.Record)
		sc := rr.client(db.TurnRecordings(rr.src.orig.ID), db.Captures(tr.ID), live, liveModel, em)
		t.client, t.started, t.rerun, t.window = sc, sc.started, rr, src.window
		if req.Approver == nil {
			req.Approver = agent.PolicyApprover{}
		}
		req.Approver = rerunApprover{plan: rr, orig: rr.src.approver(), inner: req.Approver}
	default:
		t.client, t.window = src.client(db.Captures(tr.ID), req.Capture), src.window
	}
	if req.Approver == nil {
		req.Approver = agent.PolicyApprover{}
	}
	t.req.Approver = recordingApprover{inner: req.Approver, db: db, log: r.log}
	go r.run(turnCtx, h, t)
	return h, nil
}

// turnRun is what one turn's goroutine needs.
type turnRun struct {
	req  Request
	sess store.Session
	def  *workflow.Definition
	// settings are what the turn runs with (settings.go).
	settings turn.Resolved
	model    string
	client   llm.Client
	// window is the model's window, when its server or the user said it.
	window  int
	history []llm.Message
	em      *turn.Emitter
	evlog   store.EventLog
	// dataSession is the session whose attached tables the turn queries:
	// its own, or for a replay the original's.
	dataSession string
	// replay and replayClient are set when the turn replays another.
	replay       *replaySource
	replayClient *recording.TurnReplay
	// rerun is set when the turn re-runs another from a step; shape when
	// it is a re-run or replays one (its edits from a call on), with
	// started the turn's count of model calls begun.
	rerun   *rerun
	shape   *rerunSpec
	started func() int
	// code are run_code's limits for the turn, nil when it is not offered.
	code *sandbox.Limits
}

func (r *Runner) run(ctx context.Context, h *Handle, t turnRun) {
	defer close(h.done)
	defer h.cancel()
	defer func() {
		r.mu.Lock()
		delete(r.running, h.TurnID)
		r.mu.Unlock()
	}()
	// A full disk stops the turn (see diskfull.go): the event log and the
	// recording of a model call report it.
	ctx, stopForDisk := context.WithCancelCause(ctx)
	defer stopForDisk(nil)
	full := func(err error) { stopForDisk(fmt.Errorf("%w: %w", errDiskFull, err)) }
	t.evlog.OnFull(full)
	t.client = diskFullWatch{inner: t.client, full: full}
	if err := r.cfg.DB.KeepReserve(); err != nil {
		r.log.Warn("keeping the reserve beside the database", "path", store.ReservePath(r.cfg.DB.Path()), "err", err)
	}
	tools, closeTools, toolErr := r.tools(ctx, t)
	defer closeTools()
	if t.replay != nil {
		// Every session tool, and the Recorded built-ins, answer as in
		// the original.
		wrap := t.replay.wrapper(t.em)
		for i, tl := range tools.all {
			tools.all[i] = wrap(tl)
		}
		tools.recorded = wrap
	}
	if t.rerun != nil {
		// Every session tool, and the Recorded built-ins, answer as in
		// the original before the step, and run from it on.
		wrap := t.rerun.wrapper(t.em)
		for i, tl := range tools.all {
			tools.all[i] = wrap(tl)
		}
		tools.recorded, tools.edited = wrap, t.rerun.editedOnly(t.em)
	}
	eng := &workflow.Engine{Logger: r.log, NewAgent: r.agentFactory(t, tools)}
	ended := false // the disk-full path stored the ending, or kept it
	h.res = turn.RunTurn(ctx, t.em, func(ctx context.Context) turn.Result {
		if toolErr != nil {
			return turn.Result{Outcome: turn.OutcomeFailed, Termination: turn.Termination{Kind: turn.TermFailed, Error: apperr.MessageOf(toolErr)},
				Error: apperr.MessageOf(toolErr), ErrorSource: "config",
				Messages: append(append([]llm.Message(nil), t.history...), llm.Message{Role: llm.RoleUser, Content: t.req.Message, Images: t.req.Images})}
		}
		res := eng.Run(ctx, t.em, t.def, agent.Input{History: t.history, User: t.req.Message, Images: t.req.Images})
		if stoppedForDiskFull(ctx) {
			// Stored (or kept for later) here: its message must say
			// which before it goes out.
			res, _ = r.diskFullEnding(h, t, res)
			ended = true
		} else {
			emitBlockArtifacts(t.em, res)
		}
		return res
	}, func(res turn.Result) {
		if t.replay != nil && res.OK {
			t.replay.missingCalls(t.replayClient, t.em)
		}
		if t.rerun != nil {
			t.rerun.ended(t.em)
		}
		if ended {
			return
		}
		// Durable before reported: flush the events so far and store the
		// result before the terminal events go out.
		if err := t.evlog.Flush(); err != nil {
			r.log.Error("flushing events", "turn", h.TurnID, "err", err)
		}
		if err := r.finishTurn(h, t, res); err != nil {
			// The turn stays running: the ending is kept and stored once
			// there is room (pending.go), or the next start marks it
			// interrupted with the answer its events stored.
			r.log.Error("storing the turn result", "turn", h.TurnID, "err", err)
			r.keepPending(h, len(t.history), res)
		}
	})
	if err := t.evlog.Close(); err != nil {
		r.log.Error("storing the last events", "turn", h.TurnID, "err", err)
	}
	if r.cfg.Ended != nil {
		r.cfg.Ended(t.sess.ID, h.TurnID)
	}
}

// Stop cancels a running turn. Stopping a turn that already ended is not
// an error.
func (r *Runner) Stop(turnID string) error {
	r.mu.Lock()
	h := r.running[turnID]
	r.mu.Unlock()
	if h == nil {
		return nil
	}
	h.cancel()
	return nil
}

// StopAll stops every running turn and waits for them to be stored, at
// most timeout. It is what quitting the app does.
func (r *Runner) StopAll(timeout time.Duration) {
	r.mu.Lock()
	hs := make([]*Handle, 0, len(r.running))
	for _, h := range r.running {
		hs = append(hs, h)
	}
	r.mu.Unlock()
	deadline := time.After(timeout)
	for _, h := range hs {
		h.cancel()
	}
	for _, h := range hs {
		select {
		case <-h.done:
		case <-deadline:
			r.log.Warn("turns still stopping at quit", "turn", h.TurnID)
			return
		}
	}
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

func timeDuration(d workflow.Duration) time.Duration { return time.Duration(d) }

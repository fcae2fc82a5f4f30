package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/timeline"
	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// rerunSpec is what a re-run stores with its turn (runSpec.Rerun), so
// that replaying it later shapes its requests as the re-run did: the
// settings and stage edits from call RecordedCalls on, the edited tool
// result served back.
type rerunSpec struct {
	From From `json:"from"`
	// RecordedCalls is how many model calls the re-run made before its
	// step (served from the recordings, or failed again as they failed).
	RecordedCalls int    `json:"recorded_calls"`
	EditedCall    string `json:"edited_call,omitempty"` // the tool call whose result was typed
	StageAgent    string `json:"stage_agent,omitempty"` // the agent a stage edit sets
	LiveModel     string `json:"live_model,omitempty"`  // the live calls' model, when edited
	// AgentModel is the model the re-run's agents asked for (the
	// original's); the turn's own model is the live one. A replay of the
	// re-run asks for it too, so that its recorded requests match.
	AgentModel string `json:"agent_model,omitempty"`
	// Base is the original's, when the original was a re-run too.
	Base *rerunSpec `json:"base,omitempty"`
}

// agentModel is the model a replay or a re-run of the turn has its
// agents ask for: a re-run's agents asked for its original's.
func (src *replaySource) agentModel() string {
	if r := src.spec.Rerun; r != nil && r.AgentModel != "" {
		return r.AgentModel
	}
	return src.orig.Model
}

// spec is what the turn stores of the plan. A re-run of a re-run keeps
// its original's spec as its Base: the original's edits shaped the calls
// it serves from the original's recordings, and hold on in its live part
// where its own edit sets nothing.
func (p *rerun) spec(agentModel, liveModel string) *rerunSpec {
	s := &rerunSpec{From: p.from, RecordedCalls: p.callsBefore(), LiveModel: liveModel, AgentModel: agentModel, Base: p.src.spec.Rerun}
	if p.from.Edit.Kind == EditToolResult {
		s.EditedCall = p.step.CallID
	}
	if p.from.Edit.Kind == EditStage {
		s.StageAgent = p.step.Agent
	}
	p.shape = s
	return s
}

// shape rewrites call i's request as the re-run (and the re-runs it
// re-ran) did: each edit from its own step on, the earliest first.
func (s *rerunSpec) shape(req llm.Request, i int) llm.Request {
	if s == nil {
		return req
	}
	req = s.Base.shape(req, i)
	if i >= s.RecordedCalls {
		req = rewrite(req, s.From.Edit, s.LiveModel)
	}
	return req
}

// applyStages applies the stage edits of the chain that hold for agent
// name, created once started calls have begun.
func (s *rerunSpec) applyStages(a *agent.Agent, name string, started int) {
	if s == nil {
		return
	}
	s.Base.applyStages(a, name, started)
	if s.StageAgent == name && started >= s.RecordedCalls {
		applyStage(a, s.From.Edit.Stage)
	}
}

// editedCalls are the tool calls whose results the chain typed.
func (s *rerunSpec) editedCalls() map[string]bool {
	out := map[string]bool{}
	for ; s != nil; s = s.Base {
		if s.EditedCall != "" {
			out[s.EditedCall] = true
		}
	}
	return out
}

// shapeClient serves a turn's first k calls through recorded and the rest
// through live, each request shaped by spec; the first live call tells
// onLive. A re-run's recorded is the original's recordings and live the
// model; a replay of a re-run serves both from the re-run's own
// recordings, shaped the same way so their keys match.
type shapeClient struct {
	recorded llm.Client // calls before k
	live     llm.Client // calls from k on
	// reply, when set, answers call k with the edited reply (recorded).
	reply  llm.Client
	k      int
	spec   *rerunSpec
	onLive func()

	mu sync.Mutex
	n  int
}

// started is how many calls the turn has begun: the tools of call i run
// while it is i+1.
func (c *shapeClient) started() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func (c *shapeClient) Stream(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (llm.Response, error) {
	c.mu.Lock()
	i := c.n
	c.n++
	c.mu.Unlock()
	req = c.spec.shape(req, i)
	if i < c.k {
		return c.recorded.Stream(ctx, req, fn)
	}
	if c.onLive != nil {
		c.onLive()
	}
	if i == c.k && c.reply != nil {
		return c.reply.Stream(ctx, req, fn)
	}
	return c.live.Stream(ctx, req, fn)
}

// typedReply is a model that answers with the text a person typed: the
// edited reply of a re-run, recorded like any answer.
type typedReply struct{ text string }

func (t typedReply) Stream(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (llm.Response, error) {
	start := time.Now()
	if err := fn(llm.Chunk{Content: t.text}); err != nil {
		return llm.Response{}, err
	}
	msg := llm.Message{Role: llm.RoleAssistant, Content: t.text}
	end := time.Now()
	return llm.Response{Message: msg, FinishReason: "stop", Diagnostics: llm.CallDiagnostics{
		Model: req.Model, StartedAt: start.UTC(), CompletedAt: end.UTC(), Duration: end.Sub(start), Attempts: 1, OK: true,
		RequestMessages: len(req.Messages), Notes: []string{"the reply was typed by a person (a re-run's edit), not written by the model"}}}, ctx.Err()
}

// client builds the re-run's model client: the original's first calls
// from its recordings (linked to the new turn, free), the rest live.
func (p *rerun) client(recordings store.TurnRecordings, captures store.Captures, live llm.Client, liveModel string, em *turn.Emitter) *shapeClient {
	c := &shapeClient{live: live, k: p.callsBefore(), spec: p.shape, onLive: p.liveOnce(em)}
	if c.k > 0 {
		c.recorded = p.src.failAgain(p.src.client(recordings, captures, false, em))
	}
	if p.from.Edit.Kind == EditReply {
		c.reply = recording.WithCapture(typedReply{text: p.from.Edit.Text}, recording.Options{Mode: recording.Record, Store: captures})
	}
	p.started = c.started
	return c
}

// liveOnce emits live_from the first time the turn does anything live.
func (p *rerun) liveOnce(em *turn.Emitter) func() {
	return func() {
		p.once.Do(func() {
			em.Emit(turn.Draft{Data: turn.LiveFromData{FromTurnID: p.from.TurnID, FromStep: p.step.ID, Edit: string(p.from.Edit.Kind),
				RecordedCalls: p.step.RecordedCalls, RecordedTools: p.servedTools()}})
		})
	}
}

// ended marks the boundary of a re-run in which nothing after the step
// ran live (a step after the last model call and tool, such as a stage
// the workflow skipped): live_from comes at the end, so every re-run has
// one.
func (p *rerun) ended(em *turn.Emitter) { p.liveOnce(em)() }

// Where a tool call of the re-run gets its result.
type toolSource int

const (
	fromOriginal toolSource = iota // the original's result (before the step)
	fromEdit                       // the typed result (the step itself)
	runLive                        // run it (after the step)
)

// sourceOf says where a tool call gets its result: a call of a recorded
// model call is before the step, except in the step's own batch, where the
// edited call is the step and the calls the original finished after it
// run live.
func (p *rerun) sourceOf(callID string) toolSource {
	phase := p.started()
	k := p.callsBefore()
	if p.step.Kind != timeline.KindTool {
		if phase <= k {
			return fromOriginal
		}
		return runLive
	}
	switch {
	case phase < k:
		return fromOriginal
	case phase > k:
		return runLive
	case callID == p.step.CallID:
		if p.from.Edit.Kind == EditToolResult {
			return fromEdit
		}
		return runLive
	case p.before[callID]:
		return fromOriginal
	}
	return runLive
}

// rerunTool stands in for a tool during a re-run.
type rerunTool struct {
	inner tool.Tool
	orig  replayTool // the original's results, as a replay gives them
	plan  *rerun
	live  func()
	// after holds the original's results for --no-side-effects.
	after *results
}

func (t rerunTool) Spec() tool.Spec { return t.inner.Spec() }

func (t rerunTool) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	switch t.plan.sourceOf(tool.CallID(ctx)) {
	case fromOriginal:
		t.plan.countServed()
		return t.orig.Execute(ctx, args)
	case fromEdit:
		t.live()
		return t.plan.from.Edit.Text, nil
	}
	t.live()
	spec := t.inner.Spec()
	if t.plan.from.NoSideEffects && spec.SideEffects {
		rec, ok := t.after.next(callKey(spec.Name, args))
		if !ok {
			return "", fmt.Errorf("not run: this re-run runs nothing with side effects, and the original turn made no call to %s with these arguments", spec.Name)
		}
		if rec.Error != "" {
			return "", replayedError(rec.Error)
		}
		return rec.Output, nil
	}
	return t.inner.Execute(ctx, args)
}

// wrapper puts a tool of the re-run behind its stand-in.
func (p *rerun) wrapper(em *turn.Emitter) func(tool.Tool) tool.Tool {
	// NoSideEffects answers a call after the step with the original's
	// result of the same call after it, never one from before.
	q, after, live := p.src.ranResults(), p.src.ranResultsExcept(p.earlier), p.liveOnce(em)
	return func(t tool.Tool) tool.Tool {
		return rerunTool{inner: t, orig: replayTool{inner: t, orig: q, em: em, served: true}, plan: p, live: live, after: after}
	}
}

func (p *rerun) countServed() {
	p.mu.Lock()
	p.served++
	p.mu.Unlock()
}

func (p *rerun) servedTools() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.served
}

// rerunApprover answers approvals before the step as the original's were
// answered, lets the typed result and (with NoSideEffects) the calls that
// will not run through without asking, and asks inner for the rest.
type rerunApprover struct {
	plan  *rerun
	orig  *replayApprover
	inner agent.Approver
}

func (a rerunApprover) Approve(ctx context.Context, req agent.ApprovalRequest) (turn.Answer, error) {
	switch a.plan.sourceOf(req.CallID) {
	case fromOriginal:
		return a.orig.Approve(ctx, req)
	case fromEdit:
		return turn.AllowOnce, nil
	}
	if a.plan.from.NoSideEffects && req.SideEffects {
		return turn.AllowOnce, nil
	}
	return a.inner.Approve(ctx, req)
}

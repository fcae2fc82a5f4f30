package runner

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/tokens"
	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/workflow"
)

// The context meter: how much of the model's window the next message
// would fill, counted before it is sent. It counts what the first model
// call of the turn would carry: the system prompt and tool definitions of
// the workflow's largest agent (the worst case of its stages), the
// conversation on the path the message follows, the images, and the
// draft. Exact for OpenAI models (tiktoken); otherwise an estimate,
// corrected by the prompt_tokens the server reported for the last turn.

// Meter states.
const (
	MeterOK   = "ok"
	MeterNear = "near" // past MeterNearShare of the window
	MeterOver = "over" // the prompt alone does not fit
)

// MeterNearShare is the share of the window past which the meter warns.
const MeterNearShare = 0.8

// MeterRequest asks how full the context of a draft would be.
type MeterRequest struct {
	SessionID string `json:"session_id"`
	// Parent is the turn the draft follows ("" the session's active turn).
	Parent string `json:"parent,omitempty"`
	Draft  string `json:"draft"`
	// Images is how many images go with the draft.
	Images int `json:"images,omitempty"`
	// Workflow and Model override the session's, as SendRequest's do.
	Workflow string `json:"workflow,omitempty"`
	Model    string `json:"model,omitempty"`
}

// MeterPart is one part of the prompt and its tokens.
type MeterPart struct {
	// Name is "system", "tools", "history", "images" or "draft".
	Name   string `json:"name"`
	Tokens int    `json:"tokens"`
}

// Meter is how full the context of the next message would be.
type Meter struct {
	Provider string      `json:"provider"`
	Model    string      `json:"model"`
	Window   llm.Window  `json:"window"`
	Parts    []MeterPart `json:"parts"`
	Total    int         `json:"total"`
	// Method is how the tokens were counted (tokens.Method).
	Method tokens.Method `json:"method"`
	// Corrected is set when an estimate was scaled by what the server
	// reported for the last turn's prompt.
	Corrected bool `json:"corrected,omitempty"`
	// State is MeterOK, MeterNear or MeterOver.
	State string `json:"state"`
	// HistoryMessages is how many messages of the conversation are sent.
	HistoryMessages int        `json:"history_messages"`
	Price           *llm.Price `json:"price,omitempty"`
	// Budget is where the provider's monthly budget stands (nil: none).
	Budget *BudgetState `json:"budget,omitempty"`
	Note   string       `json:"note,omitempty"`
}

// meterStore reads what the meter corrects an estimate by, what the
// server counted of a turn's first call, and whether the turn a draft
// follows still runs.
type meterStore interface {
	FirstCallInput(ctx context.Context, turnID string) (input int, estimated, ok bool, err error)
	TurnOwnership(ctx context.Context, turnID string) (store.Ownership, error)
}

// meterBase is what a meter counts before the draft, kept for the next
// keystroke: a long conversation is counted once, the draft each time.
type meterBase struct {
	key                    string
	system, tools, history int
	messages               int
	lastEstimate, reported int
	method                 tokens.Method
}

// meterCache holds the last meterBase.
type meterCache struct {
	mu   sync.Mutex
	base meterBase
}

// Meter counts the context of req's draft against its model's window.
func (r *Runner) Meter(ctx context.Context, req MeterRequest) (Meter, error) {
	sess, err := r.cfg.DB.GetSession(ctx, req.SessionID)
	if err != nil {
		return Meter{}, err
	}
	// The model, provider and workflow the turn would resolve to.
	layers, err := r.cfg.DB.SettingsFor(ctx, sess.ID)
	if err != nil {
		return Meter{}, err
	}
	set := turn.Resolve(append(layers, turn.Layer{Name: turn.LayerTurn, Settings: turn.RunSettings{Model: req.Model, Workflow: req.Workflow}})...).Settings
	model, provider := set.Model, set.Provider
	def, err := r.workflow(set.Workflow)
	if err != nil {
		return Meter{}, err
	}
	parent, err := r.parentOf(ctx, sess, Request{SessionID: sess.ID, Parent: req.Parent})
	if err != nil {
		return Meter{}, err
	}
	m := Meter{Provider: provider, Model: model, Window: catalog.KnownWindow(model)}
	if provider != "" {
		if p, err := r.provider(ctx, provider); err == nil {
			f := r.facts(ctx, p, model)
			m.Window, m.Price, m.Note = f.Window, f.Price, f.Note
			if b, err := r.budget(ctx, p); err == nil && b.Budget.MonthlyUSD > 0 {
				m.Budget = &b
			}
		}
	}
	base, err := r.meterBase(ctx, sess.ID, parent, def, model)
	if err != nil {
		return Meter{}, err
	}
	draft, _ := r.counter.Text(model, req.Draft)
	if req.Draft != "" {
		draft += 4 // the message's own tokens
	}
	m.Method, m.HistoryMessages = base.method, base.messages
	m.Parts = []MeterPart{
		{Name: "system", Tokens: base.system},
		{Name: "tools", Tokens: base.tools},
		{Name: "history", Tokens: base.history},
		{Name: "images", Tokens: req.Images * tokens.ImageTokens},
		{Name: "draft", Tokens: draft},
	}
	for _, p := range m.Parts {
		m.Total += p.Tokens
	}
	if !base.method.Exact() && base.reported > 0 {
		if c := tokens.Corrected(m.Total, base.lastEstimate, base.reported); c != m.Total {
			// Spread the correction over the parts, so they still add up.
			scale := float64(c) / float64(m.Total)
			m.Total = 0
			for i := range m.Parts {
				m.Parts[i].Tokens = int(float64(m.Parts[i].Tokens)*scale + 0.5)
				m.Total += m.Parts[i].Tokens
			}
			m.Corrected = true
		}
	}
	switch {
	case m.Total >= m.Window.Tokens:
		m.State = MeterOver
	case float64(m.Total) >= MeterNearShare*float64(m.Window.Tokens):
		m.State = MeterNear
	default:
		m.State = MeterOK
	}
	return m, nil
}

// meterBase counts the system prompt, tools and conversation a message
// following parent would carry, or takes them from the last count when
// nothing they depend on changed.
func (r *Runner) meterBase(ctx context.Context, sessionID, parent string, def *workflow.Definition, model string) (meterBase, error) {
	system, toolDefs, err := r.promptOf(ctx, sessionID, def)
	if err != nil {
		return meterBase{}, err
	}
	// The parent's state is in the key: a count taken while it runs (its
	// answer not yet kept) is not the conversation once it has ended.
	var state store.TurnState
	if parent != "" {
		o, err := r.cfg.DB.TurnOwnership(ctx, parent)
		if err != nil {
			return meterBase{}, err
		}
		state = o.State
	}
	key := strings.Join([]string{sessionID, parent, string(state), def.Name, model, system, strconv.Itoa(len(toolDefs))}, "\x00")
	r.meter.mu.Lock()
	cached := r.meter.base
	r.meter.mu.Unlock()
	if cached.key == key {
		return cached, nil
	}
	history, err := r.pathHistory(ctx, parent)
	if err != nil {
		return meterBase{}, err
	}
	b := meterBase{key: key, messages: len(history)}
	var sys []llm.Message
	if system != "" {
		sys = []llm.Message{{Role: llm.RoleSystem, Content: system}}
	}
	b.system, b.method = r.counter.Prompt(model, sys, nil)
	withTools, _ := r.counter.Prompt(model, sys, toolDefs)
	b.tools = withTools - b.system
	all, _ := r.counter.Prompt(model, append(sys, history...), toolDefs)
	b.history = all - withTools
	// What the last turn's first call sent, against what its server
	// counted: the estimate's correction.
	if parent != "" {
		if in, estimated, ok, err := r.cfg.DB.FirstCallInput(ctx, parent); err == nil && ok && !estimated && in > 0 {
			before, err := r.turnStartHistory(ctx, parent)
			if err == nil && before != nil {
				b.lastEstimate, _ = r.counter.Prompt(model, append(sys, before...), toolDefs)
				b.reported = in
			}
		}
	}
	r.meter.mu.Lock()
	r.meter.base = b
	r.meter.mu.Unlock()
	return b, nil
}

// turnStartHistory is what the first call of turnID sent: the
// conversation up to it and its user message (nil when unknown).
func (r *Runner) turnStartHistory(ctx context.Context, turnID string) ([]llm.Message, error) {
	path, err := r.pathHistory(ctx, turnID)
	if err != nil {
		return nil, err
	}
	// The turn's own messages end the path: keep up to its user message.
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].Role == llm.RoleUser {
			return path[:i+1], nil
		}
	}
	return nil, nil
}

// promptOf is the system prompt and tool definitions of def's largest
// agent in the session: the most any of its stages' first calls carries.
func (r *Runner) promptOf(ctx context.Context, sessionID string, def *workflow.Definition) (string, []llm.Tool, error) {
	sess, err := r.cfg.DB.GetSession(ctx, sessionID)
	if err != nil {
		return "", nil, err
	}
	tt, release, err := r.tools(ctx, turnRun{sess: sess, dataSession: sessionID})
	defer release()
	if err != nil {
		return "", nil, err
	}
	var system string
	var defs []llm.Tool
	size := -1
	for _, a := range def.Agents {
		set, err := tool.NewSet(append(pick(tt.all, a.Tools), r.builtins(a.Tools, tt)...)...)
		if err != nil {
			return "", nil, err
		}
		ts := set.LLMTools()
		n := len(a.SystemPrompt)
		for _, t := range ts {
			n += len(t.Name) + len(t.Description) + len(t.Parameters)
		}
		if n > size {
			size, system, defs = n, a.SystemPrompt, ts
		}
	}
	return system, defs, nil
}

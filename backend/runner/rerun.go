package runner

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
	"github.com/agentdeck/agentdeck/backend/timeline"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Time travel: a re-run from a step (From). The new turn is a version of
// the original in the tree. Everything before the step comes from the
// original: its model calls are served from the original's recordings in
// call order (linked to the new turn, so it keeps them when the original
// is deleted), its tool calls get the original's results, and nothing
// with a side effect runs again. At the step the one edit is applied, and
// from there the turn runs live: a step after the edit never comes from a
// recording. The boundary is the turn's live_from event.
//
// The state at a step is not stored anywhere: it is what running the
// workflow over the recorded answers and results rebuilds, which the
// executors do exactly because they are deterministic given the model's
// answers and the tools' results (docs/RECORDINGS.md#time-travel).

// EditKind is the one change a re-run makes at its step.
type EditKind string

// The edits a re-run can make, and the step each applies to.
const (
	EditNone         EditKind = ""              // any step: run it again live
	EditMessage      EditKind = "message"       // start: the user message
	EditSystemPrompt EditKind = "system_prompt" // start: the session's instructions
	EditToolResult   EditKind = "tool_result"   // a tool step: what the tool returned
	EditReply        EditKind = "reply"         // a call step: what the model said
	EditSettings     EditKind = "settings"      // a call step (or start): model, provider, sampling from there on
	EditStage        EditKind = "stage"         // a stage step: its agent's settings or prompt from there on
)

// Edit is the change a re-run makes at its step.
type Edit struct {
	Kind EditKind `json:"kind,omitempty"`
	// Text is the new message, system prompt, tool result or reply.
	Text string `json:"text,omitempty"`
	// Settings (EditSettings): the provider, model and sampling the live
	// calls use; what is not set stays as the original had it.
	Settings turn.RunSettings `json:"settings,omitzero"`
	// Stage (EditStage) sets fields of the stage's agent, by name:
	// system_prompt, model, temperature, top_p, max_tokens, seed,
	// reasoning_effort. It applies to that agent from the stage on.
	Stage map[string]string `json:"stage,omitempty"`
}

// StageEditKeys are the agent fields a stage edit may set.
var StageEditKeys = []string{"system_prompt", "model", "temperature", "top_p", "max_tokens", "seed", "reasoning_effort"}

// From asks Start to re-run a stored turn from one of its steps.
type From struct {
	TurnID string `json:"turn_id"`
	// Step is a timeline step id of the turn (timeline.Steps): start,
	// stageN, callN, toolN.
	Step string `json:"step"`
	Edit Edit   `json:"edit,omitzero"`
	// NoSideEffects answers a side-effecting tool call after the step with
	// the original's result for the same call, and refuses one the
	// original never made: nothing outside the conversation changes.
	NoSideEffects bool `json:"no_side_effects,omitempty"`
}

// rerun is a re-run's plan: the original, the step, and the edit.
type rerun struct {
	src  *replaySource
	from From
	step timeline.TimelineStep
	// before are the call ids of the tool results the original stored
	// before the step's, in the step's own batch (a tool step).
	before map[string]bool
	// started is the turn's client's count of calls begun (shapeClient).
	started func() int
	// shape is what the turn stores of the plan (spec).
	shape *rerunSpec
	// earlier are the call ids of the original's tool results before the
	// step (served from the original).
	earlier map[string]bool
	// failedBefore is how many of the original's calls before the step
	// failed (they have no recording).
	failedBefore int

	once   sync.Once // live_from is emitted once
	mu     sync.Mutex
	served int // tool results given back from the original
}

// callsBefore is how many model calls the turn makes before the step: the
// recorded ones, served from the recordings, and the ones that failed in
// the original, which fail again without reaching a model.
func (p *rerun) callsBefore() int { return p.step.RecordedCalls + p.failedBefore }

// prepareRerun loads the original and its step, checks the edit fits the
// step, and makes req run the original's turn as it ran, the edit aside.
func (r *Runner) prepareRerun(ctx context.Context, req Request) (*rerun, Request, error) {
	f := *req.From
	orig, err := r.cfg.DB.GetTurn(ctx, f.TurnID, true)
	if err != nil {
		return nil, req, err
	}
	if req.SessionID != orig.SessionID {
		return nil, req, apperr.New(apperr.Invalid, "Turn #%d belongs to another session: re-run it in its own.", orig.Seq)
	}
	if orig.State == "running" {
		return nil, req, apperr.New(apperr.Conflict, "Turn #%d is still running: wait for it to end, or stop it, before re-running it from a step.", orig.Seq)
	}
	steps := timeline.Steps(orig.Events)
	step, ok := timeline.Find(steps, f.Step)
	if !ok {
		return nil, req, apperr.New(apperr.Invalid, "Turn #%d has no step %q. Its steps are %s.", orig.Seq, f.Step, stepIDs(steps))
	}
	if err := checkEdit(f.Edit, step); err != nil {
		return nil, req, err
	}
	p := &rerun{from: f, step: step, before: map[string]bool{}}
	if p.src, err = readSource(ctx, r.cfg.DB, orig); err != nil {
		return nil, req, err
	}
	for _, s := range steps {
		if s.Kind == timeline.KindCall && !s.Recorded && s.Seq < step.Seq {
			p.failedBefore++
		}
	}
	if err := p.enough(); err != nil {
		return nil, req, err
	}
	p.earlier = map[string]bool{}
	for _, s := range steps {
		if s.Kind != timeline.KindTool {
			continue
		}
		switch {
		case step.Kind == timeline.KindTool && s.RecordedCalls == step.RecordedCalls:
			if s.N < step.N {
				p.before[s.CallID], p.earlier[s.CallID] = true, true
			}
		case s.RecordedCalls < step.RecordedCalls || step.Kind != timeline.KindTool && s.RecordedCalls == step.RecordedCalls:
			p.earlier[s.CallID] = true
		}
	}
	model, workspace := req.Model, req.Workspace
	if req, err = r.asOriginal(ctx, req, p.src); err != nil {
		return nil, req, err
	}
	// The caller's model (run --from --model) is for the live part.
	req.Model = model
	p.started = func() int { return 0 }
	if workspace != "" {
		req.Workspace = workspace
	}
	if f.Edit.Kind == EditMessage {
		req.Message = f.Edit.Text
	}
	req.VersionOf, req.Parent, req.Continue = orig.ID, "", ""
	return p, req, nil
}

// enough refuses a step the original's recordings cannot reach: every
// model call before it must have a recording, or have failed (it fails
// again). A call without one that answered was made with recording off,
// or its recording was lost.
func (p *rerun) enough() error {
	k := p.callsBefore()
	if k == 0 {
		return nil
	}
	failed := 0
	for i := range p.src.failedCalls() {
		if i < k {
			failed++
		}
	}
	// The calls before the step that did not fail need a recording each
	// (a call from before issue 45 that failed counts as recorded in the
	// timeline; the diagnostics say it failed).
	if p.src.calls >= k-failed {
		return nil
	}
	at := strings.ToLower(p.step.Label())
	if p.src.calls == 0 && p.src.spec.Capture == recording.Off {
		return apperr.New(apperr.Invalid, "Turn #%d ran with recording off: there is no recording of the model calls before %s. Re-run it from the start instead.", p.src.orig.Seq, at)
	}
	return apperr.New(apperr.Invalid, "Turn #%d has %s recorded; starting from %s needs %d (the others were lost). Start from an earlier step, or re-run it from the start.",
		p.src.orig.Seq, modelCalls(p.src.calls), at, k-failed)
}

// checkEdit refuses an edit the step cannot take, saying which can.
func checkEdit(e Edit, s timeline.TimelineStep) error {
	fits := map[EditKind][]timeline.StepKind{
		EditNone:         {timeline.KindStart, timeline.KindStage, timeline.KindCall, timeline.KindTool},
		EditMessage:      {timeline.KindStart},
		EditSystemPrompt: {timeline.KindStart},
		EditToolResult:   {timeline.KindTool},
		EditReply:        {timeline.KindCall},
		EditSettings:     {timeline.KindStart, timeline.KindCall},
		EditStage:        {timeline.KindStage},
	}
	kinds, known := fits[e.Kind]
	if !known {
		return apperr.New(apperr.Invalid, "%q is not an edit a re-run can make: use message, system_prompt, tool_result, reply, settings or stage.", e.Kind)
	}
	ok := false
	for _, k := range kinds {
		ok = ok || k == s.Kind
	}
	if !ok {
		return apperr.New(apperr.Invalid, "A %s edit does not fit %s: %s.", e.Kind, strings.ToLower(s.Label()), editsFor(s.Kind))
	}
	if e.Kind == EditMessage && strings.TrimSpace(e.Text) == "" {
		return apperr.New(apperr.Invalid, "The edited message is empty: type the message the turn should have been sent.")
	}
	if e.Kind == EditStage {
		if len(e.Stage) == 0 {
			return apperr.New(apperr.Invalid, "A stage edit needs at least one KEY=VALUE (%s).", strings.Join(StageEditKeys, ", "))
		}
		for k, v := range e.Stage {
			if err := checkStageValue(k, v); err != nil {
				return err
			}
		}
	}
	if e.Kind == EditSettings {
		if err := e.Settings.Validate(); err != nil {
			return apperr.Wrap(err, apperr.Invalid, "The edited settings are not valid: %v.", err)
		}
	}
	return nil
}

// editsFor says which edits a kind of step takes.
func editsFor(k timeline.StepKind) string {
	switch k {
	case timeline.KindStart:
		return "the start takes an edited message, system prompt or settings"
	case timeline.KindStage:
		return "a stage takes an edit of its agent's settings or prompt"
	case timeline.KindCall:
		return "a model call takes an edited reply or settings"
	default:
		return "a tool result takes an edited result"
	}
}

// checkStageValue refuses an unknown key or a value that is not a number
// where one is needed.
func checkStageValue(k, v string) error {
	if !StageEditKey(k) {
		return apperr.New(apperr.Invalid, "A stage edit cannot set %q: it sets %s.", k, strings.Join(StageEditKeys, ", "))
	}
	if !StageEditValue(k, v) {
		return apperr.New(apperr.Invalid, "The stage edit's %s must be a number, not %q.", k, v)
	}
	return nil
}

// StageEditKey reports whether a stage edit may set k.
func StageEditKey(k string) bool { return slices.Contains(StageEditKeys, k) }

// StageEditValue reports whether v is a value a stage edit's k takes:
// a number for the sampling fields, any text for the others.
func StageEditValue(k, v string) bool {
	var err error
	switch k {
	case "temperature", "top_p":
		_, err = strconv.ParseFloat(v, 32)
	case "max_tokens":
		_, err = strconv.Atoi(v)
	case "seed":
		_, err = strconv.ParseInt(v, 10, 64)
	}
	return err == nil
}

// applyStage sets the stage edit's fields on an agent (checked already).
func applyStage(a *agent.Agent, set map[string]string) {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := set[k]
		switch k {
		case "system_prompt":
			a.SystemPrompt = v
		case "model":
			a.Model = v
		case "reasoning_effort":
			a.ReasoningEffort = v
		case "temperature", "top_p":
			f64, _ := strconv.ParseFloat(v, 32)
			f := float32(f64)
			if k == "temperature" {
				a.Temperature = &f
			} else {
				a.TopP = &f
			}
		case "max_tokens":
			a.MaxTokens, _ = strconv.Atoi(v)
		case "seed":
			n, _ := strconv.ParseInt(v, 10, 64)
			a.Seed = &n
		}
	}
}

// rewrite makes a live call's request use the edited settings.
func rewrite(req llm.Request, e Edit, model string) llm.Request {
	if model != "" {
		req.Model = model
	}
	s := e.Settings
	if s.Temperature != nil {
		t := float32(*s.Temperature)
		req.Temperature = &t
	}
	if s.TopP != nil {
		t := float32(*s.TopP)
		req.TopP = &t
	}
	if s.MaxTokens != nil {
		req.MaxTokens = *s.MaxTokens
	}
	if s.Seed != nil {
		req.Seed = s.Seed
	}
	if s.Stop != nil {
		req.Stop = s.Stop
	}
	if s.ReasoningEffort != "" {
		req.ReasoningEffort = s.ReasoningEffort
	}
	return req
}

func stepIDs(steps []timeline.TimelineStep) string {
	ids := make([]string, 0, len(steps))
	for _, s := range steps {
		ids = append(ids, s.ID)
	}
	if len(ids) > 12 {
		return strings.Join(ids[:12], ", ") + fmt.Sprintf(" and %d more", len(ids)-12)
	}
	return strings.Join(ids, ", ")
}

// settings are the original's settings with a system prompt edit: the
// session's instructions, which the workflow's instructed agents receive.
func (p *rerun) settings(set turn.Resolved) turn.Resolved {
	from := make(map[string]string, len(set.From)+1)
	for k, v := range set.From {
		from[k] = v
	}
	set.From = from
	if p.from.Edit.Kind == EditSystemPrompt {
		text := p.from.Edit.Text
		set.Settings.Instructions = &text
		set.From["instructions"] = turn.LayerTurn
	}
	return set
}

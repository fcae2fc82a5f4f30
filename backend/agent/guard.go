package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Verdict is what a guard says about a tool call.
type Verdict string

const (
	VerdictPass  Verdict = "pass"
	VerdictWarn  Verdict = "warn"  // run it, but tell the user
	VerdictBlock Verdict = "block" // do not run it
	VerdictAsk   Verdict = "ask"   // ask the user (or the headless policy)
)

// GuardCall is a tool call as guards see it.
type GuardCall struct {
	SessionID   string          `json:"session_id"`
	TurnID      string          `json:"turn_id"`
	CallID      string          `json:"call_id"`
	Tool        string          `json:"tool"`
	Args        json.RawMessage `json:"args"`
	SideEffects bool            `json:"side_effects"`
	// Scope is what the call reaches when its tool names it (tool.Scoped:
	// fetch_url's site); an "always" answer allows this scope only.
	Scope string `json:"scope,omitempty"`
}

// Decision is one guard's verdict with its reason.
type Decision struct {
	Verdict Verdict
	Reason  string
}

// Guard checks a tool call before it runs.
type Guard interface {
	Name() string
	Check(ctx context.Context, call GuardCall) Decision
}

// SideEffectGuard asks before any tool that changes something outside the
// conversation, and before a scoped tool reaches a scope (fetch_url: a
// site) not yet allowed "always". It is the default guard.
type SideEffectGuard struct{}

func (SideEffectGuard) Name() string { return "side_effects" }

func (SideEffectGuard) Check(_ context.Context, c GuardCall) Decision {
	switch {
	case c.SideEffects:
		return Decision{Verdict: VerdictAsk, Reason: c.Tool + " changes things outside the conversation"}
	case c.Scope != "":
		return Decision{Verdict: VerdictAsk, Reason: c.Tool + " reaches " + c.Scope + ", outside the conversation (\"Always\" allows " + c.Scope + " for the rest of the session)"}
	}
	return Decision{Verdict: VerdictPass}
}

// ApprovalRequest is shown to the person with the call's full arguments.
type ApprovalRequest struct {
	GuardCall
	Guard  string `json:"guard"`
	Reason string `json:"reason"`
}

// Approver answers approval requests. In the desktop app it asks the
// person and blocks until they answer or ctx is done; headless runs use
// PolicyApprover.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (turn.Answer, error)
}

// PolicyApprover answers every request the same way (agentdeck run
// --approve all|none).
type PolicyApprover struct{ AllowAll bool }

func (p PolicyApprover) Approve(context.Context, ApprovalRequest) (turn.Answer, error) {
	if p.AllowAll {
		return turn.AllowOnce, nil
	}
	return turn.Deny, nil
}

// Approvals remembers "always" answers per session and tool, and per
// scope for a scoped tool (GuardCall.Scope). It is safe for concurrent
// use; a nil *Approvals remembers nothing.
type Approvals struct {
	mu     sync.Mutex
	always map[string]bool
}

// NewApprovals returns an empty memory.
func NewApprovals() *Approvals { return &Approvals{always: map[string]bool{}} }

func (a *Approvals) allowed(session, tool, scope string) bool {
	if a == nil {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.always[session+"\x00"+tool+"\x00"+scope]
}

// Remember records an "always" answer for a tool, or for one scope of a
// scoped tool ("" for the whole tool).
func (a *Approvals) Remember(session, tool, scope string) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.always[session+"\x00"+tool+"\x00"+scope] = true
}

// guardCall runs the guard chain for one call. It emits guard_triggered for
// every verdict other than pass, and returns a non-empty refusal when the
// call must not run (blocked or denied); the refusal goes back to the model.
func (r *loop) guardCall(ctx context.Context, p *pendingCall) string {
	t, ok := r.tools.Get(p.call.Name)
	if !ok {
		return ""
	}
	gc := GuardCall{SessionID: r.em.SessionID(), TurnID: r.em.TurnID(), CallID: p.call.ID, Tool: p.call.Name, Args: p.args, SideEffects: t.Spec().SideEffects}
	if s, scoped := t.(tool.Scoped); scoped {
		gc.Scope = s.Scope(p.args)
	}
	guards := r.a.Guards
	if guards == nil {
		guards = []Guard{SideEffectGuard{}}
	}
	for _, g := range guards {
		d := g.Check(ctx, gc)
		switch d.Verdict {
		case VerdictWarn:
			r.emitGuard(p, g.Name(), false, d.Reason)
		case VerdictBlock:
			r.emitGuard(p, g.Name(), true, d.Reason)
			return fmt.Sprintf("not run: blocked by the %s guard (%s)", g.Name(), d.Reason)
		case VerdictAsk:
			if refusal := r.ask(ctx, p, gc, g.Name(), d.Reason); refusal != "" {
				return refusal
			}
		}
	}
	return ""
}

func (r *loop) ask(ctx context.Context, p *pendingCall, gc GuardCall, guard, reason string) string {
	if r.a.Approvals.allowed(gc.SessionID, gc.Tool, gc.Scope) {
		r.emitGuard(p, guard, false, "allowed: always allowed in this session"+scopeNote(gc.Scope))
		return ""
	}
	approver := r.a.Approver
	if approver == nil {
		approver = PolicyApprover{}
	}
	ans, err := approver.Approve(ctx, ApprovalRequest{GuardCall: gc, Guard: guard, Reason: reason})
	switch {
	case err != nil:
		r.emitGuard(p, guard, true, "no answer: "+err.Error())
		return "not run: the approval was not answered"
	case ans == turn.Always:
		r.a.Approvals.Remember(gc.SessionID, gc.Tool, gc.Scope)
		r.emitGuard(p, guard, false, "allowed: always for this session"+scopeNote(gc.Scope))
		return ""
	case ans == turn.AllowOnce:
		r.emitGuard(p, guard, false, "allowed once")
		return ""
	default:
		r.emitGuard(p, guard, true, "denied by the user")
		return "not run: the user denied this call. Do not retry it; continue without it or ask the user."
	}
}

// scopeNote names the scope an "always" answer covers.
func scopeNote(scope string) string {
	if scope == "" {
		return ""
	}
	return " (" + scope + ")"
}

func (r *loop) emitGuard(p *pendingCall, guard string, blocked bool, reason string) {
	r.em.Emit(turn.Draft{StageID: r.stageID, ParentID: p.eventID, Data: turn.GuardData{Guard: guard, Blocked: blocked, Reason: reason}})
}

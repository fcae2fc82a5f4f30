package app

import (
	"context"
	"log/slog"
	"sync"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// PendingApproval is a tool call waiting for the person's answer; the
// bus's message of a new one.
type PendingApproval struct {
	agent.ApprovalRequest
	// Column says which column of a side-by-side group asks ("Column B
	// asks…"); nil for a turn of no group.
	Column *ApprovalColumn `json:"column,omitempty"`
}

// ApprovalColumn is the side-by-side column whose turn asks for approval.
type ApprovalColumn struct {
	GroupID string `json:"group_id"`
	// Slot is the column's place, from 0 (A).
	Slot int `json:"slot"`
	// Target names what the column runs; "" in a blind group, whose names
	// stay hidden until the vote.
	Target string `json:"target,omitempty"`
}

// columnReader finds the group column a turn is (the database).
type columnReader interface {
	GetTurn(ctx context.Context, id string, withEvents bool) (store.TurnDetail, error)
	GetGroup(ctx context.Context, id string) (store.TurnGroup, error)
}

// Kind implements Message.
func (PendingApproval) Kind() MessageKind { return KindApproval }

// approvals asks the person through the UIs (a PendingApproval on the bus)
// and blocks the tool call until they answer (AnswerApproval), the turn is
// stopped, or the app quits.
type approvals struct {
	bus     *Bus
	columns columnReader // nil: no database, no columns
	log     *slog.Logger
	mu      sync.Mutex
	// pending is by turn and call id: a call id is the model's, and two
	// turns (two sessions, or the columns of a side-by-side group, on a
	// server that numbers its calls call_0, call_1, …) may use the same.
	pending map[string]*waiting
}

// pendingKey is a waiting call's key in approvals.pending.
func pendingKey(turnID, callID string) string { return turnID + "\x00" + callID }

type waiting struct {
	req    PendingApproval
	answer chan turn.Answer
}

func newApprovals(bus *Bus, columns columnReader, log *slog.Logger) *approvals {
	return &approvals{bus: bus, columns: columns, log: log, pending: map[string]*waiting{}}
}

// Approve implements agent.Approver.
func (a *approvals) Approve(ctx context.Context, req agent.ApprovalRequest) (turn.Answer, error) {
	w := &waiting{req: PendingApproval{ApprovalRequest: req, Column: a.columnOf(ctx, req.TurnID)}, answer: make(chan turn.Answer, 1)}
	key := pendingKey(req.TurnID, req.CallID)
	a.mu.Lock()
	a.pending[key] = w
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.pending, key)
		a.mu.Unlock()
	}()
	a.bus.Publish(w.req)
	select {
	case ans := <-w.answer:
		return ans, nil
	case <-ctx.Done():
		return turn.Deny, ctx.Err()
	}
}

// answer delivers the person's answer to a waiting call of a turn. A
// caller that names no turn (an older UI) reaches the call only when no
// other turn waits on the same call id.
func (a *approvals) answer(turnID, callID string, ans turn.Answer) error {
	switch ans {
	case turn.AllowOnce, turn.Always, turn.Deny:
	default:
		return apperr.New(apperr.Invalid, "The answer must be allow_once, always or deny.")
	}
	a.mu.Lock()
	w := a.pending[pendingKey(turnID, callID)]
	if turnID == "" {
		n := 0
		for _, p := range a.pending {
			if p.req.CallID == callID {
				w, n = p, n+1
			}
		}
		if n > 1 {
			w = nil
			a.mu.Unlock()
			return apperr.New(apperr.Invalid, "More than one turn waits on a tool call %s: say which turn the answer is for.", callID)
		}
	}
	a.mu.Unlock()
	if w == nil {
		return apperr.New(apperr.NotFound, "That tool call is no longer waiting for an answer.")
	}
	select {
	case w.answer <- ans:
	default:
	}
	return nil
}

// list returns the calls waiting for an answer.
func (a *approvals) list() []PendingApproval {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]PendingApproval, 0, len(a.pending))
	for _, w := range a.pending {
		out = append(out, w.req)
	}
	return out
}

// columnOf is the column the turn is, nil for a turn of no group. A
// failed read asks without naming the column rather than not at all.
func (a *approvals) columnOf(ctx context.Context, turnID string) *ApprovalColumn {
	if a.columns == nil || turnID == "" {
		return nil
	}
	d, err := a.columns.GetTurn(ctx, turnID, false)
	if err != nil || d.GroupID == "" {
		if err != nil {
			a.log.Warn("reading the turn that asks for approval", "turn", turnID, "err", err)
		}
		return nil
	}
	c := &ApprovalColumn{GroupID: d.GroupID, Slot: d.GroupSlot, Target: d.Target}
	if g, err := a.columns.GetGroup(ctx, d.GroupID); err != nil || g.Blind {
		c.Target = "" // a blind group's names wait for the vote
	}
	return c
}

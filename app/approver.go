package app

import (
	"context"
	"sync"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// PendingApproval is a tool call waiting for the person's answer; the
// bus's message of a new one.
type PendingApproval struct {
	agent.ApprovalRequest
}

// Kind implements Message.
func (PendingApproval) Kind() MessageKind { return KindApproval }

// approvals asks the person through the UIs (a PendingApproval on the bus)
// and blocks the tool call until they answer (AnswerApproval), the turn is
// stopped, or the app quits.
type approvals struct {
	bus     *Bus
	mu      sync.Mutex
	pending map[string]*waiting // by call id
}

type waiting struct {
	req    agent.ApprovalRequest
	answer chan turn.Answer
}

func newApprovals(bus *Bus) *approvals {
	return &approvals{bus: bus, pending: map[string]*waiting{}}
}

// Approve implements agent.Approver.
func (a *approvals) Approve(ctx context.Context, req agent.ApprovalRequest) (turn.Answer, error) {
	w := &waiting{req: req, answer: make(chan turn.Answer, 1)}
	a.mu.Lock()
	a.pending[req.CallID] = w
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.pending, req.CallID)
		a.mu.Unlock()
	}()
	a.bus.Publish(PendingApproval{req})
	select {
	case ans := <-w.answer:
		return ans, nil
	case <-ctx.Done():
		return turn.Deny, ctx.Err()
	}
}

// answer delivers the person's answer to a waiting call.
func (a *approvals) answer(callID string, ans turn.Answer) error {
	switch ans {
	case turn.AllowOnce, turn.Always, turn.Deny:
	default:
		return apperr.New(apperr.Invalid, "The answer must be allow_once, always or deny.")
	}
	a.mu.Lock()
	w := a.pending[callID]
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
		out = append(out, PendingApproval{w.req})
	}
	return out
}

package app

import (
	"context"
	"sync"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// PendingApproval is a tool call waiting for the person's answer.
type PendingApproval struct {
	agent.ApprovalRequest
}

// approvals asks the person through the UI and blocks the tool call until
// they answer (AnswerApproval), the turn is stopped, or the app quits.
type approvals struct {
	mu        sync.Mutex
	pending   map[string]*waiting // by call id
	listeners map[int]func(PendingApproval)
	next      int
}

type waiting struct {
	req    agent.ApprovalRequest
	answer chan turn.Answer
}

func newApprovals() *approvals {
	return &approvals{pending: map[string]*waiting{}, listeners: map[int]func(PendingApproval){}}
}

// listen adds a listener for new requests; call the result to remove it.
func (a *approvals) listen(fn func(PendingApproval)) func() {
	return addListener(&a.mu, &a.next, a.listeners, fn)
}

// Approve implements agent.Approver.
func (a *approvals) Approve(ctx context.Context, req agent.ApprovalRequest) (turn.Answer, error) {
	w := &waiting{req: req, answer: make(chan turn.Answer, 1)}
	a.mu.Lock()
	a.pending[req.CallID] = w
	var notify []func(PendingApproval)
	for _, l := range a.listeners {
		notify = append(notify, l)
	}
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.pending, req.CallID)
		a.mu.Unlock()
	}()
	for _, n := range notify {
		n(PendingApproval{req})
	}
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

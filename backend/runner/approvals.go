package runner

import (
	"context"
	"log/slog"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// recordingApprover stores every answer with the turn, so a review shows
// who allowed what.
type recordingApprover struct {
	inner agent.Approver
	db    approvalStore
	log   *slog.Logger
}

func (a recordingApprover) Approve(ctx context.Context, req agent.ApprovalRequest) (turn.Answer, error) {
	ans, err := a.inner.Approve(ctx, req)
	if err != nil {
		return ans, err
	}
	if _, rerr := a.db.RecordApproval(context.WithoutCancel(ctx), store.Approval{
		SessionID: req.SessionID, TurnID: req.TurnID, CallID: req.CallID, Tool: req.Tool, Args: req.Args, Guard: req.Guard, Answer: ans,
	}); rerr != nil {
		a.log.Error("recording an approval", "turn", req.TurnID, "err", rerr)
	}
	return ans, nil
}

package runner

import (
	"context"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/openai"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/workflow"
)

// Where a turn goes in its session's tree, and continuing an answer.
//
// A continuation (Request.Continue) is a turn of its own (its events, its
// one terminal event, its diagnostics and recordings) that follows the
// turn it continues and is marked so (store.Turn.Continues): readers show
// the two as one answer. The model is sent the conversation up to the
// partial answer. A server that continues a trailing assistant message
// (catalog.PrefixFor) gets it as the prefix of its reply, in a one-agent
// workflow whose answer stopped as text; any other gets
// ContinueInstruction as a user message, which the turn stores as its
// message.

// ContinueInstruction is what a continuation asks a model that cannot
// take the partial answer as a prefix.
const ContinueInstruction = "Continue your previous answer exactly where it stopped. Do not repeat anything you already wrote, and do not comment on the interruption."

// parentOf is the turn the request's turn follows: the one it continues,
// the parent of the turn it is a version of, the parent it names, or the
// session's active turn. Each named turn must be of the session.
func (r *Runner) parentOf(ctx context.Context, sess store.Session, req Request) (string, error) {
	switch {
	case req.Continue != "":
		t, err := r.turnOf(ctx, sess, req.Continue)
		if err != nil {
			return "", err
		}
		return t.ID, r.continuable(ctx, t)
	case req.VersionOf != "":
		t, err := r.turnOf(ctx, sess, req.VersionOf)
		return t.ParentTurnID, err
	case req.Parent != "":
		return req.Parent, nil // StartTurn checks it is a turn of the session
	}
	return sess.ActiveTurnID, nil
}

func (r *Runner) turnOf(ctx context.Context, sess store.Session, id string) (store.Turn, error) {
	d, err := r.cfg.DB.GetTurn(ctx, id, false)
	if err != nil {
		return store.Turn{}, err
	}
	if d.SessionID != sess.ID {
		return store.Turn{}, apperr.New(apperr.Invalid, "Turn %s belongs to another session.", id)
	}
	return d.Turn, nil
}

// continuable refuses a turn whose answer cannot be continued: one still
// running, one that ended normally or failed (retry it instead), and one
// already continued.
func (r *Runner) continuable(ctx context.Context, t store.Turn) error {
	switch {
	case t.State == store.StateRunning:
		return apperr.New(apperr.Conflict, "Turn %d is still running: wait for it to end, or stop it, before continuing it.", t.Seq)
	case t.State == store.StateCancelled, t.State == store.StateInterrupted, t.Termination.Kind.IsLimit():
	default:
		return apperr.New(apperr.Invalid, "Turn %d ended (%s); only an answer that was stopped or reached a limit can be continued. Regenerate or retry it instead.", t.Seq, t.State)
	}
	next, err := r.cfg.DB.ContinuationOf(ctx, t.ID)
	if err != nil {
		return err
	}
	if next != "" {
		return apperr.New(apperr.Conflict, "Turn %d was already continued: its continuation is turn %s.", t.Seq, next)
	}
	return nil
}

// continuationMessage is what a continuation sends after the history: ""
// to continue the partial answer as a prefix, else the instruction.
func continuationMessage(prefix openai.Prefix, def *workflow.Definition, history []llm.Message) string {
	n := len(history)
	asPrefix := prefix != openai.PrefixNone && def.Kind == workflow.KindChat && n > 0 &&
		history[n-1].Role == llm.RoleAssistant && len(history[n-1].ToolCalls) == 0 && strings.TrimSpace(history[n-1].Content) != ""
	if asPrefix {
		return ""
	}
	return ContinueInstruction
}

// pathHistory is the conversation up to a turn, as the model is sent it:
// a continued answer and its continuation are one assistant message.
func (r *Runner) pathHistory(ctx context.Context, turnID string) ([]llm.Message, error) {
	msgs, err := r.cfg.DB.PathHistory(ctx, turnID)
	return JoinContinued(msgs), err
}

// JoinContinued joins consecutive assistant messages with text and no tool
// calls: a partial answer and what continued it as its prefix.
func JoinContinued(msgs []llm.Message) []llm.Message {
	out := msgs[:0:0]
	for _, m := range msgs {
		if n := len(out); n > 0 && plainAnswer(m) && plainAnswer(out[n-1]) {
			out[n-1].Content += m.Content
			continue
		}
		out = append(out, m)
	}
	if msgs == nil {
		return nil
	}
	return out
}

func plainAnswer(m llm.Message) bool {
	return m.Role == llm.RoleAssistant && len(m.ToolCalls) == 0 && m.ToolCallID == ""
}

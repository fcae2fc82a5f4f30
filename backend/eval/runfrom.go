package eval

import (
	"context"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/store"
)

// Running a case that starts from a recorded turn's step (Case.From). Its
// evaluation session is a copy of the turn's branch (store.EvalCopy), and
// its turn a re-run of the copied turn from the step (runner.From): the
// steps before it are served from the recordings, with no model call and
// no side effect, the edit is made there, and what follows runs live on
// the cell's model. The user's session is left as it was. A replay run
// replays the re-run the cell ran before, as for any case (request).

// fromSession makes the session a from case runs in, and sets req to
// re-run the copied turn from the case's step. A turn this database does
// not hold is an error of the case, saying so.
func (r *CellRunner) fromSession(ctx context.Context, c Case, s store.Session, req *runner.Request) (store.Session, error) {
	f := c.From
	orig, err := r.db.GetTurn(ctx, f.Turn, false)
	switch {
	case apperr.CodeOf(err) == apperr.NotFound:
		return store.Session{}, apperr.New(apperr.NotFound,
			"Case %s starts from turn %s, which is not in this database: run the suite on the database that recorded it, or import that turn's session first.", c.ID, f.Turn)
	case err != nil:
		return store.Session{}, err
	case orig.State == store.StateRunning:
		return store.Session{}, apperr.New(apperr.Conflict, "Case %s starts from turn %s, which is still running: run the suite once it has ended.", c.ID, f.Turn)
	}
	sess, err := r.db.EvalCopy(ctx, f.Turn, s)
	if err != nil {
		return store.Session{}, err
	}
	req.From = &runner.From{TurnID: sess.ActiveTurnID, Step: f.Step, Edit: f.Edit.runnerEdit()}
	req.Message, req.History, req.Attach = orig.UserMessage, nil, nil
	if req.From.Edit.Kind == runner.EditMessage {
		req.Message = req.From.Edit.Text
	}
	return sess, nil
}

// runnerEdit is the edit as the runner takes it; nil is none.
func (e *CaseEdit) runnerEdit() runner.Edit {
	if e == nil {
		return runner.Edit{}
	}
	out := runner.Edit{Kind: runner.EditKind(e.Kind)}
	if e.Text != nil {
		out.Text = *e.Text
	}
	if len(e.Stage) > 0 {
		out.Stage = make(map[string]string, len(e.Stage))
		for k, v := range e.Stage {
			out.Stage[k] = stageText(v)
		}
	}
	return out
}

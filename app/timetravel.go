package app

import (
	"context"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/timeline"
)

// Time travel: re-running a stored turn from one of its steps with one
// edit, and comparing the two (docs/RECORDINGS.md#time-travel).

// RerunFromRequest asks to re-run a turn from one of its steps.
type RerunFromRequest struct {
	TurnID string      `json:"turn_id"`
	Step   string      `json:"step"`
	Edit   runner.Edit `json:"edit"`
	// NoSideEffects answers side-effecting tools after the step from the
	// original, and refuses a call it never made.
	NoSideEffects bool `json:"no_side_effects"`
}

// RerunFrom re-runs a stored turn from one of its steps (TurnSteps), with
// the edit applied there: a new version of the turn in its session, which
// streams like any turn.
func (a *API) RerunFrom(req RerunFromRequest) (TurnRef, error) {
	return call(a, needDB, func(ctx context.Context) (TurnRef, error) { return a.s.rerunFrom(ctx, req) })
}

// TurnSteps lists a stored turn's steps, each a point to re-run it from.
func (a *API) TurnSteps(turnID string) ([]timeline.TimelineStep, error) {
	return call(a, needDB, func(ctx context.Context) ([]timeline.TimelineStep, error) {
		d, err := a.s.db.GetTurn(ctx, turnID, true)
		if err != nil {
			return nil, err
		}
		return timeline.Steps(d.Events), nil
	})
}

func (s *Service) rerunFrom(ctx context.Context, req RerunFromRequest) (TurnRef, error) {
	orig, err := s.db.GetTurn(ctx, req.TurnID, false)
	if err != nil {
		return TurnRef{}, err
	}
	sess, err := s.db.GetSession(ctx, orig.SessionID)
	if err != nil {
		return TurnRef{}, err
	}
	if req.Step == "" {
		return TurnRef{}, apperr.New(apperr.Invalid, "Pick the step to re-run the turn from.")
	}
	// The live part runs on the original's server unless the edit names
	// another; a turn that ran without one (`agentdeck run --base-url`)
	// runs on the session's, else the default.
	provider := ""
	if orig.Settings == nil || orig.Settings.Settings.Provider == "" {
		provider = firstOf(sess.Provider, s.settings().DefaultProvider)
	}
	return s.start(ctx, runner.Request{
		SessionID: sess.ID,
		Provider:  provider,
		Approver:  s.approvals,
		From:      &runner.From{TurnID: orig.ID, Step: req.Step, Edit: req.Edit, NoSideEffects: req.NoSideEffects},
	})
}

// DiffTurns compares two turns step by step from where the second left the
// first: texts, tokens, cost and time of each step, and the totals.
func (a *API) DiffTurns(turnA, turnB string) (timeline.TurnDiff, error) {
	return call(a, needDB, func(ctx context.Context) (timeline.TurnDiff, error) {
		var sides [2]timeline.Turn
		for i, id := range []string{turnA, turnB} {
			d, err := a.s.db.GetTurn(ctx, id, true)
			if err != nil {
				return timeline.TurnDiff{}, err
			}
			sides[i] = timeline.Turn{ID: d.ID, Seq: d.Seq, Model: d.Model, FromTurnID: d.FromTurnID, FromStep: d.FromStep, FromEdit: d.FromEdit, Events: d.Events, Stages: d.Stages}
		}
		return timeline.Compare(sides[0], sides[1]), nil
	})
}

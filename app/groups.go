package app

import (
	"context"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/arena"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Side by side: one message to several models or workflows at once, each
// a turn in a column of a group (store.TurnGroup), and the votes that
// compare them.

// GroupSendRequest sends one message side by side.
type GroupSendRequest struct {
	// Send is the message and what the columns share; its Model and
	// Workflow are ignored (each target names its own), as are Continue
	// and VersionOf.
	Send SendRequest `json:"send"`
	// Targets are the columns, 2 to 4; ignored with Follows.
	Targets []store.GroupTarget `json:"targets"`
	// Blind hides the names (A, B, …) and shuffles the columns until a
	// vote.
	Blind bool `json:"blind,omitempty"`
	// Follows sends to each column's own branch of that group: the
	// message after a side-by-side answer.
	Follows string `json:"follows,omitempty"`
}

// GroupRef is a started group: its id and its columns' turns, by slot.
type GroupRef struct {
	GroupID   string    `json:"group_id"`
	SessionID string    `json:"session_id"`
	Turns     []TurnRef `json:"turns"`
}

// SendSideBySide sends one message to several targets at once; each runs
// as its own turn, all together, and streams like any turn.
func (a *API) SendSideBySide(req GroupSendRequest) (GroupRef, error) {
	return call(a, needDB, func(ctx context.Context) (GroupRef, error) { return a.s.sendSideBySide(ctx, req) })
}

// GroupChain reads a group and the groups it follows, oldest first, each
// with its columns and vote: what a side-by-side view shows.
func (a *API) GroupChain(groupID string) ([]store.TurnGroup, error) {
	return call(a, needDB, func(ctx context.Context) ([]store.TurnGroup, error) { return a.s.db.GroupChain(ctx, groupID) })
}

// StopGroup stops every running column of a group.
func (a *API) StopGroup(groupID string) (Done, error) {
	return call(a, needDB, func(ctx context.Context) (Done, error) { return done(a.s.stopGroup(ctx, groupID)) })
}

// ContinueWith makes that column's branch the session's active one and
// ends side-by-side mode; the other columns stay versions of it.
func (a *API) ContinueWith(turnID string) (TurnRef, error) {
	return call(a, needDB, func(ctx context.Context) (TurnRef, error) {
		active, err := a.s.db.ContinueWith(ctx, turnID)
		if err != nil {
			return TurnRef{}, err
		}
		d, err := a.s.db.GetTurn(ctx, active, false)
		return TurnRef{TurnID: active, SessionID: d.SessionID, Seq: d.Seq}, err
	})
}

// OpenGroup shows a group side by side again (from a version switcher).
func (a *API) OpenGroup(groupID string) (Done, error) {
	return call(a, needDB, func(ctx context.Context) (Done, error) { return done(a.s.db.OpenGroup(ctx, groupID)) })
}

// VoteOnGroup records a person's verdict on a group (one per group; a
// second replaces it). In a blind group the names are shown after it.
func (a *API) VoteOnGroup(v store.Vote) (store.Vote, error) {
	return call(a, needDB, func(ctx context.Context) (store.Vote, error) { return a.s.db.SaveVote(ctx, v) })
}

func (s *Service) sendSideBySide(ctx context.Context, req GroupSendRequest) (GroupRef, error) {
	send := req.Send
	if strings.TrimSpace(send.Message) == "" && len(send.Images) == 0 {
		return GroupRef{}, apperr.New(apperr.Invalid, "The message is empty.")
	}
	if send.SessionID == "" {
		return GroupRef{}, apperr.New(apperr.Invalid, "Side by side sends within a session: create it first.")
	}
	images, err := imagesOf(send.Images)
	if err != nil {
		return GroupRef{}, err
	}
	s.recoverOrphans(ctx, send.SessionID)
	gh, err := s.runner.StartGroup(ctx, runner.GroupRequest{
		Request: runner.Request{
			SessionID:  send.SessionID,
			Message:    send.Message,
			Limits:     send.Limits,
			Capture:    recording.Mode(s.settings().Capture),
			Approver:   s.approvals,
			Attach:     send.Attach,
			Force:      send.Force,
			OverBudget: send.OverBudget,
			Parent:     send.Parent,
			Images:     images,
			Settings:   send.Settings,
			TurnSinks:  func(turnID string) []turn.Sink { return []turn.Sink{s.hub.Sink(turnID)} },
		},
		Targets: req.Targets,
		Blind:   req.Blind,
		Follows: req.Follows,
	})
	if err != nil {
		return GroupRef{}, err
	}
	s.consumeUploads(send.Attach)
	ref := GroupRef{GroupID: gh.Group.ID, SessionID: send.SessionID}
	for _, h := range gh.Handles {
		ref.Turns = append(ref.Turns, TurnRef{TurnID: h.TurnID, SessionID: h.SessionID, Seq: h.Seq})
		go func() {
			<-h.Done()
			s.hub.Ended(h.TurnID)
		}()
	}
	return ref, nil
}

// stopGroup stops a group's running columns: those of this process at
// once, before anything is read, then each of another (dead or alive) as
// StopTurn would.
func (s *Service) stopGroup(ctx context.Context, groupID string) error {
	if groupID == "" {
		return apperr.New(apperr.Invalid, "No side-by-side group was named to stop.")
	}
	if err := s.runner.StopGroup(groupID); err != nil {
		return err
	}
	g, err := s.db.GetGroup(ctx, groupID)
	if err != nil {
		return err
	}
	var errs []error
	for _, c := range g.Columns {
		// This process's columns were cancelled above; reading who owns
		// each would only compete with their streams closing.
		if c.State == store.StateRunning && !s.runner.Runs(c.TurnID) {
			if err := s.stopTurn(ctx, c.TurnID); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// BoardRequest picks the votes a leaderboard counts: one project's
// (store.NoProject: sessions in none), or all ("").
type BoardRequest struct {
	Project string `json:"project,omitempty"`
}

// ListVotes lists votes with what they compared, newest first.
func (a *API) ListVotes(f store.VoteFilter) ([]store.VoteRecord, error) {
	return call(a, needDB, func(ctx context.Context) ([]store.VoteRecord, error) { return a.s.db.ListVotes(ctx, f) })
}

// ArenaBoard is the leaderboard of the votes of a project, or of all.
func (a *API) ArenaBoard(req BoardRequest) (arena.Board, error) {
	return call(a, needDB, func(ctx context.Context) (arena.Board, error) {
		f := store.VoteFilter{Project: req.Project, Limit: 10000}
		recs, err := a.s.db.ListVotes(ctx, f)
		if err != nil {
			return arena.Board{}, err
		}
		// Targets compared but never voted on are listed too, unranked.
		targets, err := a.s.db.VoteTargets(ctx, f)
		if err != nil {
			return arena.Board{}, err
		}
		votes := make([]arena.Vote, len(recs))
		for i, r := range recs {
			votes[i] = arena.Vote{Targets: r.Targets, Winner: r.Winner}
		}
		return arena.Rate(votes, targets), nil
	})
}

package runner

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Side by side: one message to several targets at once, each its own
// turn in a column of a store.TurnGroup, all running together. The
// columns share the request (message, images, settings, sinks, approver)
// and differ in provider, model and workflow. A column is a turn like
// any other: it is stopped on its own (Stop), or with the others
// (StopGroup).

// Column places a turn in a side-by-side group (Request.Column).
type Column struct {
	Group  string
	Slot   int
	Target string
	// Parent is the turn the column follows, "" for a first message.
	Parent string
}

// GroupRequest sends one message to several targets.
type GroupRequest struct {
	// Request is what the columns share. Its Provider, Model and
	// Workflow are each column's target's; Continue and Replay are not
	// for groups.
	Request
	// Targets are what the columns run, 2 to store.MaxColumns of them.
	// Ignored with Follows: the followed group's targets are used.
	Targets []store.GroupTarget
	// Blind hides the names and shuffles the columns (Order).
	Blind bool
	// Follows, when set, sends the message to each column's own branch
	// of that group: the turn in slot i follows the turn in slot i there.
	Follows string
	// Order, for a blind group, gives the slot of each target; nil
	// shuffles at random. Tests set it.
	Order func(n int) []int
	// ColumnSinks, if set, gives each column's extra sinks (the CLI's
	// printer names the column's target on every line).
	ColumnSinks func(c Column) []turn.Sink
}

// GroupHandle is a started group: its record and its columns' turns, by
// slot.
type GroupHandle struct {
	Group   store.TurnGroup
	Handles []*Handle
}

// Wait waits for every column to end.
func (g GroupHandle) Wait() {
	for _, h := range g.Handles {
		<-h.Done()
	}
}

// StartGroup starts every column and returns at once. Everything that
// can refuse the send is checked before anything is stored: each target
// (its settings, workflow and model server), the images, a turn already
// running in the session, and the attached files (loaded once, for every
// column). So a target that cannot run refuses the whole send and leaves
// no group and no turn. A column that fails to start after that (another
// process took the session in between) stops the ones already started.
func (r *Runner) StartGroup(ctx context.Context, req GroupRequest) (GroupHandle, error) {
	if req.Continue != "" || req.Replay != nil {
		return GroupHandle{}, apperr.New(apperr.Invalid, "Continue and replay run one turn; they cannot be sent side by side.")
	}
	sess, err := r.cfg.DB.GetSession(ctx, req.SessionID)
	if err != nil {
		return GroupHandle{}, err
	}
	g, parents, err := r.planGroup(ctx, sess, req)
	if err != nil {
		return GroupHandle{}, err
	}
	if err := r.checkGroup(ctx, sess, req.Request, g.Targets); err != nil {
		return GroupHandle{}, err
	}
	if err := r.attach(ctx, sess.ID, req.Attach); err != nil {
		return GroupHandle{}, err
	}
	if g, err = r.cfg.DB.CreateGroup(ctx, g); err != nil {
		return GroupHandle{}, err
	}
	gh := GroupHandle{Group: g}
	for slot, t := range g.Targets {
		cr := columnRequest(req.Request, t)
		cr.Column = &Column{Group: g.ID, Slot: slot, Target: t.Label(), Parent: parents[slot]}
		if req.ColumnSinks != nil {
			cr.Sinks = append(append([]turn.Sink(nil), cr.Sinks...), req.ColumnSinks(*cr.Column)...)
		}
		h, err := r.Start(ctx, cr)
		if err != nil {
			for _, started := range gh.Handles {
				started.cancel()
			}
			gh.Wait()
			return gh, apperr.Wrap(err, apperr.CodeOf(err), "%s could not start (%s); the columns already started were stopped.", t.Label(), apperr.MessageOf(err))
		}
		gh.Handles = append(gh.Handles, h)
	}
	return gh, nil
}

// planGroup is the group to create and each column's parent, by slot: a
// first send's columns follow one turn (the request's parent), a
// follow-up's each follow their own column of the group it follows.
func (r *Runner) planGroup(ctx context.Context, sess store.Session, req GroupRequest) (store.TurnGroup, []string, error) {
	g := store.TurnGroup{SessionID: sess.ID, Targets: slices.Clone(req.Targets), Blind: req.Blind, FollowsGroupID: req.Follows}
	var parents []string
	if req.Follows != "" {
		prev, err := r.cfg.DB.GetGroup(ctx, req.Follows)
		if err != nil {
			return g, nil, err
		}
		if prev.SessionID != sess.ID {
			return g, nil, apperr.New(apperr.Invalid, "Side-by-side group %s belongs to another session.", req.Follows)
		}
		g.Targets, g.Blind = nil, prev.Blind
		for _, c := range prev.Columns {
			if c.Slot < len(prev.Targets) {
				g.Targets, parents = append(g.Targets, prev.Targets[c.Slot]), append(parents, c.TurnID)
			}
		}
		if len(g.Targets) == 0 {
			return g, nil, apperr.New(apperr.NotFound, "The columns of side-by-side group %s were deleted; there is nothing to send to.", req.Follows)
		}
		return g, parents, nil
	}
	if n := len(g.Targets); n < 2 || n > store.MaxColumns {
		return g, nil, apperr.New(apperr.Invalid, "Send side by side to 2 to %d models or workflows (%d given).", store.MaxColumns, n)
	}
	parent, err := r.parentOf(ctx, sess, req.Request)
	if err != nil {
		return g, nil, err
	}
	for range g.Targets {
		parents = append(parents, parent)
	}
	if g.Blind {
		g.Targets = shuffled(g.Targets, req.Order)
	}
	return g, parents, nil
}

// checkGroup does what Start does before it stores anything, for every
// target: the settings, the workflow and the model server must resolve,
// the images must be ones a model can take, and the session must have no
// turn running here (another process's is caught by the store, at the
// first column). It fills in each target as it will run (check).
func (r *Runner) checkGroup(ctx context.Context, sess store.Session, req Request, targets []store.GroupTarget) error {
	for i, t := range targets {
		resolved, err := r.check(ctx, sess, columnRequest(req, t))
		if err != nil {
			return apperr.Wrap(err, apperr.CodeOf(err), "%s: %s", t.Label(), apperr.MessageOf(err))
		}
		targets[i] = resolved
	}
	for _, im := range req.Images {
		if err := store.CheckImage(im); err != nil {
			return err
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, h := range r.running {
		if h.SessionID == sess.ID {
			return apperr.New(apperr.Conflict, "A turn is already running in this session. Stop it or wait for it to finish.")
		}
	}
	return nil
}

// columnRequest is the shared request, running one target. Its files
// were attached by StartGroup, once.
func columnRequest(req Request, t store.GroupTarget) Request {
	req.Provider, req.Model, req.Workflow = t.Provider, t.Model, t.Workflow
	req.Parent, req.VersionOf, req.Attach = "", "", nil
	return req
}

// check does what Start does before it stores anything, for one target:
// the settings, the workflow and the model server must resolve. It
// returns the target as it will run: a model or provider it leaves out is
// the session's, named so the column's label says what ran.
func (r *Runner) check(ctx context.Context, sess store.Session, req Request) (store.GroupTarget, error) {
	t := store.GroupTarget{Provider: req.Provider, Model: req.Model, Workflow: req.Workflow}
	set, err := r.turnSettings(ctx, sess.ID, req, nil)
	if err != nil {
		return t, err
	}
	if _, err := r.resolveWorkflow(firstOf(req.Workflow, set.Settings.Workflow), nil); err != nil {
		return t, err
	}
	t.Model, t.Provider = firstOf(req.Model, set.Settings.Model), firstOf(req.Provider, set.Settings.Provider)
	_, err = r.modelSource(ctx, set.Settings.Provider, req, t.Model)
	return t, err
}

// shuffled puts target i in slot order(n)[i]: a blind group's columns do
// not say, by their place, which target is which.
func shuffled(ts []store.GroupTarget, order func(n int) []int) []store.GroupTarget {
	perm := rand.Perm(len(ts))
	if order != nil {
		perm = order(len(ts))
	}
	out := make([]store.GroupTarget, len(ts))
	for i, slot := range perm {
		out[slot] = ts[i]
	}
	return out
}

// StopGroup stops every running column of a group. Columns that already
// ended, or run in another process, are left alone.
func (r *Runner) StopGroup(groupID string) error {
	if groupID == "" {
		return errors.New("no group to stop")
	}
	r.mu.Lock()
	var hs []*Handle
	for _, h := range r.running {
		if h.Group == groupID {
			hs = append(hs, h)
		}
	}
	r.mu.Unlock()
	for _, h := range hs {
		h.cancel()
	}
	return nil
}

// Runs reports whether the turn runs in this runner (it may be stopping).
func (r *Runner) Runs(turnID string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.running[turnID] != nil
}

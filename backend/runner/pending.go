package runner

import (
	"context"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Endings that could not be stored. A turn's ending (FinishTurn) that
// finds no room, even after the reserve is released, is kept here, and the
// turn stays running in the database. Each Start first tries to store the
// endings kept, so they are stored as soon as there is room again (the
// person frees space and sends), before the new turn claims its session.
// If this process ends first, the next start recovers the turn: with the
// cause a note beside the database kept (store.NoteEnding), or as
// interrupted.

// pendingEnding is one turn's ending not stored yet.
type pendingEnding struct {
	sessionID string
	from      int // FinishTurn's from
	res       turn.Result
}

// finishTurn stores a turn's ending; on a full disk it frees the reserve
// and tries once more.
func (r *Runner) finishTurn(h *Handle, t turnRun, res turn.Result) error {
	ctx := context.Background()
	err := r.cfg.DB.FinishTurn(ctx, h.TurnID, len(t.history), res)
	if store.IsDiskFull(err) {
		r.cfg.DB.ReleaseReserve(ctx)
		err = r.cfg.DB.FinishTurn(ctx, h.TurnID, len(t.history), res)
	}
	return err
}

// keepPending keeps an ending that could not be stored, for later.
func (r *Runner) keepPending(h *Handle, from int, res turn.Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending[h.TurnID] = pendingEnding{sessionID: h.SessionID, from: from, res: res}
}

// storePending tries to store every ending kept. An ending of sessionID
// that still cannot be stored is an error: its turn still runs in the
// database, and a new turn there would be refused as "already running".
func (r *Runner) storePending(ctx context.Context, sessionID string) error {
	r.mu.Lock()
	kept := make(map[string]pendingEnding, len(r.pending))
	for id, p := range r.pending {
		kept[id] = p
	}
	r.mu.Unlock()
	var blocking error
	for id, p := range kept {
		err := r.cfg.DB.FinishTurn(ctx, id, p.from, p.res)
		if err == nil || apperr.CodeOf(err) == apperr.NotFound { // stored, or the turn was deleted
			r.log.Info("stored a turn's ending kept since the disk was full", "turn", id, "err", err)
			r.mu.Lock()
			delete(r.pending, id)
			r.mu.Unlock()
			continue
		}
		r.log.Warn("the ending of a turn is still not stored", "turn", id, "err", err)
		if p.sessionID == sessionID && blocking == nil {
			blocking = apperr.Wrap(err, apperr.Unavailable,
				"The disk that holds the database is still full: the ending of this session's last turn is not saved yet, and no new turn can start after it. "+
					"Free some space on the disk that holds %s, then send again.", r.cfg.DB.Path())
		}
	}
	return blocking
}

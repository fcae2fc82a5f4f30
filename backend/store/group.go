package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Side by side: one message sent to several targets (models or
// workflows) at once. Each target runs as its own turn in a column of a
// TurnGroup; the columns are versions of one another (they share a
// parent), or, for a message sent while the session shows a group side
// by side, each continues its own column's branch (FollowsGroupID). The
// turns are normal turns in every other way: replayed, re-run, exported,
// searched and counted like any other.
//
// The rule StartTurn keeps: a session runs one turn at a time, or the
// columns of one group together. A turn of another group, or of none, is
// refused while any of them runs.

// MaxColumns is the most targets one group sends to.
const MaxColumns = 4

// TurnGroup is one message sent side by side.
type TurnGroup struct {
	ID        string `json:"id"`
	SessionID string `json:"session_id"`
	// FollowsGroupID is the group this one continues ("" for a first
	// send): the turn in slot i follows the turn in slot i there.
	FollowsGroupID string `json:"follows_group_id,omitempty"`
	// Blind hides the targets' names until the group is voted on.
	Blind bool `json:"blind"`
	// Targets are what each column runs, by slot.
	Targets   []GroupTarget `json:"targets"`
	CreatedAt time.Time     `json:"created_at"`
	// Columns are the group's turns by slot (read by GetGroup).
	Columns []GroupColumn `json:"columns"`
	// Vote is the person's verdict, nil until there is one.
	Vote *Vote `json:"vote,omitempty"`
}

// GroupTarget is what one column runs: a model of a provider, and a
// workflow ("" for the session's).
type GroupTarget struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Workflow string `json:"workflow,omitempty"`
}

// Label names the target on a column and on the leaderboard:
// "model · provider", after the workflow when it names one.
func (t GroupTarget) Label() string {
	s := t.Model
	if t.Provider != "" {
		s += " · " + t.Provider
	}
	if t.Workflow != "" {
		s = t.Workflow + " · " + s
	}
	return s
}

// GroupColumn is one turn of a group.
type GroupColumn struct {
	Slot   int       `json:"slot"`
	TurnID string    `json:"turn_id"`
	Target string    `json:"target"`
	State  TurnState `json:"state"`
}

// CreateGroup records a new group of the session, to start its columns
// in (StartOptions.Group). A group that follows another must be of the
// same session.
func (db *DB) CreateGroup(ctx context.Context, g TurnGroup) (TurnGroup, error) {
	if g.ID == "" {
		g.ID = turn.NewID()
	}
	g.CreatedAt = time.Now().UTC()
	if n := len(g.Targets); n < 1 || n > MaxColumns {
		return g, apperr.New(apperr.Invalid, "Send side by side to 2 to %d models or workflows (%d given).", MaxColumns, n)
	}
	targets, err := json.Marshal(g.Targets)
	if err != nil {
		return g, err
	}
	err = db.tx(ctx, "recording the side-by-side group", func(tx *sql.Tx) error {
		if g.FollowsGroupID != "" {
			if err := checkGroup(ctx, tx, g.FollowsGroupID, g.SessionID); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO turn_groups (id, session_id, follows_group_id, blind, targets, created_at) VALUES (?, ?, NULLIF(?, ''), ?, ?, ?)`,
			g.ID, g.SessionID, g.FollowsGroupID, g.Blind, string(targets), fmtTime(g.CreatedAt))
		if isForeignKey(err) {
			return apperr.New(apperr.NotFound, "There is no session %s.", g.SessionID)
		}
		return err
	})
	return g, err
}

// checkGroup fails unless the group exists and belongs to the session.
func checkGroup(ctx context.Context, tx *sql.Tx, groupID, sessionID string) error {
	var session string
	err := tx.QueryRowContext(ctx, `SELECT session_id FROM turn_groups WHERE id = ?`, groupID).Scan(&session)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return apperr.New(apperr.NotFound, "There is no side-by-side group %s.", groupID)
	case err != nil:
		return err
	case session != sessionID:
		return apperr.New(apperr.Invalid, "Side-by-side group %s belongs to another session.", groupID)
	}
	return nil
}

// GetGroup reads a group with its columns, by slot, and its vote.
func (db *DB) GetGroup(ctx context.Context, id string) (TurnGroup, error) {
	var g TurnGroup
	var created, targets string
	err := db.reader.QueryRowContext(ctx, `SELECT id, session_id, COALESCE(follows_group_id, ''), blind, targets, created_at FROM turn_groups WHERE id = ?`, id).
		Scan(&g.ID, &g.SessionID, &g.FollowsGroupID, &g.Blind, &targets, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return g, apperr.New(apperr.NotFound, "There is no side-by-side group %s.", id)
	}
	if err != nil {
		return g, readError(err, "reading a side-by-side group")
	}
	g.CreatedAt = parseTime(created)
	if err := json.Unmarshal([]byte(targets), &g.Targets); err != nil || g.Targets == nil {
		g.Targets = []GroupTarget{}
	}
	g.Columns, err = appendRows(ctx, db.reader, []GroupColumn{}, scanInto(func(c *GroupColumn) []any { return []any{&c.Slot, &c.TurnID, &c.Target, &c.State} }),
		`SELECT group_slot, id, target, state FROM turns WHERE group_id = ? ORDER BY group_slot, seq`, id)
	if err != nil {
		return g, readError(err, "reading a side-by-side group's turns")
	}
	if g.Vote, err = db.voteOf(ctx, id); err != nil {
		return g, err
	}
	return g, nil
}

// GroupChain is the group and the groups it follows, oldest first: the
// rows of a side-by-side conversation, column by column.
func (db *DB) GroupChain(ctx context.Context, id string) ([]TurnGroup, error) {
	var chain []TurnGroup
	seen := map[string]bool{}
	for id != "" && !seen[id] && len(chain) < 10000 {
		seen[id] = true
		g, err := db.GetGroup(ctx, id)
		if err != nil {
			if len(chain) > 0 && apperr.CodeOf(err) == apperr.NotFound {
				break // the groups before were deleted with their turns
			}
			return nil, err
		}
		chain = append(chain, g)
		id = g.FollowsGroupID
	}
	for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
		chain[i], chain[j] = chain[j], chain[i]
	}
	return chain, nil
}

// OpenGroup makes the session show the group side by side again (from a
// version switcher), with its slot 0 turn's branch active.
func (db *DB) OpenGroup(ctx context.Context, groupID string) error {
	return db.tx(ctx, "opening the side-by-side group", func(tx *sql.Tx) error {
		var session, first string
		err := tx.QueryRowContext(ctx, `SELECT g.session_id, COALESCE((SELECT t.id FROM turns t WHERE t.group_id = g.id ORDER BY t.group_slot, t.seq LIMIT 1), '')
			FROM turn_groups g WHERE g.id = ?`, groupID).Scan(&session, &first)
		if errors.Is(err, sql.ErrNoRows) {
			return apperr.New(apperr.NotFound, "There is no side-by-side group %s.", groupID)
		}
		if err != nil {
			return err
		}
		if first == "" {
			return apperr.New(apperr.NotFound, "The turns of side-by-side group %s were deleted.", groupID)
		}
		active, err := newestIn(ctx, tx, first)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE sessions SET open_group_id = ?, active_turn_id = ? WHERE id = ?`, groupID, active, session)
		return err
	})
}

// ContinueWith is "Continue with this one": the branch through turnID
// becomes the session's active one (as SwitchBranch), and the session
// reads as one conversation again. The other columns stay versions of it.
// It returns the active turn.
func (db *DB) ContinueWith(ctx context.Context, turnID string) (string, error) {
	active, err := db.SwitchBranch(ctx, turnID)
	if err != nil {
		return "", err
	}
	// SwitchBranch leaves the active branch alone when turnID is on it;
	// "continue with" a column means that column's branch, to its end.
	err = db.tx(ctx, "continuing with one version", func(tx *sql.Tx) error {
		var onPath int
		if err := tx.QueryRowContext(ctx, pathCTE+`SELECT COUNT(*) FROM path WHERE id = ?`, active, turnID).Scan(&onPath); err != nil {
			return err
		}
		if onPath == 0 {
			var err error
			if active, err = newestIn(ctx, tx, turnID); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `UPDATE sessions SET open_group_id = NULL, active_turn_id = ? WHERE id = (SELECT session_id FROM turns WHERE id = ?)`, active, turnID)
		return err
	})
	return active, err
}

// afterColumnsDeleted keeps a session's groups true once some of their
// turns are deleted (DeleteTurn). A vote compares at least two answers
// (SaveVote), so the vote of a group left with fewer than two columns is
// deleted with them; and the session shows a group side by side only
// while it has two columns: with fewer it reads as one conversation
// again. A vote whose winning turn is deleted goes with it (the schema's
// cascade).
func afterColumnsDeleted(ctx context.Context, tx *sql.Tx, sessionID string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM votes WHERE group_id IN (SELECT g.id FROM turn_groups g WHERE g.session_id = ?
			AND (SELECT COUNT(*) FROM turns t WHERE t.group_id = g.id) < 2)`, sessionID); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `UPDATE sessions SET open_group_id = NULL WHERE id = ? AND open_group_id IS NOT NULL
		AND (SELECT COUNT(*) FROM turns t WHERE t.group_id = sessions.open_group_id) < 2`, sessionID)
	return err
}

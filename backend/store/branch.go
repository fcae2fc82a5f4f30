package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

// The branches of a session's turn tree: which one is active, and
// deleting a version with everything that followed it.

// subtreeQuery lists a turn and every turn that follows it, on any branch.
const subtreeQuery = `WITH RECURSIVE sub(id) AS (
		SELECT ?
		UNION
		SELECT t.id FROM turns t JOIN sub ON t.parent_turn_id = sub.id)
	SELECT id FROM sub`

// pathCTE lists the turns of the branch that ends at a turn, that turn
// included, from it back to the first message. The depth bound stops a
// loop a damaged or hand-edited file could hold.
// Its rows are (id, depth), depth 0 for the turn itself.
const pathCTE = `WITH RECURSIVE path(id, depth) AS (
		SELECT ?, 0
		UNION ALL
		SELECT t.parent_turn_id, p.depth + 1 FROM turns t JOIN path p ON t.id = p.id
		WHERE t.parent_turn_id IS NOT NULL AND p.depth < 100000) `

// SwitchBranch makes the branch through turnID the session's active one,
// and returns its active turn. A turn already on the active branch leaves
// it as it is; any other gives the newest turn that follows turnID on any
// of its branches, or turnID itself. It is what switching to another
// version of a turn shows (that version and its whole continuation), and
// what opening a search hit on another branch does.
func (db *DB) SwitchBranch(ctx context.Context, turnID string) (string, error) {
	var active string
	err := db.tx(ctx, "switching the branch", func(tx *sql.Tx) error {
		var sessionID, current string
		err := tx.QueryRowContext(ctx, `SELECT t.session_id, COALESCE(s.active_turn_id, '') FROM turns t JOIN sessions s ON s.id = t.session_id WHERE t.id = ?`, turnID).Scan(&sessionID, &current)
		if errors.Is(err, sql.ErrNoRows) {
			return apperr.New(apperr.NotFound, "There is no turn %s.", turnID)
		}
		if err != nil {
			return err
		}
		var onPath int
		if err := tx.QueryRowContext(ctx, pathCTE+`SELECT COUNT(*) FROM path WHERE id = ?`, current, turnID).Scan(&onPath); err != nil {
			return err
		}
		if onPath > 0 {
			active = current
			return nil
		}
		if active, err = newestIn(ctx, tx, turnID); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE sessions SET active_turn_id = ? WHERE id = ?`, active, sessionID)
		return err
	})
	return active, err
}

// ContinuationOf is the turn that continues turnID's answer, "" when none
// does.
func (db *DB) ContinuationOf(ctx context.Context, turnID string) (string, error) {
	id, err := queryColumn[string](ctx, db.reader, `SELECT id FROM turns WHERE parent_turn_id = ? AND continues = 1 ORDER BY seq LIMIT 1`, turnID)
	if err != nil {
		return "", readError(err, "reading the continuation of turn "+turnID)
	}
	if len(id) == 0 {
		return "", nil
	}
	return id[0], nil
}

// newestIn is the newest turn of the subtree of turnID.
func newestIn(ctx context.Context, tx *sql.Tx, turnID string) (string, error) {
	var id string
	err := tx.QueryRowContext(ctx, `SELECT id FROM turns WHERE id IN (`+subtreeQuery+`) ORDER BY seq DESC LIMIT 1`, turnID).Scan(&id)
	return id, err
}

// CountTurnsFrom is how many turns DeleteTurn(turnID) would delete: the
// turn and every turn that follows it. The UI asks before deleting.
func (db *DB) CountTurnsFrom(ctx context.Context, turnID string) (int, error) {
	var n int
	err := db.reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM (`+subtreeQuery+`) s JOIN turns t ON t.id = s.id`, turnID).Scan(&n)
	if err != nil {
		return 0, readError(err, "counting the turns after turn "+turnID)
	}
	if n == 0 {
		return 0, apperr.New(apperr.NotFound, "There is no turn %s.", turnID)
	}
	return n, nil
}

// DeleteTurn deletes a version of a turn and every turn that follows it on
// any branch, with all they own (messages, events, stages, calls, search
// entries) and the recordings no other turn uses; freed pages are zeroed
// as for DeleteSession. A running turn among them refuses the delete.
// When the active branch went with them, the newest remaining turn of a
// sibling branch (or else the parent) becomes active. A side-by-side
// group left with fewer than two columns loses its vote, and the session
// stops showing it side by side (afterColumnsDeleted). It returns how many
// turns it deleted.
func (db *DB) DeleteTurn(ctx context.Context, turnID string) (int, error) {
	var ids []string
	err := db.tx(ctx, "deleting the turn", func(tx *sql.Tx) error {
		var sessionID, parent, active string
		err := tx.QueryRowContext(ctx, `SELECT t.session_id, COALESCE(t.parent_turn_id, ''), COALESCE(s.active_turn_id, '')
			FROM turns t JOIN sessions s ON s.id = t.session_id WHERE t.id = ?`, turnID).Scan(&sessionID, &parent, &active)
		if errors.Is(err, sql.ErrNoRows) {
			return apperr.New(apperr.NotFound, "There is no turn %s.", turnID)
		}
		if err != nil {
			return err
		}
		if ids, err = queryColumn[string](ctx, tx, subtreeQuery, turnID); err != nil {
			return err
		}
		list, _ := json.Marshal(ids)
		var running int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM turns WHERE state = 'running' AND id IN (SELECT value FROM json_each(?))`, string(list)).Scan(&running); err != nil {
			return err
		}
		if running > 0 {
			return apperr.New(apperr.Conflict, "A turn after this one is still running: stop it first, then delete.")
		}
		recs, err := queryColumn[int64](ctx, tx, `SELECT DISTINCT recording_id FROM turn_calls WHERE turn_id IN (SELECT value FROM json_each(?))`, string(list))
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM search WHERE turn_id IN (SELECT value FROM json_each(?))`, string(list)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM turns WHERE id IN (SELECT value FROM json_each(?))`, string(list)); err != nil {
			return err
		}
		if err := deleteUnusedRecordings(ctx, tx, recs); err != nil {
			return err
		}
		if err := afterColumnsDeleted(ctx, tx, sessionID); err != nil {
			return err
		}
		if !slices.Contains(ids, active) {
			return nil
		}
		next := ""
		if parent != "" {
			if next, err = newestIn(ctx, tx, parent); err != nil {
				return err
			}
		} else if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), '') FROM turns WHERE session_id = ? AND seq = (SELECT MAX(seq) FROM turns WHERE session_id = ?)`, sessionID, sessionID).Scan(&next); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE sessions SET active_turn_id = NULLIF(?, '') WHERE id = ?`, next, sessionID)
		return err
	})
	if err != nil {
		return 0, err
	}
	return len(ids), db.Compact(ctx)
}

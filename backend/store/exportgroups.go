package store

import (
	"database/sql"

	"github.com/agentdeck/agentdeck/backend/export"
)

// groups reads the session's side-by-side groups with their votes, oldest
// first (export.Version 8).
func (r *sessionReader) groups() ([]export.Group, error) {
	rows, err := r.tx.QueryContext(r.ctx, `SELECT g.id, COALESCE(g.follows_group_id, ''), g.blind, g.targets, g.created_at,
			v.id, v.outcome, COALESCE(v.winner_turn_id, ''), v.note, v.blind, v.created_at
		FROM turn_groups g LEFT JOIN votes v ON v.group_id = g.id WHERE g.session_id = ? ORDER BY g.created_at, g.rowid`, r.sessionID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []export.Group
	for rows.Next() {
		var g export.Group
		var targets, created string
		var voteID, outcome, winner, note, voteCreated sql.NullString
		var voteBlind sql.NullBool
		if err := rows.Scan(&g.ID, &g.FollowsGroupID, &g.Blind, &targets, &created,
			&voteID, &outcome, &winner, &note, &voteBlind, &voteCreated); err != nil {
			return nil, err
		}
		g.Targets, g.CreatedAt = rawColumn(targets, `[]`), parseTime(created)
		if voteID.Valid {
			g.Vote = &export.GroupVote{ID: voteID.String, Outcome: outcome.String, WinnerTurnID: winner.String, Note: note.String,
				Blind: voteBlind.Bool, CreatedAt: parseTime(voteCreated.String)}
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// VoteOutcome is a person's verdict on a side-by-side group.
type VoteOutcome string

// The verdicts. With two columns they read "A better", "B better", "tie"
// and "both bad"; with more, the winner is the best of them.
const (
	VoteWin     VoteOutcome = "win"
	VoteTie     VoteOutcome = "tie"
	VoteBothBad VoteOutcome = "both_bad"
)

// Vote is a verdict on a group: one per group, a second replaces it.
type Vote struct {
	ID      string      `json:"id"`
	GroupID string      `json:"group_id"`
	Outcome VoteOutcome `json:"outcome"`
	// WinnerTurnID is the better turn, for VoteWin only.
	WinnerTurnID string `json:"winner_turn_id,omitempty"`
	Note         string `json:"note"`
	// Blind says the names were hidden when the vote was cast.
	Blind     bool      `json:"blind"`
	CreatedAt time.Time `json:"created_at"`
}

// MaxVoteNote is the longest note a vote keeps, in bytes.
const MaxVoteNote = 4000

// SaveVote records the vote on its group, replacing an earlier one. A win
// must name a turn of the group; a tie or "both bad" names none. The
// vote is blind when its group is.
func (db *DB) SaveVote(ctx context.Context, v Vote) (Vote, error) {
	switch v.Outcome {
	case VoteWin:
		if v.WinnerTurnID == "" {
			return v, apperr.New(apperr.Invalid, "A vote for a winner must say which answer won.")
		}
	case VoteTie, VoteBothBad:
		v.WinnerTurnID = ""
	default:
		return v, apperr.New(apperr.Invalid, "%q is not a vote: use win, tie or both_bad.", v.Outcome)
	}
	v.Note = strings.TrimSpace(v.Note)
	if len(v.Note) > MaxVoteNote {
		return v, apperr.New(apperr.Invalid, "The note is too long (%d bytes; at most %d).", len(v.Note), MaxVoteNote)
	}
	v.ID, v.CreatedAt = turn.NewID(), time.Now().UTC()
	err := db.tx(ctx, "saving the vote", func(tx *sql.Tx) error {
		var columns, member int
		err := tx.QueryRowContext(ctx, `SELECT g.blind, (SELECT COUNT(*) FROM turns t WHERE t.group_id = g.id),
				(SELECT COUNT(*) FROM turns t WHERE t.group_id = g.id AND t.id = ?)
			FROM turn_groups g WHERE g.id = ?`, v.WinnerTurnID, v.GroupID).Scan(&v.Blind, &columns, &member)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return apperr.New(apperr.NotFound, "There is no side-by-side group %s.", v.GroupID)
		case err != nil:
			return err
		case columns < 2:
			return apperr.New(apperr.Invalid, "A vote compares at least two answers; this group has %d.", columns)
		case v.Outcome == VoteWin && member == 0:
			return apperr.New(apperr.Invalid, "Turn %s is not one of this group's answers.", v.WinnerTurnID)
		}
		var running int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM turns WHERE group_id = ? AND state = 'running'`, v.GroupID).Scan(&running); err != nil {
			return err
		}
		if running > 0 {
			return apperr.New(apperr.Conflict, "Wait for every answer to finish (or stop them) before you vote.")
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO votes (id, group_id, outcome, winner_turn_id, note, blind, created_at) VALUES (?, ?, ?, NULLIF(?, ''), ?, ?, ?)
			ON CONFLICT (group_id) DO UPDATE SET id = excluded.id, outcome = excluded.outcome, winner_turn_id = excluded.winner_turn_id,
				note = excluded.note, blind = excluded.blind, created_at = excluded.created_at`,
			v.ID, v.GroupID, v.Outcome, v.WinnerTurnID, v.Note, v.Blind, fmtTime(v.CreatedAt))
		return err
	})
	return v, err
}

// voteOf is the group's vote, nil when it has none.
func (db *DB) voteOf(ctx context.Context, groupID string) (*Vote, error) {
	var v Vote
	var created string
	err := db.reader.QueryRowContext(ctx, `SELECT id, group_id, outcome, COALESCE(winner_turn_id, ''), note, blind, created_at FROM votes WHERE group_id = ?`, groupID).
		Scan(&v.ID, &v.GroupID, &v.Outcome, &v.WinnerTurnID, &v.Note, &v.Blind, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, readError(err, "reading a group's vote")
	}
	v.CreatedAt = parseTime(created)
	return &v, nil
}

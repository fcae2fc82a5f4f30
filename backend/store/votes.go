package store

import (
	"context"
	"database/sql"
	"encoding/json"
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

// VoteFilter picks votes: of one project (NoProject: sessions in none) or
// all, of one session, since a time; newest first, at most Limit
// (default 200, at most 10,000).
type VoteFilter struct {
	Project   string     `json:"project,omitempty"`
	SessionID string     `json:"session_id,omitempty"`
	Since     *time.Time `json:"since,omitempty"`
	Limit     int        `json:"limit,omitempty"`
}

// VoteRecord is a vote with what it compared: the message, and the
// group's targets by slot (the winner's among them).
type VoteRecord struct {
	Vote
	SessionID    string `json:"session_id"`
	SessionTitle string `json:"session_title"`
	ProjectID    string `json:"project_id"`
	Message      string `json:"message"`
	// Targets are the labels of the group's columns that still exist, by
	// slot; Winner is the winner's, "" for a tie or both bad.
	Targets []string `json:"targets"`
	Winner  string   `json:"winner,omitempty"`
}

// VoteTargets lists the targets of every side-by-side column of the
// project or session the filter names (Since and Limit are not read),
// voted on or not, by name: a leaderboard shows those no vote compared
// yet, unranked.
func (db *DB) VoteTargets(ctx context.Context, f VoteFilter) ([]string, error) {
	q := `SELECT DISTINCT t.target FROM turns t JOIN sessions s ON s.id = t.session_id WHERE t.group_id IS NOT NULL AND t.target != ''`
	var args []any
	q, args = votePlace(q, args, f)
	out, err := queryColumn[string](ctx, db.reader, q+` ORDER BY t.target`, args...)
	if err != nil {
		return nil, readError(err, "listing the side-by-side targets")
	}
	return out, nil
}

// votePlace adds the filter's project and session to a query of s, the
// sessions.
func votePlace(q string, args []any, f VoteFilter) (string, []any) {
	switch f.Project {
	case "":
	case NoProject:
		q += ` AND s.project_id IS NULL`
	default:
		q, args = q+` AND s.project_id = ?`, append(args, f.Project)
	}
	if f.SessionID != "" {
		q, args = q+` AND s.id = ?`, append(args, f.SessionID)
	}
	return q, args
}

// ListVotes lists votes with what they compared, newest first.
func (db *DB) ListVotes(ctx context.Context, f VoteFilter) ([]VoteRecord, error) {
	q := `SELECT v.id, v.group_id, v.outcome, COALESCE(v.winner_turn_id, ''), v.note, v.blind, v.created_at,
			s.id, s.title, COALESCE(s.project_id, ''),
			COALESCE((SELECT t.user_message FROM turns t WHERE t.group_id = g.id ORDER BY t.group_slot LIMIT 1), ''),
			COALESCE((SELECT json_group_array(target) FROM (SELECT t.target FROM turns t WHERE t.group_id = g.id ORDER BY t.group_slot)), '[]'),
			COALESCE((SELECT w.target FROM turns w WHERE w.id = v.winner_turn_id), '')
		FROM votes v JOIN turn_groups g ON g.id = v.group_id JOIN sessions s ON s.id = g.session_id WHERE 1 = 1`
	q, args := votePlace(q, nil, f)
	if f.Since != nil {
		q, args = q+` AND v.created_at >= ?`, append(args, fmtTime(*f.Since))
	}
	q, args = q+` ORDER BY v.created_at DESC, v.id LIMIT ?`, append(args, clampLimit(f.Limit, 200, 10000))
	out, err := appendRows(ctx, db.reader, []VoteRecord{}, func(r scanner) (VoteRecord, error) {
		var v VoteRecord
		var created, targets string
		err := r.Scan(&v.ID, &v.GroupID, &v.Outcome, &v.WinnerTurnID, &v.Note, &v.Blind, &created,
			&v.SessionID, &v.SessionTitle, &v.ProjectID, &v.Message, &targets, &v.Winner)
		v.CreatedAt = parseTime(created)
		if json.Unmarshal([]byte(targets), &v.Targets) != nil || v.Targets == nil {
			v.Targets = []string{}
		}
		return v, err
	}, q, args...)
	if err != nil {
		return nil, readError(err, "listing votes")
	}
	return out, nil
}

package store

import (
	"encoding/json"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Side-by-side groups on import (export.Version 8). Each group of the file
// is stored under a new id before the turns, which name it (columnOf);
// once the turns are in (finishGroups), a group none of whose turns the
// file holds is dropped, and so is a vote whose winner the file lacks or
// that no longer compares two of its group's columns. A fork
// (ForkSession) copies no group: its branch reads as one conversation,
// and its turns are plain turns.

// storeGroups stores the file's groups, oldest first, under new ids.
func (im *importer) storeGroups() error {
	if im.fork || len(im.doc.Groups) == 0 {
		return nil
	}
	im.groups = map[string]string{}
	for i, g := range im.doc.Groups {
		switch _, seen := im.groups[g.ID]; {
		case g.ID == "":
			return groupError(i, "has no id")
		case seen:
			return groupError(i, "repeats the id of another")
		}
		var targets []GroupTarget
		if err := json.Unmarshal(g.Targets, &targets); err != nil || len(targets) == 0 {
			return groupError(i, "has no targets")
		}
		follows := im.groups[g.FollowsGroupID] // only a group before it
		id := turn.NewID()
		im.groups[g.ID] = id
		created := g.CreatedAt
		if created.IsZero() {
			created = time.Now().UTC()
		}
		if _, err := im.tx.ExecContext(im.ctx, `INSERT INTO turn_groups (id, session_id, follows_group_id, blind, targets, created_at) VALUES (?, ?, NULLIF(?, ''), ?, ?, ?)`,
			id, im.sid, follows, g.Blind, compactJSON(g.Targets, `[]`), fmtTime(created)); err != nil {
			return err
		}
	}
	return nil
}

func groupError(i int, what string) error {
	return apperr.New(apperr.Invalid, "This file cannot be imported: side-by-side group %d %s. Nothing was imported.", i+1, what)
}

// columnOf is the stored group, column and target of a turn of the file:
// none when the file has no such group (or this is a fork).
func (im *importer) columnOf(t *export.Turn) (group string, slot int, target string) {
	if id := im.groups[t.GroupID]; id != "" {
		return id, t.GroupSlot, t.Target
	}
	return "", 0, ""
}

// finishGroups drops the groups none of whose turns are here, stores the
// votes that still compare two columns, and returns the group the
// session shows side by side ("" for none), which it stores.
func (im *importer) finishGroups() (string, error) {
	if im.groups == nil {
		return "", nil
	}
	if _, err := im.tx.ExecContext(im.ctx, `DELETE FROM turn_groups WHERE session_id = ? AND NOT EXISTS (SELECT 1 FROM turns t WHERE t.group_id = turn_groups.id)`, im.sid); err != nil {
		return "", err
	}
	inFile := map[string]bool{}
	for _, t := range im.doc.Turns {
		inFile[t.ID] = true
	}
	for i, g := range im.doc.Groups {
		if g.Vote == nil {
			continue
		}
		if err := im.storeVote(i, im.groups[g.ID], g.Vote, inFile); err != nil {
			return "", err
		}
	}
	open := im.groups[im.doc.Session.OpenGroupID]
	if open == "" {
		return "", nil
	}
	if n, _, err := im.columns(open, ""); err != nil || n < 2 {
		return "", err
	}
	_, err := im.tx.ExecContext(im.ctx, `UPDATE sessions SET open_group_id = ? WHERE id = ?`, open, im.sid)
	return open, err
}

// storeVote stores the vote of the file's group i, stored as groupID,
// unless its winner is not in the file or its group kept fewer than two
// columns.
func (im *importer) storeVote(i int, groupID string, v *export.GroupVote, inFile map[string]bool) error {
	winner := ""
	switch VoteOutcome(v.Outcome) {
	case VoteWin:
		if !inFile[v.WinnerTurnID] {
			return nil // the winning answer is not in the file
		}
		winner = im.id(v.WinnerTurnID)
	case VoteTie, VoteBothBad:
	default:
		return groupError(i, "has a vote of an unknown kind "+v.Outcome)
	}
	columns, member, err := im.columns(groupID, winner)
	if err != nil || columns < 2 || (winner != "" && !member) {
		return err // compares fewer than two here, or its winner is not its column
	}
	created := v.CreatedAt
	if created.IsZero() {
		created = time.Now().UTC()
	}
	_, err = im.tx.ExecContext(im.ctx, `INSERT INTO votes (id, group_id, outcome, winner_turn_id, note, blind, created_at) VALUES (?, ?, ?, NULLIF(?, ''), ?, ?, ?)`,
		turn.NewID(), groupID, v.Outcome, winner, v.Note, v.Blind, fmtTime(created))
	return err
}

// columns counts the stored columns of a group, and says whether turnID
// is one of them.
func (im *importer) columns(groupID, turnID string) (n int, member bool, err error) {
	err = im.tx.QueryRowContext(im.ctx, `SELECT COUNT(*), COALESCE(SUM(id = ?), 0) > 0 FROM turns WHERE group_id = ?`, turnID, groupID).Scan(&n, &member)
	return n, member, err
}

package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// History returns the conversation a turn of the session continues: the
// messages along the branch to the session's active turn (beforeSeq 0),
// or to the turn that turn number beforeSeq follows. Turns on other
// branches are never part of it.
func (db *DB) History(ctx context.Context, sessionID string, beforeSeq int) ([]llm.Message, error) {
	doing := "reading the conversation of session " + sessionID
	var leaf string
	var err error
	if beforeSeq > 0 {
		err = db.reader.QueryRowContext(ctx, `SELECT COALESCE(parent_turn_id, '') FROM turns WHERE session_id = ? AND seq = ?`, sessionID, beforeSeq).Scan(&leaf)
	} else {
		err = db.reader.QueryRowContext(ctx, `SELECT COALESCE(active_turn_id, '') FROM sessions WHERE id = ?`, sessionID).Scan(&leaf)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, readError(err, doing)
	}
	return db.PathHistory(ctx, leaf)
}

// SessionTree returns every turn of a session, oldest first, and the ids
// of its active branch from the first message to the active turn.
func (db *DB) SessionTree(ctx context.Context, sessionID string) (turns []Turn, active []string, err error) {
	doing := "reading the turns of session " + sessionID
	s, err := db.GetSession(ctx, sessionID)
	if err != nil {
		return nil, nil, err
	}
	turns, err = appendRows(ctx, db.reader, turns, scanTurn, turnSelect+` WHERE session_id = ? ORDER BY seq`, sessionID)
	if err != nil {
		return nil, nil, readError(err, doing)
	}
	byID := make(map[string]Turn, len(turns))
	for _, t := range turns {
		byID[t.ID] = t
	}
	for id := s.ActiveTurnID; id != "" && len(active) <= len(turns); id = byID[id].ParentTurnID {
		if _, ok := byID[id]; !ok {
			break
		}
		active = append([]string{id}, active...)
	}
	return turns, active, nil
}

// PathHistory returns the messages of the turns on the branch that ends at
// turnID, that turn included, oldest first: what a turn following turnID
// is sent, images with their bytes. "" (a first message) has none.
func (db *DB) PathHistory(ctx context.Context, turnID string) ([]llm.Message, error) {
	if turnID == "" {
		return nil, nil
	}
	msgs, err := db.queryMessages(ctx, "reading the conversation up to turn "+turnID, pathCTE+`
		SELECT m.role, m.content, m.extra FROM path p JOIN messages m ON m.turn_id = p.id
		ORDER BY p.depth DESC, m.idx`, turnID)
	if err != nil {
		return nil, err
	}
	return db.withImageData(ctx, msgs)
}

// ReadSessions lists every session, most recently active first, for a
// file that may be damaged: the index of sessions by activity lists their
// rows, and each row is read on its own, so a damaged page loses only the
// sessions on it. lost is how many the index lists that could not be read.
func (db *DB) ReadSessions(ctx context.Context) (sessions []Session, lost int, err error) {
	const doing = "listing sessions"
	ids, err := queryColumn[int64](ctx, db.reader, `SELECT rowid FROM sessions INDEXED BY sessions_updated ORDER BY updated_at DESC, id DESC`)
	if err != nil {
		return nil, 0, readError(err, doing)
	}
	for _, id := range ids {
		s, err := scanSession(db.reader.QueryRowContext(ctx, sessionSelect+` WHERE s.rowid = ?`, id))
		switch {
		case errors.Is(err, sql.ErrNoRows):
			// Deleted since the index was read.
		case err != nil && isCorrupt(err):
			lost++
		case err != nil:
			return sessions, lost, readError(err, doing)
		default:
			sessions = append(sessions, s)
		}
	}
	return sessions, lost, nil
}

// SessionTurns lists a session's turns, oldest first, for a file that
// may be damaged: their numbers come from the index of turns by session,
// and each row is read on its own. lost lists the numbers of the turns
// whose row could not be read.
func (db *DB) SessionTurns(ctx context.Context, sessionID string) (turns []Turn, lost []int, err error) {
	doing := "listing the turns of session " + sessionID
	rows, err := db.reader.QueryContext(ctx, `SELECT rowid, seq FROM turns WHERE session_id = ? ORDER BY seq`, sessionID)
	if err != nil {
		return nil, nil, readError(err, doing)
	}
	type ref struct {
		rowid int64
		seq   int
	}
	var refs []ref
	for rows.Next() {
		var r ref
		if err := rows.Scan(&r.rowid, &r.seq); err != nil {
			rows.Close()
			return nil, nil, readError(err, doing)
		}
		refs = append(refs, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, readError(err, doing)
	}
	for _, r := range refs {
		t, err := scanTurn(db.reader.QueryRowContext(ctx, turnSelect+` WHERE rowid = ?`, r.rowid))
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil && isCorrupt(err):
			lost = append(lost, r.seq)
		case err != nil:
			return turns, lost, readError(err, doing)
		default:
			turns = append(turns, t)
		}
	}
	return turns, lost, nil
}

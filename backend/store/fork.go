package store

import (
	"context"
	"database/sql"
	"slices"

	"github.com/agentdeck/agentdeck/backend/export"
)

// ForkSession starts a new session from a turn ("Fork from here"): a copy
// of the branch that ends at turnID, that turn included, with everything
// stored about each turn (messages, images, events, stages, calls,
// recordings, so its turns replay, and its documents) under new ids. The new session names the session and
// turn it came from, and its turns are marked copied (Turn.Copied): their
// calls were counted in the original. It is the session's JSON export, cut to the branch,
// imported as a copy, so a fork keeps exactly what an export keeps.
func (db *DB) ForkSession(ctx context.Context, turnID string) (Session, error) {
	doc, from, err := db.branchDoc(ctx, turnID)
	if err != nil {
		return Session{}, err
	}
	doc.Session.Title = forkTitle(doc.Session.Title)
	return db.storeBranch(ctx, &doc, "forking the session", func(tx *sql.Tx, s *Session) error {
		s.ForkedFromSession, s.ForkedFromTurn = from.SessionID, turnID
		_, err := tx.ExecContext(ctx, `UPDATE sessions SET forked_from_session_id = ?, forked_from_turn_id = ? WHERE id = ?`, from.SessionID, turnID, s.ID)
		return err
	})
}

// storeBranch imports a branch (branchDoc) as a new session, its turns
// copies (CopiedFork), then lets then finish the session in the same
// transaction.
func (db *DB) storeBranch(ctx context.Context, doc *export.Document, doing string, then func(tx *sql.Tx, s *Session) error) (Session, error) {
	var s Session
	err := db.tx(ctx, doing, func(tx *sql.Tx) error {
		im := &importer{ctx: ctx, tx: tx, doc: doc, fork: true, copied: CopiedFork}
		var err error
		if s, err = im.run(); err != nil {
			return err
		}
		return then(tx, &s)
	})
	return s, err
}

// branchDoc is the JSON export of turnID's session cut to the branch that
// ends at turnID, that turn active: what a fork imports.
func (db *DB) branchDoc(ctx context.Context, turnID string) (export.Document, TurnDetail, error) {
	from, err := db.GetTurn(ctx, turnID, false)
	if err != nil {
		return export.Document{}, from, err
	}
	doc, err := export.Collect(ctx, db, from.SessionID, export.Load{AllEvents: true, Captures: true, Images: true, Documents: true, Passages: true})
	if err != nil {
		return export.Document{}, from, err
	}
	branch := map[string]bool{}
	byID := map[string]export.Turn{}
	for _, t := range doc.Turns {
		byID[t.ID] = t
	}
	for id := turnID; id != "" && !branch[id]; id = byID[id].ParentTurnID {
		branch[id] = true
	}
	doc.Format, doc.Version = export.FormatName, export.Version
	doc.Turns = slices.DeleteFunc(doc.Turns, func(t export.Turn) bool { return !branch[t.ID] })
	doc.Session.ActiveTurnID = turnID
	doc.Captures = keepCaptures(doc.Captures, branch)
	keepImages(&doc)
	return doc, from, nil
}

func forkTitle(title string) string {
	if title == "" {
		return "Fork"
	}
	return title + " (fork)"
}

// keepCaptures keeps the recordings the branch's turns used, and of each
// only those calls.
func keepCaptures(caps []export.Capture, branch map[string]bool) []export.Capture {
	var out []export.Capture
	for _, c := range caps {
		c.Calls = slices.DeleteFunc(slices.Clone(c.Calls), func(call export.Call) bool { return !branch[call.Turn] })
		c.Turns = slices.DeleteFunc(slices.Clone(c.Turns), func(t string) bool { return !branch[t] })
		if len(c.Calls) > 0 || len(c.Turns) > 0 {
			out = append(out, c)
		}
	}
	return out
}

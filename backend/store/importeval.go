package store

import (
	"context"
	"database/sql"
)

// EvalCopy starts an evaluation session for a case that starts from a
// step of a recorded turn (eval's from): a copy of the branch that ends
// at turnID, that turn included, with its recordings, stored as
// ForkSession stores a fork (its turns copied, so their calls count
// where they ran) but as an evaluation session (Kind eval, kept apart
// from chats) with s's title, provider and model (a re-run runs the
// turn's own workflow). The case's turn is then
// a re-run of the copied turn in that session, so everything a re-run
// reads (the conversation before the turn, the original's recordings)
// is the copy's, and the user's session gains no version. It returns the
// session, whose ActiveTurnID is the copy of turnID; NotFound when
// turnID is not in this database.
func (db *DB) EvalCopy(ctx context.Context, turnID string, s Session) (Session, error) {
	doc, _, err := db.branchDoc(ctx, turnID)
	if err != nil {
		return Session{}, err
	}
	doc.Session.Title, doc.Session.Provider, doc.Session.Model = s.Title, s.Provider, s.Model
	return db.storeBranch(ctx, &doc, "starting the evaluation case's session", func(tx *sql.Tx, out *Session) error {
		out.Kind = SessionEval
		_, err := tx.ExecContext(ctx, `UPDATE sessions SET kind = ? WHERE id = ?`, SessionEval, out.ID)
		return err
	})
}

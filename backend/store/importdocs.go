package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
)

// ImportDocuments stores documents made in memory (another app's
// conversations, read by export/foreign) as sessions, all in one
// transaction: a document that cannot be stored leaves none of them
// behind. Each is stored as Import stores a file (a copy with new ids if
// any id is here already), its turns marked CopiedImport. The sessions
// come back in the documents' order.
func (db *DB) ImportDocuments(ctx context.Context, docs []export.Document) ([]Session, error) {
	out := make([]Session, 0, len(docs))
	err := db.tx(ctx, "importing the sessions", func(tx *sql.Tx) error {
		for i := range docs {
			im := &importer{ctx: ctx, tx: tx, doc: &docs[i], copied: CopiedImport}
			s, err := im.run()
			if err != nil {
				return conversationError(i, len(docs), err)
			}
			out = append(out, s)
		}
		return nil
	})
	if err != nil && ctx.Err() != nil {
		return nil, apperr.Wrap(err, apperr.Cancelled, "The import was cancelled; nothing was imported.")
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// conversationError says which of several conversations failed.
func conversationError(i, n int, err error) error {
	var ae *apperr.Error
	if !errors.As(err, &ae) || n == 1 {
		return err
	}
	return apperr.Wrap(ae, ae.Code, "Conversation %d of the file: %s", i+1, ae.Message)
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"sync"
)

// Search entries are written after the turn. Tokenizing a long answer into
// the full-text index was two thirds of storing a finished turn, and the
// turn has no need to wait for it: FinishTurn marks the turn
// search_pending, and the indexer (a worker, background.go) writes its
// entries and clears the mark, in one transaction. It is woken when the
// turn's event log closes, after the turn's last write: woken by
// FinishTurn, it held the writer while the turn still had its closing
// events to store. Search and SearchMemory index whatever is still marked
// before they look, so a search never misses a stored turn; a crash leaves
// the mark, and the next Open indexes the turn. A read-only DB has no
// indexer: a turn still marked there is missing from its search.
type indexer struct {
	mu sync.Mutex // one IndexPending at a time
	w  *worker
}

// startIndexer starts db's indexer, which first indexes any turn an
// earlier process left marked.
func (db *DB) startIndexer(after func(uint64)) {
	db.idx = &indexer{}
	db.idx.w = startWorker(func() {
		// A failure (a full disk) leaves the turns marked for the next
		// wake or search.
		_ = db.IndexPending(context.Background())
	}, after)
	db.idx.w.poke() // what an earlier process left marked
}

// poke wakes the indexer; it never blocks. A nil indexer (read-only) does
// nothing.
func (ix *indexer) poke() {
	if ix != nil {
		ix.w.poke()
	}
}

// stopIndexer stops the indexer and waits for it, then indexes what is
// still marked, so a closed file is whole.
func (db *DB) stopIndexer() {
	if db.idx == nil {
		return
	}
	db.idx.w.halt()
	_ = db.IndexPending(context.Background())
}

// indexBatch is how many marked turns IndexPending reads at a time.
const indexBatch = 32

// IndexPending writes the search entries of every finished turn still
// waiting for them (see indexer), one transaction a turn. Search does it
// before it looks; call it to have the index whole now.
func (db *DB) IndexPending(ctx context.Context) error {
	if db.idx == nil {
		return nil
	}
	// Most calls find nothing to do (a search as the user types): ask a
	// reader, through the partial index, before waiting for the writer,
	// which a streaming turn keeps busy.
	var pending bool
	if err := db.reader.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM turns WHERE search_pending = 1)`).Scan(&pending); err != nil {
		return readError(err, "finding turns to index for search")
	}
	if !pending {
		return nil
	}
	db.idx.mu.Lock()
	defer db.idx.mu.Unlock()
	for {
		ids, err := queryColumn[string](ctx, db.writer, `SELECT id FROM turns WHERE search_pending = 1 LIMIT ?`, indexBatch)
		if err != nil {
			return readError(err, "finding turns to index for search")
		}
		if len(ids) == 0 {
			return nil
		}
		for _, id := range ids {
			if err := db.tx(ctx, "indexing a turn for search", func(tx *sql.Tx) error { return indexTurn(ctx, tx, id) }); err != nil {
				return err
			}
		}
	}
}

// indexTurn writes a marked turn's search entries from its stored
// messages and clears its mark. A turn deleted or indexed meanwhile is
// left alone.
func indexTurn(ctx context.Context, tx *sql.Tx, turnID string) error {
	var sessionID string
	err := tx.QueryRowContext(ctx, `SELECT session_id FROM turns WHERE id = ? AND search_pending = 1`, turnID).Scan(&sessionID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	msgs, err := readMessages(ctx, tx, "reading the messages of turn "+turnID, turnMessagesQuery, turnID)
	if err != nil {
		return err
	}
	if err := indexMessages(ctx, tx, sessionID, turnID, msgs); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE turns SET search_pending = 0 WHERE id = ?`, turnID)
	return err
}

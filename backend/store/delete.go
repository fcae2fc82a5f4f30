package store

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

// DeleteSession removes a session and everything it owns: turns, messages,
// events, stages, search entries, attachments (rows and files), its folder
// (SessionDir: the attached tables and uploads), and the recordings no
// other session uses. Freed pages are zeroed (secure_delete)
// and the write-ahead log is checkpointed and truncated, so the deleted
// text is gone from the files on disk, not merely unlinked.
func (db *DB) DeleteSession(ctx context.Context, id string) error {
	var files []string
	err := db.tx(ctx, "deleting the session", func(tx *sql.Tx) (err error) {
		files, err = deleteSessionRows(ctx, tx, id)
		return err
	})
	if err != nil {
		return err
	}
	if err := db.removeSessionFiles(id, files); err != nil {
		return err
	}
	return db.Compact(ctx)
}

// deleteSessionRows deletes a session's rows inside tx and returns its
// attachment files, for removeSessionFiles once tx has committed.
func deleteSessionRows(ctx context.Context, tx *sql.Tx, id string) ([]string, error) {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM sessions WHERE id = ?`, id).Scan(&n); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, apperr.New(apperr.NotFound, "There is no session %s.", id)
	}
	files, err := queryColumn[string](ctx, tx, `SELECT path FROM attachments WHERE session_id = ? AND path != ''`, id)
	if err != nil {
		return nil, err
	}
	// The recordings this session's turns used: once the turns are
	// gone, those no other turn uses go too.
	recs, err := sessionRecordings(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM search WHERE session_id = ?`, id); err != nil {
		return nil, err
	}
	if _, err = tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id); err != nil {
		return nil, err
	}
	return files, deleteUnusedRecordings(ctx, tx, recs)
}

// removeSessionFiles removes a deleted session's attachment files and its
// own folder (the tables of its attached files, uploads).
func (db *DB) removeSessionFiles(id string, files []string) error {
	for _, f := range files {
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			return apperr.Wrap(err, apperr.Unavailable, "The session was deleted but its attached file %s could not be removed; delete it by hand", f)
		}
	}
	if dir := SessionDir(db.path, id); filepath.Base(filepath.Dir(dir)) == "sessions" {
		if err := os.RemoveAll(dir); err != nil {
			return apperr.Wrap(err, apperr.Unavailable, "The session was deleted but its folder %s could not be removed; delete it by hand", dir)
		}
	}
	return nil
}

func sessionRecordings(ctx context.Context, tx *sql.Tx, sessionID string) ([]int64, error) {
	return queryColumn[int64](ctx, tx, `SELECT DISTINCT tc.recording_id FROM turn_calls tc JOIN turns t ON t.id = tc.turn_id WHERE t.session_id = ?`, sessionID)
}

// deleteUnusedRecordings deletes those of ids that no turn uses any more.
func deleteUnusedRecordings(ctx context.Context, tx *sql.Tx, ids []int64) error {
	stmt, err := tx.PrepareContext(ctx, `DELETE FROM recordings WHERE id = ? AND NOT EXISTS (SELECT 1 FROM turn_calls WHERE recording_id = ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, id := range ids {
		if _, err := stmt.ExecContext(ctx, id, id); err != nil {
			return err
		}
	}
	return nil
}

// Compact checkpoints the write-ahead log into the database file and
// truncates it, then optimizes the search index, so deleted content leaves
// every file.
func (db *DB) Compact(ctx context.Context) error {
	if _, err := db.writer.ExecContext(ctx, `INSERT INTO search (search) VALUES ('optimize')`); err != nil {
		return writeError(err, "compacting the search index")
	}
	if err := db.checkpoint(ctx, checkpointTruncate); err != nil {
		return writeError(err, "compacting the database")
	}
	return nil
}

package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// Captures implements llm.CaptureStore and llm.CaptureLister over the
// database. Captures written while a turn runs are linked to that turn, so
// deleting the turn's session deletes the captures no other turn uses.
type Captures struct {
	db     *DB
	turnID string // "" = not linked to a turn
}

// Captures returns the capture store, linking new captures to turnID.
func (db *DB) Captures(turnID string) *Captures { return &Captures{db: db, turnID: turnID} }

// GetCapture implements llm.CaptureStore.
func (c *Captures) GetCapture(ctx context.Context, key string) (*llm.Capture, error) {
	var cp llm.Capture
	var chunks, resp, recorded, req string
	err := c.db.reader.QueryRowContext(ctx, `SELECT key, model, request, chunks, response, recorded_at FROM captures WHERE key = ?`, key).
		Scan(&cp.Key, &cp.Model, &req, &chunks, &resp, &recorded)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, readError(err, "loading a recorded model call")
	}
	cp.Request = json.RawMessage(req)
	cp.RecordedAt = parseTime(recorded)
	if err := json.Unmarshal([]byte(chunks), &cp.Chunks); err != nil {
		return nil, readError(err, "decoding a recorded model call")
	}
	if err := json.Unmarshal([]byte(resp), &cp.Response); err != nil {
		return nil, readError(err, "decoding a recorded model call")
	}
	if c.turnID != "" {
		// A replay uses this capture too: keep it while this turn exists.
		_, _ = c.db.writer.ExecContext(ctx, `INSERT OR IGNORE INTO capture_refs (capture_key, turn_id) SELECT ?, ? WHERE EXISTS (SELECT 1 FROM turns WHERE id = ?)`, key, c.turnID, c.turnID)
	}
	return &cp, nil
}

// PutCapture implements llm.CaptureStore.
func (c *Captures) PutCapture(ctx context.Context, cp *llm.Capture) error {
	chunks, err := json.Marshal(cp.Chunks)
	if err != nil {
		return err
	}
	resp, err := json.Marshal(cp.Response)
	if err != nil {
		return err
	}
	return c.db.tx(ctx, "recording the model call", func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO captures (key, model, request, chunks, response, recorded_at) VALUES (?, ?, ?, ?, ?, ?)`,
			cp.Key, cp.Model, string(cp.Request), string(chunks), string(resp), fmtTime(cp.RecordedAt)); err != nil {
			return err
		}
		if c.turnID == "" {
			return nil
		}
		_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO capture_refs (capture_key, turn_id) VALUES (?, ?)`, cp.Key, c.turnID)
		return err
	})
}

// CaptureRequests implements llm.CaptureLister: the newest captures of a
// model, without their chunks.
func (c *Captures) CaptureRequests(ctx context.Context, model string, limit int) ([]llm.Capture, error) {
	q := `SELECT key, model, request, recorded_at FROM captures`
	var args []any
	if model != "" {
		q += ` WHERE model = ?`
		args = append(args, model)
	}
	q += ` ORDER BY recorded_at DESC`
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	rows, err := c.db.reader.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, readError(err, "listing recorded model calls")
	}
	defer rows.Close()
	var out []llm.Capture
	for rows.Next() {
		var cp llm.Capture
		var req, at string
		if err := rows.Scan(&cp.Key, &cp.Model, &req, &at); err != nil {
			return nil, readError(err, "listing recorded model calls")
		}
		cp.Request, cp.RecordedAt = json.RawMessage(req), parseTime(at)
		out = append(out, cp)
	}
	return out, rows.Err()
}

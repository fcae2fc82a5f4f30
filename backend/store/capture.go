package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/agentdeck/agentdeck/backend/llm/recording"
)

// The recording contract (docs/RECORDINGS.md):
//
//   - A recording is never overwritten: every recorded call is a row of its
//     own, even when another turn sent the same request and got another
//     answer.
//   - turn_calls links each recording to the turn that used it and its
//     call index (from 0, in call order). A replay links the recordings it
//     served to the replaying turn, so a replay of a replay works.
//   - Deleting a session deletes the recordings no remaining turn uses.

// captures implements Captures over the database for one turn: what it
// records or serves becomes that turn's next call.
type captures struct {
	db     *DB
	turnID string // "" = not linked to a turn
}

// Captures returns the capture store of turnID ("" for recordings that
// belong to no turn).
func (db *DB) Captures(turnID string) Captures { return &captures{db: db, turnID: turnID} }

const recordingSelect = `SELECT r.id, r.key, r.model, r.request, r.chunks, r.response, r.recorded_at FROM recordings r`

// GetCapture implements llm.CaptureStore: the newest recording of the
// request. A hit becomes the turn's next call, as a recorded call would.
func (c *captures) GetCapture(ctx context.Context, key string) (*recording.Capture, error) {
	cp, err := c.db.scanRecording(ctx, recordingSelect+` WHERE r.key = ? ORDER BY r.id DESC LIMIT 1`, key)
	if err != nil || cp == nil {
		return cp, err
	}
	if err := c.LinkCapture(ctx, cp); err != nil {
		return nil, err
	}
	return cp, nil
}

// PutCapture implements llm.CaptureStore: it adds a recording, never
// replacing one, and makes it the turn's next call.
func (c *captures) PutCapture(ctx context.Context, cp *recording.Capture) error {
	if cp.Chunks == nil {
		return c.put(ctx, cp, "null", cp.Chunks)
	}
	return c.PutCaptureBlocks(ctx, cp, [][]recording.RecordedChunk{cp.Chunks})
}

// PutCaptureBlocks implements llm.CaptureBlocksPutter: cp with its chunks
// given in blocks, written as one recording's chunks.
func (c *captures) PutCaptureBlocks(ctx context.Context, cp *recording.Capture, blocks [][]recording.RecordedChunk) error {
	col, err := recording.ChunksColumn(blocks...)
	if err != nil {
		return err
	}
	var chunks []recording.RecordedChunk
	for _, b := range blocks {
		chunks = append(chunks, b...)
	}
	return c.put(ctx, cp, col, chunks)
}

// put inserts cp, its chunks already encoded, and links it to the turn.
// chunks are its chunks, whose content its response's message need not
// hold again (recording.ResponseColumn).
func (c *captures) put(ctx context.Context, cp *recording.Capture, col string, chunks []recording.RecordedChunk) error {
	resp, err := recording.ResponseColumn(cp.Response, chunks)
	if err != nil {
		return err
	}
	return c.db.tx(ctx, "recording the model call", func(tx *sql.Tx) error {
		var id int64
		if err := tx.QueryRowContext(ctx, `INSERT INTO recordings (key, model, request, chunks, response, recorded_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
			cp.Key, cp.Model, string(cp.Request), col, resp, fmtTime(cp.RecordedAt)).Scan(&id); err != nil {
			return err
		}
		cp.ID = strconv.FormatInt(id, 10)
		return linkCall(ctx, tx, c.turnID, id)
	})
}

// LinkCapture implements llm.CaptureLinker: an existing recording becomes
// the turn's next call (a replay serving it).
func (c *captures) LinkCapture(ctx context.Context, cp *recording.Capture) error {
	if c.turnID == "" {
		return nil
	}
	id, err := strconv.ParseInt(cp.ID, 10, 64)
	if err != nil {
		return errors.New("the recording has no id")
	}
	return c.db.tx(ctx, "linking a recorded model call to the turn", func(tx *sql.Tx) error {
		return linkCall(ctx, tx, c.turnID, id)
	})
}

// linkCall appends recording id to the turn's calls. A turn's calls are
// made one at a time, so the next index is one past the last.
func linkCall(ctx context.Context, tx *sql.Tx, turnID string, id int64) error {
	if turnID == "" {
		return nil
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO turn_calls (turn_id, idx, recording_id)
		SELECT ?, COALESCE((SELECT MAX(idx) FROM turn_calls WHERE turn_id = ?), -1) + 1, ? WHERE EXISTS (SELECT 1 FROM turns WHERE id = ?)`,
		turnID, turnID, id, turnID)
	return err
}

// CaptureRequests implements llm.CaptureLister: the newest recordings of a
// model, without their chunks.
func (c *captures) CaptureRequests(ctx context.Context, model string, limit int) ([]recording.Capture, error) {
	q := `SELECT id, key, model, request, recorded_at FROM recordings`
	var args []any
	if model != "" {
		q += ` WHERE model = ?`
		args = append(args, model)
	}
	q += ` ORDER BY recorded_at DESC, id DESC`
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	rows, err := c.db.reader.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, readError(err, "listing recorded model calls")
	}
	defer rows.Close()
	var out []recording.Capture
	for rows.Next() {
		var cp recording.Capture
		var id int64
		var req, at string
		if err := rows.Scan(&id, &cp.Key, &cp.Model, &req, &at); err != nil {
			return nil, readError(err, "listing recorded model calls")
		}
		cp.ID, cp.Request, cp.RecordedAt = strconv.FormatInt(id, 10), json.RawMessage(req), parseTime(at)
		out = append(out, cp)
	}
	return out, rows.Err()
}

// TurnRecordings returns a turn's recordings in call order, for replaying
// that turn and nothing else.
func (db *DB) TurnRecordings(turnID string) TurnRecordings {
	return &turnRecordings{db: db, turnID: turnID}
}

// turnRecordings implements TurnRecordings for one turn.
type turnRecordings struct {
	db     *DB
	turnID string
}

// TurnCall implements llm.TurnRecordings: the recording of call i, nil
// when the turn made no call i.
func (t *turnRecordings) TurnCall(ctx context.Context, i int) (*recording.Capture, error) {
	return t.db.scanRecording(ctx, recordingSelect+` JOIN turn_calls tc ON tc.recording_id = r.id WHERE tc.turn_id = ? AND tc.idx = ?`, t.turnID, i)
}

// Count is how many recorded calls the turn has.
func (t *turnRecordings) Count(ctx context.Context) (int, error) {
	var n int
	if err := t.db.reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM turn_calls WHERE turn_id = ?`, t.turnID).Scan(&n); err != nil {
		return 0, readError(err, "counting the turn's recorded model calls")
	}
	return n, nil
}

// scanRecording runs a query for one recording; nil when there is none.
func (db *DB) scanRecording(ctx context.Context, q string, args ...any) (*recording.Capture, error) {
	var cp recording.Capture
	var id int64
	var chunks, resp, recorded, req string
	err := db.reader.QueryRowContext(ctx, q, args...).Scan(&id, &cp.Key, &cp.Model, &req, &chunks, &resp, &recorded)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, readError(err, "loading a recorded model call")
	}
	cp.ID = strconv.FormatInt(id, 10)
	cp.Request = json.RawMessage(req)
	cp.RecordedAt = parseTime(recorded)
	if cp.Chunks, err = recording.DecodeChunks(chunks); err != nil {
		return nil, readError(err, "decoding a recorded model call")
	}
	if cp.Response, err = recording.DecodeResponse(resp, cp.Chunks); err != nil {
		return nil, readError(err, "decoding a recorded model call")
	}
	return &cp, nil
}

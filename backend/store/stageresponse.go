package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
)

// A stage's response by reference. A stage's stage_end event carries its
// result, response included, and FinishTurn then stores the response in
// the stages row: the stage's answer a second time. When the event's
// response is byte for byte the column's, the column holds "=stage_end"
// instead, and the readers (stageResponseExpr, stageResponse) take the
// response from the event. Events are never rewritten, so it reads as
// it was stored.

// stageResponseRef is the stages.response of a stage stored by reference.
const stageResponseRef = `=stage_end`

// stageResponseExpr selects the response column of stages s, a reference
// resolved to "=" and the stage's last stage_end data (stageResponse
// takes the response out of it).
const stageResponseExpr = `CASE s.response WHEN '` + stageResponseRef + `' THEN '=' || COALESCE((SELECT e.data FROM events e
	WHERE e.turn_id = s.turn_id AND e.stage_id = s.id AND e.type = 'stage_end' ORDER BY e.seq DESC LIMIT 1), '') ELSE s.response END`

// stageEndResponse is the response in a stage_end event's data, as it is
// written there; nil when it has none.
func stageEndResponse(data string) json.RawMessage {
	var d struct {
		Response json.RawMessage `json:"response"`
	}
	if json.Unmarshal([]byte(data), &d) != nil {
		return nil
	}
	return d.Response
}

// stageResponse is a stages.response as selected by stageResponseExpr,
// with a reference resolved ("null" when its event is gone).
func stageResponse(col string) string {
	data, ok := strings.CutPrefix(col, "=")
	if !ok {
		return col
	}
	if resp := stageEndResponse(data); resp != nil {
		return string(resp)
	}
	return "null"
}

// stageResponseColumn is what the stages row of stageID stores for resp:
// the reference when the stage's stored stage_end carries the same bytes.
func stageResponseColumn(ctx context.Context, tx *sql.Tx, turnID, stageID string, resp []byte) (string, error) {
	if string(resp) == "null" {
		return "null", nil
	}
	var data string
	err := tx.QueryRowContext(ctx, `SELECT data FROM events WHERE turn_id = ? AND stage_id = ? AND type = 'stage_end' ORDER BY seq DESC LIMIT 1`, turnID, stageID).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return string(resp), nil
	}
	if err != nil {
		return "", err
	}
	if bytes.Equal(stageEndResponse(data), resp) {
		return stageResponseRef, nil
	}
	return string(resp), nil
}

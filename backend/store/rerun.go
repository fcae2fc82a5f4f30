package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// What a replay needs of the turn it replays, besides its recordings: how
// the turn was run, and what each of its tool calls returned.

// SetTurnRun stores how a turn is run (the runner's JSON: its limits and
// resolved workflow), so that a replay runs it the same way.
func (db *DB) SetTurnRun(ctx context.Context, turnID string, run json.RawMessage) error {
	return db.tx(ctx, "saving how the turn runs", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE turns SET run = ? WHERE id = ?`, string(run), turnID)
		return err
	})
}

// TurnRun returns what SetTurnRun stored, `{}` for a turn stored before
// turns kept it.
func (db *DB) TurnRun(ctx context.Context, turnID string) (json.RawMessage, error) {
	var run string
	err := db.reader.QueryRowContext(ctx, `SELECT run FROM turns WHERE id = ?`, turnID).Scan(&run)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.New(apperr.NotFound, "There is no turn %s.", turnID)
	}
	if err != nil {
		return nil, readError(err, "loading how the turn ran")
	}
	return json.RawMessage(run), nil
}

// ToolResult is what one tool call of a turn returned, in call order.
type ToolResult struct {
	CallID string          `json:"call_id"`
	Name   string          `json:"name"`
	Args   json.RawMessage `json:"args"`
	// Ran is false when the tool never ran (invalid arguments, refused by
	// a guard or the user, a limit): its Error says why.
	Ran    bool   `json:"ran"`
	Output string `json:"output,omitempty"`
	Error  string `json:"error,omitempty"`
}

// ToolResults returns a turn's tool calls with what each returned, from
// its event log, in the order the model made them.
func (db *DB) ToolResults(ctx context.Context, turnID string) ([]ToolResult, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT id, parent_id, type, data FROM events
		WHERE turn_id = ? AND type IN ('tool_call', 'tool_result', 'tool_error') ORDER BY seq`, turnID)
	if err != nil {
		return nil, readError(err, "loading the turn's tool results")
	}
	defer rows.Close()
	var out []ToolResult
	byEvent := map[string]int{} // tool_call event id -> index in out
	for rows.Next() {
		var id, parent, typ, data string
		if err := rows.Scan(&id, &parent, &typ, &data); err != nil {
			return nil, readError(err, "loading the turn's tool results")
		}
		switch turn.EventType(typ) {
		case turn.EventToolCall:
			var d turn.ToolCallData
			_ = json.Unmarshal([]byte(data), &d)
			byEvent[id] = len(out)
			out = append(out, ToolResult{CallID: d.CallID, Name: d.Name, Args: d.Args})
		case turn.EventToolResult:
			if i, ok := byEvent[parent]; ok {
				var d turn.ToolResultData
				_ = json.Unmarshal([]byte(data), &d)
				out[i].Ran, out[i].Output = true, d.Output
			}
		case turn.EventToolError:
			if i, ok := byEvent[parent]; ok {
				var d turn.ToolErrorData
				_ = json.Unmarshal([]byte(data), &d)
				out[i].Ran, out[i].Error = !d.NotRun && !refusedText(d.Error), d.Error
			}
		}
	}
	return out, rows.Err()
}

// refusedText recognizes a call that never ran in a turn stored before
// tool errors said so (not_run): refusals start with "not run:".
func refusedText(s string) bool {
	return len(s) >= 8 && s[:8] == "not run:"
}

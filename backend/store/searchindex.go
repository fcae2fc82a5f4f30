package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// indexMessages makes msgs and the turn's stored artifact and code_run
// events the turn's search entries: each message's text, each tool call's
// name and arguments, each artifact's title and content (HitArtifact) and
// each code run's code and what it printed, returned or failed with
// (HitCodeRun). A tool call an artifact or a code run came from is found
// by that entry, which says what it was, rather than again by its
// arguments and result. The turn's events must be stored first (the
// runner flushes them before FinishTurn; an import stores them before the
// messages).
func indexMessages(ctx context.Context, tx *sql.Tx, sessionID, turnID string, msgs []llm.Message) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM search WHERE turn_id = ?`, turnID); err != nil {
		return err
	}
	entries, covered, err := eventEntries(ctx, tx, turnID)
	if err != nil {
		return err
	}
	ftsStmt, err := tx.PrepareContext(ctx, `INSERT INTO search (text, kind, session_id, turn_id) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer ftsStmt.Close()
	add := func(text, kind string) error {
		_, err := ftsStmt.ExecContext(ctx, text, kind, sessionID, turnID)
		return err
	}
	for _, m := range msgs {
		kind := HitMessage
		if m.Role == llm.RoleTool {
			kind = HitToolResult
		}
		if m.Content != "" && !(kind == HitToolResult && covered[m.ToolCallID]) {
			if err := add(m.Content, kind); err != nil {
				return err
			}
		}
		for _, tc := range m.ToolCalls {
			if covered[tc.ID] {
				continue
			}
			if err := add(tc.Name+" "+tc.Arguments, HitToolCall); err != nil {
				return err
			}
		}
	}
	for _, e := range entries {
		if err := add(e.text, e.kind); err != nil {
			return err
		}
	}
	return nil
}

type searchEntry struct{ text, kind string }

// eventEntries are the search entries of a turn's artifacts and code
// runs, and the tool calls they came from.
func eventEntries(ctx context.Context, tx *sql.Tx, turnID string) ([]searchEntry, map[string]bool, error) {
	rows, err := tx.QueryContext(ctx, `SELECT type, data FROM events WHERE turn_id = ? AND type IN (?, ?) ORDER BY seq`,
		turnID, string(turn.EventArtifact), string(turn.EventCodeRun))
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var out []searchEntry
	covered := map[string]bool{}
	for rows.Next() {
		var typ, data string
		if err := rows.Scan(&typ, &data); err != nil {
			return nil, nil, err
		}
		switch turn.EventType(typ) {
		case turn.EventArtifact:
			var a turn.ArtifactData
			if json.Unmarshal([]byte(data), &a) != nil {
				continue
			}
			out = append(out, searchEntry{a.Title + "\n" + a.Content, HitArtifact})
			if a.CallID != "" {
				covered[a.CallID] = true
			}
		case turn.EventCodeRun:
			var c turn.CodeRunData
			if json.Unmarshal([]byte(data), &c) != nil {
				continue
			}
			parts := []string{c.Code, c.Output, c.Value}
			if c.Error != nil {
				parts = append(parts, c.Error.Message)
			}
			out = append(out, searchEntry{strings.Join(nonEmpty(parts), "\n"), HitCodeRun})
			if c.CallID != "" {
				covered[c.CallID] = true
			}
		}
	}
	return out, covered, rows.Err()
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

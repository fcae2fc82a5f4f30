package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/llm"
)

// RecoverInterrupted marks as interrupted every running turn whose owner
// process is gone, keeping its events and its partial answer (the text
// streamed since the last model call started). Turns of live processes (a
// CLI run beside the app) are left alone. It returns how many turns it
// recovered.
func (db *DB) RecoverInterrupted(ctx context.Context) (int, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT id, session_id, user_message, owner_pid, owner_start FROM turns WHERE state = 'running'`)
	if err != nil {
		return 0, readError(err, "checking for interrupted turns")
	}
	type orphan struct{ id, session, user string }
	var orphans []orphan
	for rows.Next() {
		var o orphan
		var owner Owner
		if err := rows.Scan(&o.id, &o.session, &o.user, &owner.PID, &owner.Start); err != nil {
			rows.Close()
			return 0, readError(err, "checking for interrupted turns")
		}
		if owner == db.owner || owner.alive() {
			continue
		}
		orphans = append(orphans, o)
	}
	rows.Close()
	for _, o := range orphans {
		partial, err := db.partialText(ctx, o.id)
		if err != nil {
			return 0, err
		}
		if err := db.markInterrupted(ctx, o.id, o.session, o.user, partial); err != nil {
			return 0, err
		}
	}
	return len(orphans), nil
}

// partialText joins the tokens streamed after the turn's last think_start.
func (db *DB) partialText(ctx context.Context, turnID string) (string, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT data FROM events WHERE turn_id = ? AND type = 'token'
		AND seq > COALESCE((SELECT MAX(seq) FROM events WHERE turn_id = ? AND type = 'think_start'), 0) ORDER BY seq`, turnID, turnID)
	if err != nil {
		return "", readError(err, "reading an interrupted turn")
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var data string
		if err := rows.Scan(&data); err != nil {
			return "", readError(err, "reading an interrupted turn")
		}
		var t agent.TokenData
		_ = json.Unmarshal([]byte(data), &t)
		b.WriteString(t.Text)
	}
	return b.String(), rows.Err()
}

func (db *DB) markInterrupted(ctx context.Context, turnID, sessionID, user, partial string) error {
	term, _ := json.Marshal(agent.Termination{Kind: agent.TermInterrupted})
	res := agent.Result{FinalText: partial, Outcome: agent.OutcomeFailed, Termination: agent.Termination{Kind: agent.TermInterrupted},
		Error: "Agentdeck stopped while this turn was running. The answer so far is kept."}
	resultJSON, _ := json.Marshal(agent.TurnCompletedData{Result: res})
	msgs := []llm.Message{{Role: llm.RoleUser, Content: user}}
	if partial != "" {
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: partial})
	}
	return db.tx(ctx, "recovering an interrupted turn", func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `UPDATE turns SET state = 'interrupted', completed_at = ?, final_text = ?, outcome = 'failed', termination = ?, result = ?
			WHERE id = ? AND state = 'running'`, fmtTime(time.Now()), partial, string(term), string(resultJSON), turnID)
		if err != nil {
			return err
		}
		if n, _ := r.RowsAffected(); n == 0 {
			return nil // another process got there first
		}
		return insertMessages(ctx, tx, sessionID, turnID, 0, msgs)
	})
}

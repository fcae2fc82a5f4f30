package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// A turn is stored as running by the process that runs it (its owner, see
// Owner). If that process dies (kill -9, a crash, a power cut) the row
// stays "running" with nobody to end it: an orphan. Whoever notices marks
// it interrupted, keeping its events and the answer streamed so far:
// every command that opens the database, a running window or serve (a
// watcher, and at once when a person sends into or stops the session),
// and StartTurn itself. A turn whose owner still lives is never touched,
// whatever process looks at it. Read-only inspection (OpenReadOnly, db
// check) only lists orphans.

// Orphan is a turn stored as running whose owner process is gone.
type Orphan struct {
	TurnID    string `json:"turn_id"`
	SessionID string `json:"session_id"`
	// OwnerPID is the process that ran it.
	OwnerPID int `json:"owner_pid"`
}

// Orphans lists the running turns whose owner process is gone, changing
// nothing: what `db check` reports.
func (db *DB) Orphans(ctx context.Context) ([]Orphan, error) {
	return db.findOrphans(ctx, "")
}

// RecoverOrphans marks as interrupted every running turn whose owner is
// gone (of one session, or of all when sessionID is empty), keeping its
// events and its partial answer. It returns the turns this call marked; a
// turn another process marked first is not among them. A file this
// process found damaged is left alone: nothing is looked up or written,
// and the turns stay running until the file is salvaged (StartTurn with
// Force still recovers its own session's).
func (db *DB) RecoverOrphans(ctx context.Context, sessionID string) ([]Orphan, error) {
	if met, _ := db.Damaged(); met {
		return nil, nil
	}
	// The look-up is a read; the write lock is only taken when there is
	// something to recover, so a watcher that finds nothing costs no lock.
	found, err := db.findOrphans(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	var done []Orphan
	for _, o := range found {
		ok := false
		err := db.tx(ctx, "recovering an interrupted turn", func(tx *sql.Tx) (err error) {
			ok, err = db.recoverTx(ctx, tx, o.TurnID)
			return err
		})
		if err != nil {
			return done, err
		}
		if ok {
			db.forgetEndings(o.TurnID)
			done = append(done, o)
		}
	}
	return done, nil
}

// RecoverInterrupted is RecoverOrphans over every session, returning how
// many turns it marked.
func (db *DB) RecoverInterrupted(ctx context.Context) (int, error) {
	done, err := db.RecoverOrphans(ctx, "")
	return len(done), err
}

// Ownership says who runs a turn.
type Ownership struct {
	SessionID string
	State     TurnState
	Owner     Owner
	// Mine: this process runs it. Gone: it is running and its owner
	// process is gone (an orphan).
	Mine, Gone bool
}

// TurnOwnership reports a turn's state and, while it runs, its owner.
func (db *DB) TurnOwnership(ctx context.Context, turnID string) (Ownership, error) {
	var o Ownership
	err := db.reader.QueryRowContext(ctx, `SELECT session_id, state, owner_pid, owner_start FROM turns WHERE id = ?`, turnID).
		Scan(&o.SessionID, &o.State, &o.Owner.PID, &o.Owner.Start)
	if errors.Is(err, sql.ErrNoRows) {
		return o, apperr.New(apperr.NotFound, "There is no turn %s.", turnID)
	}
	if err != nil {
		return o, readError(err, "reading the turn")
	}
	if o.State == StateRunning {
		o.Mine = o.Owner == db.owner
		o.Gone = !o.Mine && !o.Owner.Alive()
	}
	return o, nil
}

// RecoverTurn marks one turn interrupted if it is still running and its
// owner is gone, and reports whether it did.
func (db *DB) RecoverTurn(ctx context.Context, turnID string) (bool, error) {
	if met, reason := db.Damaged(); met {
		return false, apperr.Wrap(db.dmg.asError(nil, "marking the turn interrupted"), apperr.Damaged,
			"The turn was not marked interrupted: the database %s is damaged (%s), and Agentdeck does not write into it. %s",
			db.path, reason, DamageAdvice(db.path))
	}
	ok := false
	err := db.tx(ctx, "recovering an interrupted turn", func(tx *sql.Tx) (err error) {
		ok, err = db.recoverTx(ctx, tx, turnID)
		return err
	})
	if ok && err == nil {
		db.forgetEndings(turnID)
	}
	return ok, err
}

// claimSession refuses a session with a live running turn and recovers
// the running turns whose process is gone, adding their ids to recovered.
func (db *DB) claimSession(ctx context.Context, tx *sql.Tx, sessionID, group string, recovered *[]string) error {
	type running struct {
		id, group string
		owner     Owner
	}
	all, err := appendRows(ctx, tx, []running(nil), scanInto(func(r *running) []any { return []any{&r.id, &r.group, &r.owner.PID, &r.owner.Start} }),
		`SELECT id, COALESCE(group_id, ''), owner_pid, owner_start FROM turns WHERE session_id = ? AND state = 'running'`, sessionID)
	if err != nil {
		return err
	}
	for _, r := range all {
		switch {
		case group != "" && r.group == group && r.owner == db.owner:
			continue // a column of the same group, started with it
		case r.owner == db.owner:
			return apperr.New(apperr.Conflict, "A turn is already running in this session. Stop it or wait for it to finish.")
		case r.owner.Alive():
			return apperr.New(apperr.Conflict, "A turn is already running in this session in another Agentdeck process (pid %d). Stop it there, or wait for it to finish.", r.owner.PID)
		}
		ok, err := db.recoverTx(ctx, tx, r.id)
		if err != nil {
			return err
		}
		if ok {
			*recovered = append(*recovered, r.id)
		}
	}
	return nil
}

// findOrphans lists running turns (of one session, or all) whose owner is
// neither this process nor alive.
func (db *DB) findOrphans(ctx context.Context, sessionID string) ([]Orphan, error) {
	q := `SELECT id, session_id, owner_pid, owner_start FROM turns WHERE state = 'running'`
	args := []any{}
	if sessionID != "" {
		q += ` AND session_id = ?`
		args = append(args, sessionID)
	}
	type running struct {
		o     Orphan
		owner Owner
	}
	all, err := appendRows(ctx, db.reader, []running(nil), scanInto(func(r *running) []any { return []any{&r.o.TurnID, &r.o.SessionID, &r.owner.PID, &r.owner.Start} }),
		q+` ORDER BY started_at`, args...)
	if err != nil {
		return nil, readError(err, "checking for interrupted turns")
	}
	var out []Orphan
	for _, r := range all {
		if r.owner == db.owner || r.owner.Alive() {
			continue
		}
		r.o.OwnerPID = r.owner.PID
		out = append(out, r.o)
	}
	return out, nil
}

// recoverTx marks a turn interrupted inside tx if it is still running and
// its owner is gone, and reports whether it did. Everything is read in the
// transaction, so two processes that find the same orphan mark it once.
func (db *DB) recoverTx(ctx context.Context, tx *sql.Tx, turnID string) (bool, error) {
	var sessionID, user string
	var state TurnState
	var owner Owner
	err := tx.QueryRowContext(ctx, `SELECT session_id, user_message, state, owner_pid, owner_start FROM turns WHERE id = ?`, turnID).
		Scan(&sessionID, &user, &state, &owner.PID, &owner.Start)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil // deleted meanwhile
	}
	if err != nil {
		return false, err
	}
	if state != StateRunning || owner == db.owner || owner.Alive() {
		return false, nil
	}
	partial, err := partialText(ctx, tx, turnID)
	if err != nil {
		return false, err
	}
	state = StateInterrupted
	res := turn.Result{FinalText: partial, Outcome: turn.OutcomeFailed, Termination: turn.Termination{Kind: turn.TermInterrupted},
		Error: "Agentdeck stopped while this turn was running. The answer so far is kept."}
	if note, ok := db.endingNoteOf(turnID); ok {
		// Its process stopped it (a full disk) and could not store the
		// ending: it ends as it said, not as interrupted.
		state = StateFailed
		res.Termination, res.Error, res.ErrorSource = note.Termination, note.Error, note.ErrorSource
	}
	term, _ := json.Marshal(res.Termination)
	resultJSON, _ := json.Marshal(turn.TurnCompletedData{Result: res})
	if _, err := tx.ExecContext(ctx, `UPDATE turns SET state = ?, completed_at = ?, final_text = ?, outcome = 'failed', termination = ?, result = ?
		WHERE id = ?`, state, fmtTime(time.Now()), partial, string(term), string(resultJSON), turnID); err != nil {
		return false, err
	}
	images, err := turnImages(ctx, tx, turnID)
	if err != nil {
		return false, err
	}
	msgs := []llm.Message{{Role: llm.RoleUser, Content: user, Images: images}}
	if partial != "" {
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: partial})
	}
	return true, insertMessages(ctx, tx, sessionID, turnID, 0, msgs, true)
}

// partialText joins the tokens streamed after the turn's last think_start:
// the answer of the model call that was under way.
func partialText(ctx context.Context, tx *sql.Tx, turnID string) (string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT `+eventRowColumns+` FROM events WHERE turn_id = ? AND type = 'token'
		AND seq > COALESCE((SELECT MAX(seq) FROM events WHERE turn_id = ? AND type = 'think_start'), 0) ORDER BY seq`, turnID, turnID)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var b strings.Builder
	var events []turn.Event
	for rows.Next() {
		var r eventRow
		if err := r.scan(rows); err != nil {
			return "", err
		}
		if events, err = r.expand("", turnID, 0, events[:0]); err != nil {
			return "", err
		}
		for _, e := range events {
			var t turn.TokenData
			_ = json.Unmarshal(e.Data, &t)
			b.WriteString(t.Text)
		}
	}
	return b.String(), rows.Err()
}

package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"
	"unicode"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/catalog"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Settings are the installation's preferences: a key and a JSON value.
// They are never secrets (API keys live in the secret store).

const (
	maxSettingKey   = 128
	maxSettingValue = 1 << 20
)

// getSetting decodes the value stored under key into dst (a pointer; use
// *json.RawMessage for the raw JSON). found is false, and dst untouched,
// when the key was never set.
func (db *DB) getSetting(ctx context.Context, key string, dst any) (found bool, err error) {
	var raw string
	err = db.reader.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, readError(err, "loading the setting "+key)
	}
	if err := json.Unmarshal([]byte(raw), dst); err != nil {
		return true, apperr.Wrap(err, apperr.Internal, "The setting %q holds a value of another shape than expected; set it again.", key)
	}
	return true, nil
}

// setSetting stores value, encoded as JSON, under key. A json.RawMessage
// is stored as it is, if it is valid JSON.
func (db *DB) setSetting(ctx context.Context, key string, value any) error {
	if err := checkSettingKey(key); err != nil {
		return err
	}
	b, err := json.Marshal(value)
	if err != nil {
		return apperr.Wrap(err, apperr.Invalid, "The value of the setting %q is not valid JSON.", key)
	}
	if len(b) > maxSettingValue {
		return apperr.New(apperr.Invalid, "The value of the setting %q is too large (%d bytes; the limit is %d).", key, len(b), maxSettingValue)
	}
	return db.tx(ctx, "saving the setting "+key, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, string(b))
		return err
	})
}

func checkSettingKey(key string) error {
	if strings.TrimSpace(key) == "" || len(key) > maxSettingKey || strings.IndexFunc(key, unicode.IsControl) >= 0 {
		return apperr.New(apperr.Invalid, "A setting needs a name of 1 to %d printable characters.", maxSettingKey)
	}
	return nil
}

// SaveProvider stores p, replacing the provider of the same name. It is
// checked with llm.Provider.Validate first, which refuses anything that
// looks like a secret: an API key pasted as the key reference, or a base
// URL with a password or a query.
func (db *DB) SaveProvider(ctx context.Context, p llm.Provider) error {
	if err := catalog.Validate(p); err != nil {
		return err
	}
	def, err := json.Marshal(p)
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not encode the provider %s", p.Name)
	}
	return db.tx(ctx, "saving the provider "+p.Name, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO providers (name, definition) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET definition = excluded.definition`, p.Name, string(def)); err != nil {
			return err
		}
		// Its address or kind may have changed: what its server said is
		// asked again.
		_, err := tx.ExecContext(ctx, `DELETE FROM model_info WHERE provider = ?`, p.Name)
		return err
	})
}

// ListProviders returns every stored provider by name.
func (db *DB) ListProviders(ctx context.Context) ([]llm.Provider, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT name, definition FROM providers ORDER BY name`)
	if err != nil {
		return nil, readError(err, "loading the providers")
	}
	defer rows.Close()
	var out []llm.Provider
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			return nil, readError(err, "loading the providers")
		}
		p, err := decodeProvider(name, def)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, readError(err, "loading the providers")
	}
	return out, nil
}

// DeleteProvider removes the provider called name. The key it refers to
// stays in the secret store; removing it is the caller's decision.
func (db *DB) DeleteProvider(ctx context.Context, name string) error {
	return db.tx(ctx, "deleting the provider "+name, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM providers WHERE name = ?`, name)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return apperr.New(apperr.NotFound, "There is no provider %q.", name)
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM model_info WHERE provider = ?`, name)
		return err
	})
}

func decodeProvider(name, def string) (llm.Provider, error) {
	var p llm.Provider
	if err := json.Unmarshal([]byte(def), &p); err != nil {
		return p, apperr.Wrap(err, apperr.Internal, "The stored provider %q is damaged; delete it and add it again.", name)
	}
	return p, nil
}

// Approval is a person's answer to a guard's question about a tool call.
type Approval struct {
	ID int64 `json:"id"`
	// SessionID may be left empty: it is taken from the turn.
	SessionID string          `json:"session_id"`
	TurnID    string          `json:"turn_id"`
	CallID    string          `json:"call_id"`
	Tool      string          `json:"tool"`
	Args      json.RawMessage `json:"args"`
	Guard     string          `json:"guard"`
	Answer    turn.Answer     `json:"answer"`
	At        time.Time       `json:"at"`
}

// RecordApproval stores an answer; it returns a with ID, SessionID and At
// filled in.
func (db *DB) RecordApproval(ctx context.Context, a Approval) (Approval, error) {
	switch a.Answer {
	case turn.AllowOnce, turn.Always, turn.Deny:
	default:
		return a, apperr.New(apperr.Invalid, "The answer %q is not one of allow_once, always or deny.", a.Answer)
	}
	if a.TurnID == "" || a.Tool == "" {
		return a, apperr.New(apperr.Invalid, "An approval needs its turn and tool.")
	}
	if len(a.Args) == 0 {
		a.Args = json.RawMessage(`{}`)
	}
	if !json.Valid(a.Args) {
		return a, apperr.New(apperr.Invalid, "The arguments of the approved %s call are not valid JSON.", a.Tool)
	}
	if a.At.IsZero() {
		a.At = time.Now().UTC()
	}
	err := db.tx(ctx, "saving the approval", func(tx *sql.Tx) error {
		var session string
		err := tx.QueryRowContext(ctx, `SELECT session_id FROM turns WHERE id = ?`, a.TurnID).Scan(&session)
		if errors.Is(err, sql.ErrNoRows) {
			return apperr.New(apperr.NotFound, "There is no turn %s.", a.TurnID)
		}
		if err != nil {
			return err
		}
		if a.SessionID != "" && a.SessionID != session {
			return apperr.New(apperr.Invalid, "The turn %s belongs to another session than %s.", a.TurnID, a.SessionID)
		}
		a.SessionID = session
		return tx.QueryRowContext(ctx, `INSERT INTO approvals (session_id, turn_id, call_id, tool, args, guard, answer, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			a.SessionID, a.TurnID, a.CallID, a.Tool, string(a.Args), a.Guard, string(a.Answer), fmtTime(a.At)).Scan(&a.ID)
	})
	return a, err
}

// ListApprovals returns a turn's approvals in the order they were given.
func (db *DB) ListApprovals(ctx context.Context, turnID string) ([]Approval, error) {
	out, err := appendRows(ctx, db.reader, []Approval(nil), func(r scanner) (a Approval, err error) {
		var args, at string
		err = r.Scan(&a.ID, &a.SessionID, &a.TurnID, &a.CallID, &a.Tool, &args, &a.Guard, &a.Answer, &at)
		a.Args, a.At = json.RawMessage(args), parseTime(at)
		return a, err
	}, `SELECT id, session_id, turn_id, call_id, tool, args, guard, answer, at FROM approvals
		WHERE turn_id = ? ORDER BY id`, turnID)
	if err != nil {
		return nil, readError(err, "loading the approvals")
	}
	return out, nil
}

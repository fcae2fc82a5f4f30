package store

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"path/filepath"
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

// GetSetting decodes the value stored under key into dst (a pointer; use
// *json.RawMessage for the raw JSON). found is false, and dst untouched,
// when the key was never set.
func (db *DB) GetSetting(ctx context.Context, key string, dst any) (found bool, err error) {
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

// SetSetting stores value, encoded as JSON, under key. A json.RawMessage
// is stored as it is, if it is valid JSON.
func (db *DB) SetSetting(ctx context.Context, key string, value any) error {
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

// DeleteSetting removes key, so it falls back to its default. Deleting a
// key that is not set is not an error.
func (db *DB) DeleteSetting(ctx context.Context, key string) error {
	return db.tx(ctx, "resetting the setting "+key, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM settings WHERE key = ?`, key)
		return err
	})
}

// AllSettings returns every stored setting by key.
func (db *DB) AllSettings(ctx context.Context) (map[string]json.RawMessage, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT key, value FROM settings`)
	if err != nil {
		return nil, readError(err, "loading the settings")
	}
	defer rows.Close()
	out := map[string]json.RawMessage{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, readError(err, "loading the settings")
		}
		out[k] = json.RawMessage(v)
	}
	if err := rows.Err(); err != nil {
		return nil, readError(err, "loading the settings")
	}
	return out, nil
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

// GetProvider returns the provider called name.
func (db *DB) GetProvider(ctx context.Context, name string) (llm.Provider, error) {
	var def string
	err := db.reader.QueryRowContext(ctx, `SELECT definition FROM providers WHERE name = ?`, name).Scan(&def)
	if errors.Is(err, sql.ErrNoRows) {
		return llm.Provider{}, apperr.New(apperr.NotFound, "There is no provider %q.", name)
	}
	if err != nil {
		return llm.Provider{}, readError(err, "loading the provider "+name)
	}
	return decodeProvider(name, def)
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

// Attachment is a file attached to a session. Path is Agentdeck's own copy
// of the file: DeleteSession removes it.
type Attachment struct {
	ID        string `json:"id"`
	SessionID string `json:"session_id"`
	// Name is the file name the person attached.
	Name   string `json:"name"`
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	// TableName is the table the file was imported as, if it was.
	TableName string    `json:"table_name"`
	CreatedAt time.Time `json:"created_at"`
}

// AddAttachment records an attachment; ID and CreatedAt get defaults.
func (db *DB) AddAttachment(ctx context.Context, a Attachment) (Attachment, error) {
	if err := checkAttachment(a); err != nil {
		return a, err
	}
	if a.ID == "" {
		a.ID = turn.NewID()
	}
	if a.CreatedAt.IsZero() {
		a.CreatedAt = time.Now().UTC()
	}
	err := db.tx(ctx, "saving the attachment "+a.Name, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO attachments (id, session_id, name, path, size, sha256, table_name, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			a.ID, a.SessionID, a.Name, a.Path, a.Size, a.SHA256, a.TableName, fmtTime(a.CreatedAt))
		switch {
		case isForeignKey(err):
			return apperr.New(apperr.NotFound, "There is no session %s.", a.SessionID)
		case err != nil && strings.Contains(err.Error(), "UNIQUE"):
			return apperr.New(apperr.Conflict, "There is already an attachment %s.", a.ID)
		}
		return err
	})
	return a, err
}

// ListAttachments returns a session's attachments, oldest first.
func (db *DB) ListAttachments(ctx context.Context, sessionID string) ([]Attachment, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT id, session_id, name, path, size, sha256, table_name, created_at FROM attachments
		WHERE session_id = ? ORDER BY created_at, id`, sessionID)
	if err != nil {
		return nil, readError(err, "loading the attachments")
	}
	defer rows.Close()
	var out []Attachment
	for rows.Next() {
		var a Attachment
		var at string
		if err := rows.Scan(&a.ID, &a.SessionID, &a.Name, &a.Path, &a.Size, &a.SHA256, &a.TableName, &at); err != nil {
			return nil, readError(err, "loading the attachments")
		}
		a.CreatedAt = parseTime(at)
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, readError(err, "loading the attachments")
	}
	return out, nil
}

func checkAttachment(a Attachment) error {
	switch {
	case a.SessionID == "":
		return apperr.New(apperr.Invalid, "An attachment needs a session.")
	case strings.TrimSpace(a.Name) == "":
		return apperr.New(apperr.Invalid, "An attachment needs a file name.")
	case a.Path != "" && !filepath.IsAbs(a.Path):
		// DeleteSession removes Path: a relative path would depend on
		// the working directory of whoever deletes.
		return apperr.New(apperr.Invalid, "The attachment %s must be stored at an absolute path.", a.Name)
	case a.Size < 0:
		return apperr.New(apperr.Invalid, "The attachment %s has a negative size.", a.Name)
	case a.SHA256 != "" && !isSHA256(a.SHA256):
		return apperr.New(apperr.Invalid, "The checksum of the attachment %s is not a SHA-256 in lowercase hex.", a.Name)
	}
	return nil
}

func isSHA256(s string) bool {
	_, err := hex.DecodeString(s)
	return err == nil && len(s) == 64 && s == strings.ToLower(s)
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
	rows, err := db.reader.QueryContext(ctx, `SELECT id, session_id, turn_id, call_id, tool, args, guard, answer, at FROM approvals
		WHERE turn_id = ? ORDER BY id`, turnID)
	if err != nil {
		return nil, readError(err, "loading the approvals")
	}
	defer rows.Close()
	var out []Approval
	for rows.Next() {
		var a Approval
		var args, at string
		if err := rows.Scan(&a.ID, &a.SessionID, &a.TurnID, &a.CallID, &a.Tool, &args, &a.Guard, &a.Answer, &at); err != nil {
			return nil, readError(err, "loading the approvals")
		}
		a.Args, a.At = json.RawMessage(args), parseTime(at)
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, readError(err, "loading the approvals")
	}
	return out, nil
}

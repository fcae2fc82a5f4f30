package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/store/promptvars"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// The prompt library: saved prompts with {{variables}} (package
// promptvars), global (ProjectID "") or a project's, deleted with it. A
// name is unique in its scope, ignoring case: a project's prompt may
// share a global prompt's name, and lists beside it.

// Prompt is one saved prompt.
type Prompt struct {
	ID string `json:"id"`
	// ProjectID is the project the prompt belongs to, "" for a global one.
	ProjectID   string    `json:"project_id"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Body        string    `json:"body"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	// Variables are the body's {{variables}}, in order (read from Body,
	// not stored).
	Variables []string `json:"variables"`
}

// AllPrompts, given to ListPrompts as the project, lists every prompt.
const AllPrompts = "*"

// MaxPromptBody is the longest prompt body, in bytes.
const MaxPromptBody = 256 << 10

// maxPromptDescription is the longest description, in characters.
const maxPromptDescription = 500

// ListPrompts lists prompts by name: the global ones and projectID's
// (only the global ones for "", every prompt for AllPrompts).
func (db *DB) ListPrompts(ctx context.Context, projectID string) ([]Prompt, error) {
	q, args := promptSelect+` WHERE project_id IS NULL`, []any{}
	switch projectID {
	case AllPrompts:
		q = promptSelect
	case "":
	default:
		q += ` OR project_id = ?`
		args = append(args, projectID)
	}
	ps, err := appendRows(ctx, db.reader, []Prompt{}, scanPrompt, q+` ORDER BY name COLLATE NOCASE, project_id IS NOT NULL, id`, args...)
	if err != nil {
		return nil, readError(err, "listing prompts")
	}
	return ps, nil
}

// GetPrompt returns one prompt by id.
func (db *DB) GetPrompt(ctx context.Context, id string) (Prompt, error) {
	p, err := scanPrompt(db.reader.QueryRowContext(ctx, promptSelect+` WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Prompt{}, noPrompt(id)
	}
	if err != nil {
		return Prompt{}, readError(err, "loading the prompt")
	}
	return p, nil
}

// SavePrompt stores a new prompt (ID "") or changes one, its scope too. A
// name another prompt of the same scope has, ignoring case, is a
// Conflict that names it.
func (db *DB) SavePrompt(ctx context.Context, p Prompt) (Prompt, error) {
	p, err := cleanPrompt(p)
	if err != nil {
		return Prompt{}, err
	}
	now := time.Now().UTC()
	err = db.tx(ctx, "saving the prompt", func(tx *sql.Tx) error {
		if err := checkProject(ctx, tx, p.ProjectID); err != nil {
			return err
		}
		if p.ID == "" {
			p.ID, p.CreatedAt = turn.NewID(), now
			_, err := tx.ExecContext(ctx, `INSERT INTO prompts (id, project_id, name, description, body, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
				p.ID, nullable(p.ProjectID), p.Name, p.Description, p.Body, fmtTime(now), fmtTime(now))
			return promptNameTaken(err, p)
		}
		var created string
		if err := tx.QueryRowContext(ctx, `SELECT created_at FROM prompts WHERE id = ?`, p.ID).Scan(&created); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return noPrompt(p.ID)
			}
			return err
		}
		p.CreatedAt = parseTime(created)
		_, err := tx.ExecContext(ctx, `UPDATE prompts SET project_id = ?, name = ?, description = ?, body = ?, updated_at = ? WHERE id = ?`,
			nullable(p.ProjectID), p.Name, p.Description, p.Body, fmtTime(now), p.ID)
		return promptNameTaken(err, p)
	})
	if err != nil {
		return Prompt{}, err
	}
	p.UpdatedAt, p.Variables = now, promptvars.Variables(p.Body)
	return p, nil
}

// DeletePrompt deletes one prompt.
func (db *DB) DeletePrompt(ctx context.Context, id string) error {
	return db.tx(ctx, "deleting the prompt", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM prompts WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return noPrompt(id)
		}
		return nil
	})
}

const promptSelect = `SELECT id, COALESCE(project_id, ''), name, description, body, created_at, updated_at FROM prompts`

func scanPrompt(r scanner) (Prompt, error) {
	var p Prompt
	var created, updated string
	err := r.Scan(&p.ID, &p.ProjectID, &p.Name, &p.Description, &p.Body, &created, &updated)
	p.CreatedAt, p.UpdatedAt, p.Variables = parseTime(created), parseTime(updated), promptvars.Variables(p.Body)
	return p, err
}

// cleanPrompt trims what a person typed around a prompt's name and
// description, and checks every field.
func cleanPrompt(p Prompt) (Prompt, error) {
	name, err := cleanName("A prompt", p.Name)
	if err != nil {
		return Prompt{}, err
	}
	p.Name, p.Description = name, strings.TrimSpace(p.Description)
	switch {
	case strings.TrimSpace(p.Body) == "":
		return Prompt{}, apperr.New(apperr.Invalid, "The prompt %q has no text. Write what it should say.", name)
	case len(p.Body) > MaxPromptBody:
		return Prompt{}, apperr.New(apperr.Invalid, "The prompt %q is longer than %d KB. Shorten it.", name, MaxPromptBody>>10)
	case utf8.RuneCountInString(p.Description) > maxPromptDescription:
		return Prompt{}, apperr.New(apperr.Invalid, "The description of the prompt %q is longer than %d characters.", name, maxPromptDescription)
	}
	return p, nil
}

// promptNameTaken maps a unique-name violation to a Conflict that names
// the prompt and its scope.
func promptNameTaken(err error, p Prompt) error {
	if err == nil || !strings.Contains(err.Error(), "UNIQUE constraint failed") {
		return err
	}
	scope := "among the global prompts"
	if p.ProjectID != "" {
		scope = "in this project"
	}
	return apperr.New(apperr.Conflict, "There is already a prompt named %q %s. Pick another name, or edit that one.", p.Name, scope)
}

func noPrompt(id string) error {
	return apperr.New(apperr.NotFound, "There is no prompt %s. It may have been deleted.", id)
}

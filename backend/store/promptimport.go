package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/agentdeck/agentdeck/backend/turn"
)

// Prompts in and out of a file (package promptfile reads and writes the
// YAML): a prompt's scope is written as its project's name, since ids
// mean nothing in another database.

// PromptEntry is a prompt as a file holds it: Project is the name of its
// project, "" for a global prompt.
type PromptEntry struct {
	Name        string
	Description string
	Project     string
	Body        string
}

// PromptImport says what ImportPrompts did with each prompt of a file.
type PromptImport struct {
	Created []PromptImported `json:"created"`
	Updated []PromptImported `json:"updated"`
	Skipped []PromptImported `json:"skipped"`
}

// PromptImported is one prompt of an import; Reason says why it was
// skipped.
type PromptImported struct {
	Name    string `json:"name"`
	Project string `json:"project,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// Why ImportPrompts skips a prompt.
const (
	SkipUnchanged = "unchanged: the library already has it as the file says"
	SkipNoProject = "there is no project of that name here; create it and import again"
)

// ImportPrompts stores a file's prompts in one transaction: a prompt whose
// name its scope already has (ignoring case) is updated, unless nothing
// differs (skipped); one whose project this database lacks is skipped,
// saying so. A prompt that is not valid fails the whole import, which
// then writes nothing.
func (db *DB) ImportPrompts(ctx context.Context, entries []PromptEntry) (PromptImport, error) {
	rep := PromptImport{Created: []PromptImported{}, Updated: []PromptImported{}, Skipped: []PromptImported{}}
	now := fmtTime(time.Now())
	err := db.tx(ctx, "importing the prompts", func(tx *sql.Tx) error {
		for _, e := range entries {
			one := PromptImported{Name: e.Name, Project: e.Project}
			p, err := cleanPrompt(Prompt{Name: e.Name, Description: e.Description, Body: e.Body})
			if err != nil {
				return err
			}
			one.Name = p.Name
			if e.Project != "" {
				err := tx.QueryRowContext(ctx, `SELECT id, name FROM projects WHERE name = ? COLLATE NOCASE`, e.Project).Scan(&p.ProjectID, &one.Project)
				if errors.Is(err, sql.ErrNoRows) {
					one.Reason = SkipNoProject
					rep.Skipped = append(rep.Skipped, one)
					continue
				}
				if err != nil {
					return err
				}
			}
			var id, desc, body string
			err = tx.QueryRowContext(ctx, `SELECT id, description, body FROM prompts WHERE COALESCE(project_id, '') = ? AND name = ? COLLATE NOCASE`,
				p.ProjectID, p.Name).Scan(&id, &desc, &body)
			switch {
			case errors.Is(err, sql.ErrNoRows):
				if _, err := tx.ExecContext(ctx, `INSERT INTO prompts (id, project_id, name, description, body, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
					turn.NewID(), nullable(p.ProjectID), p.Name, p.Description, p.Body, now, now); err != nil {
					return promptNameTaken(err, p)
				}
				rep.Created = append(rep.Created, one)
			case err != nil:
				return err
			case desc == p.Description && body == p.Body:
				one.Reason = SkipUnchanged
				rep.Skipped = append(rep.Skipped, one)
			default:
				if _, err := tx.ExecContext(ctx, `UPDATE prompts SET name = ?, description = ?, body = ?, updated_at = ? WHERE id = ?`,
					p.Name, p.Description, p.Body, now, id); err != nil {
					return err
				}
				rep.Updated = append(rep.Updated, one)
			}
		}
		return nil
	})
	if err != nil {
		return PromptImport{}, err
	}
	return rep, nil
}

// PromptEntries are the prompts ListPrompts(projectID) lists, as a file
// holds them.
func (db *DB) PromptEntries(ctx context.Context, projectID string) ([]PromptEntry, error) {
	prompts, err := db.ListPrompts(ctx, projectID)
	if err != nil {
		return nil, err
	}
	names, err := db.ProjectNames(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]PromptEntry, len(prompts))
	for i, p := range prompts {
		out[i] = PromptEntry{Name: p.Name, Description: p.Description, Project: names[p.ProjectID], Body: p.Body}
	}
	return out, nil
}

// ProjectNames maps every project's id to its name.
func (db *DB) ProjectNames(ctx context.Context) (map[string]string, error) {
	projects, err := db.ListProjects(ctx)
	if err != nil {
		return nil, err
	}
	names := make(map[string]string, len(projects))
	for _, p := range projects {
		names[p.ID] = p.Name
	}
	return names, nil
}

package store

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// What Import restores of a session's place (export.Version 6): its
// project, found by name ignoring case or made with the file's settings
// when this database has none of that name (a project that exists keeps
// its own settings); its tags; its pin and archive. A fork (ForkSession)
// stays in its project with its tags, but is neither pinned nor archived:
// it is new. A value the store would refuse (a name or tag too long,
// settings out of range) refuses the file, naming where, and nothing is
// imported.

// settings is the session's settings as stored. A version 6 file's are
// refused when they are not turn.RunSettings or not valid. Older files
// carried the column raw, whatever it held, and no Agentdeck before
// version 6 read it: what of it reads as valid settings is kept, the rest
// dropped, so that the session exports again as a file that imports.
func (im *importer) settings() (string, error) {
	if im.doc.Version >= 6 {
		s, err := strictSettings("session.settings", im.doc.Session.Settings)
		return settingsJSON(s), err
	}
	s := parseSettings(compactJSON(im.doc.Session.Settings, `{}`))
	if s.Validate() != nil {
		s = turn.RunSettings{}
	}
	return settingsJSON(s), nil
}

// place puts the stored session s in its project, with its tags, pin and
// archive.
func (im *importer) place(s *Session) error {
	f := im.doc.Session
	if f.Project != nil {
		id, err := im.project(f.Project)
		if err != nil {
			return err
		}
		if _, err := im.tx.ExecContext(im.ctx, `UPDATE sessions SET project_id = ? WHERE id = ?`, id, im.sid); err != nil {
			return err
		}
		s.ProjectID = id
	}
	tags, err := cleanTags(f.Tags)
	if err != nil {
		return apperr.New(apperr.Invalid, "This file's session.tags cannot be imported: %s Nothing was imported.", apperr.MessageOf(err))
	}
	for _, t := range tags {
		if _, err := im.tx.ExecContext(im.ctx, `INSERT INTO session_tags (session_id, tag) VALUES (?, ?)`, im.sid, t); err != nil {
			return err
		}
	}
	s.Tags = append([]string{}, tags...)
	slices.SortFunc(s.Tags, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	if im.fork {
		return nil
	}
	s.PinnedAt, s.ArchivedAt = f.PinnedAt, f.ArchivedAt
	_, err = im.tx.ExecContext(im.ctx, `UPDATE sessions SET pinned_at = ?, archived_at = ? WHERE id = ?`, optTimeColumn(f.PinnedAt), optTimeColumn(f.ArchivedAt), im.sid)
	return err
}

// project finds the file's project here by name, or makes it, and
// returns its id.
func (im *importer) project(p *export.Project) (string, error) {
	name, err := cleanName("A project", p.Name)
	if err != nil {
		return "", apperr.New(apperr.Invalid, "This file's session.project.name cannot be imported: %s Nothing was imported.", apperr.MessageOf(err))
	}
	var id string
	err = im.tx.QueryRowContext(im.ctx, `SELECT id FROM projects WHERE name = ? COLLATE NOCASE`, name).Scan(&id)
	if err == nil {
		return id, nil
	}
	settings, err := strictSettings("session.project.settings", p.Settings)
	if err != nil {
		return "", err
	}
	id = turn.NewID()
	now := fmtTime(time.Now())
	_, err = im.tx.ExecContext(im.ctx, `INSERT INTO projects (id, name, created_at, updated_at, settings) VALUES (?, ?, ?, ?, ?)`,
		id, name, now, now, settingsJSON(settings))
	return id, err
}

// strictSettings reads settings a version 6 file holds at path: an
// unknown field, a value of the wrong kind or out of range is damage.
func strictSettings(path string, raw json.RawMessage) (turn.RunSettings, error) {
	var s turn.RunSettings
	if len(raw) == 0 || string(raw) == "null" {
		return s, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(&s)
	if err == nil {
		err = s.Validate()
	}
	if err != nil {
		return s, apperr.New(apperr.Invalid, "This file is damaged: %s is not valid (%s). Nothing was imported.", path, strings.TrimPrefix(err.Error(), "json: "))
	}
	return s, nil
}

func optTimeColumn(t *time.Time) any {
	if t == nil {
		return nil
	}
	return fmtTime(*t)
}

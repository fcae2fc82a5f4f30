package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Projects, and what keeps sessions in order: a session's project, pin,
// tags and archive. A project holds its sessions' defaults as a
// turn.RunSettings layer; SettingsFor stacks the layers a turn runs with.
// Moving a session between projects changes what its next turns resolve
// to, never a stored turn: each keeps how it ran (Turn.Run).

// Project groups sessions and holds their defaults.
type Project struct {
	ID        string           `json:"id"`
	Name      string           `json:"name"`
	CreatedAt time.Time        `json:"created_at"`
	UpdatedAt time.Time        `json:"updated_at"`
	Settings  turn.RunSettings `json:"settings"`
	// Sessions is the number of sessions in it, archived ones too
	// (filled by ListProjects and GetProject).
	Sessions int `json:"sessions"`
}

// MaxNameLen is the longest project name, tag, or prompt name, in characters.
const MaxNameLen = 80

// cleanName trims a name and checks it, what being "a project", "a tag".
func cleanName(what, name string) (string, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return "", apperr.New(apperr.Invalid, "%s needs a name.", what)
	case utf8.RuneCountInString(name) > MaxNameLen:
		return "", apperr.New(apperr.Invalid, "%s's name is longer than %d characters.", what, MaxNameLen)
	case strings.ContainsAny(name, "\n\r\t"):
		return "", apperr.New(apperr.Invalid, "%s's name must be one line.", what)
	}
	return name, nil
}

// CreateProject stores a new project; its name must be new (ignoring case).
func (db *DB) CreateProject(ctx context.Context, p Project) (Project, error) {
	name, err := cleanName("A project", p.Name)
	if err != nil {
		return Project{}, err
	}
	if err := p.Settings.Validate(); err != nil {
		return Project{}, apperr.New(apperr.Invalid, "The project's settings are not valid: %v.", err)
	}
	now := time.Now().UTC()
	p.Name, p.CreatedAt, p.UpdatedAt = name, now, now
	if p.ID == "" {
		p.ID = turn.NewID()
	}
	err = db.tx(ctx, "saving the project", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO projects (id, name, created_at, updated_at, settings) VALUES (?, ?, ?, ?, ?)`,
			p.ID, p.Name, fmtTime(now), fmtTime(now), settingsJSON(p.Settings))
		return nameTaken(err, "project", p.Name)
	})
	return p, err
}

// UpdateProject saves a project's name and settings.
func (db *DB) UpdateProject(ctx context.Context, p Project) error {
	name, err := cleanName("A project", p.Name)
	if err != nil {
		return err
	}
	if err := p.Settings.Validate(); err != nil {
		return apperr.New(apperr.Invalid, "The project's settings are not valid: %v.", err)
	}
	return db.tx(ctx, "saving the project", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE projects SET name = ?, settings = ?, updated_at = ? WHERE id = ?`,
			name, settingsJSON(p.Settings), fmtTime(time.Now()), p.ID)
		if err != nil {
			return nameTaken(err, "project", name)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return noProject(p.ID)
		}
		return nil
	})
}

// projectSelect reads a project with its count of sessions, which
// triggers keep (migration 0013): counting them here would read every
// session each time the sidebar opens.
const projectSelect = `SELECT p.id, p.name, p.created_at, p.updated_at, p.settings, p.session_count FROM projects p`

func scanProject(r scanner) (Project, error) {
	var p Project
	var created, updated, settings string
	err := r.Scan(&p.ID, &p.Name, &created, &updated, &settings, &p.Sessions)
	p.CreatedAt, p.UpdatedAt, p.Settings = parseTime(created), parseTime(updated), parseSettings(settings)
	return p, err
}

// ProjectSummary is a project as a list shows it: its name and how many
// sessions it has, without its settings (GetProject reads those). The
// sidebar lists every project each time it opens, and reading 200
// projects' settings cost more than the rest of the list
// (BenchmarkSidebar10k); nothing that lists projects needs them, and a
// change to a project starts from GetProject, never from a list that
// may be older than its settings.
type ProjectSummary struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	Sessions  int       `json:"sessions"`
}

// ListProjects lists every project by name.
func (db *DB) ListProjects(ctx context.Context) ([]ProjectSummary, error) {
	ps, err := appendRows(ctx, db.reader, []ProjectSummary{}, func(r scanner) (ProjectSummary, error) {
		var p ProjectSummary
		var created, updated string
		err := r.Scan(&p.ID, &p.Name, &created, &updated, &p.Sessions)
		p.CreatedAt, p.UpdatedAt = parseTime(created), parseTime(updated)
		return p, err
	}, `SELECT p.id, p.name, p.created_at, p.updated_at, p.session_count FROM projects p ORDER BY p.name COLLATE NOCASE, p.id`)
	if err != nil {
		return nil, readError(err, "listing projects")
	}
	return ps, nil
}

// GetProject returns one project, by id or by name (ignoring case).
func (db *DB) GetProject(ctx context.Context, idOrName string) (Project, error) {
	p, err := scanProject(db.reader.QueryRowContext(ctx, projectSelect+` WHERE p.id = ? OR p.name = ? COLLATE NOCASE ORDER BY p.id = ? DESC LIMIT 1`,
		idOrName, strings.TrimSpace(idOrName), idOrName))
	if errors.Is(err, sql.ErrNoRows) {
		return Project{}, noProject(idOrName)
	}
	if err != nil {
		return Project{}, readError(err, "loading the project")
	}
	return p, nil
}

// What DeleteProject does with the project's sessions.
const (
	// KeepSessions moves them to no project.
	KeepSessions = "keep"
	// DeleteSessions deletes them, as DeleteSession would each.
	DeleteSessions = "delete"
)

// DeleteProject deletes a project and its prompts; its sessions move to
// no project (KeepSessions) or are deleted with everything stored about
// them, as DeleteSession deletes one (DeleteSessions). A project that has
// sessions needs the choice: "" is refused with a Conflict that counts
// them. The sessions are read, deleted or moved, and the project deleted
// in one transaction, so a session added to the project meanwhile is
// never left behind in a deleted project; their files and folders go
// after it commits. It returns the ids of the sessions it deleted.
func (db *DB) DeleteProject(ctx context.Context, id, sessions string) ([]string, error) {
	if sessions != "" && sessions != KeepSessions && sessions != DeleteSessions {
		return nil, apperr.New(apperr.Invalid, "A project's sessions are kept (%s) or deleted (%s), not %q.", KeepSessions, DeleteSessions, sessions)
	}
	p, err := db.GetProject(ctx, id)
	if err != nil {
		return nil, err
	}
	var ids []string
	files := map[string][]string{}
	err = db.tx(ctx, "deleting the project", func(tx *sql.Tx) error {
		ids, err = queryColumn[string](ctx, tx, `SELECT id FROM sessions WHERE project_id = ? ORDER BY id`, p.ID)
		if err != nil {
			return err
		}
		switch {
		case len(ids) > 0 && sessions == "":
			return apperr.New(apperr.Conflict, "The project %q has %s. Say whether to move them to no project (keep) or delete them (delete).", p.Name, sessionsNoun(len(ids)))
		case sessions == DeleteSessions:
			for _, sid := range ids {
				if files[sid], err = deleteSessionRows(ctx, tx, sid); err != nil {
					return err
				}
			}
		default:
			ids = nil
			if _, err := tx.ExecContext(ctx, `UPDATE sessions SET project_id = NULL WHERE project_id = ?`, p.ID); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM projects WHERE id = ?`, p.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return ids, nil
	}
	for _, sid := range ids {
		if err := db.removeSessionFiles(sid, files[sid]); err != nil {
			return ids, err
		}
	}
	return ids, db.Compact(ctx)
}

// MoveSession puts a session in a project ("" for none). Its turns keep
// how they ran; its next turns resolve with the new project's defaults.
func (db *DB) MoveSession(ctx context.Context, sessionID, projectID string) error {
	return db.tx(ctx, "moving the session", func(tx *sql.Tx) error {
		if err := checkProject(ctx, tx, projectID); err != nil {
			return err
		}
		return oneSession(tx.ExecContext(ctx, `UPDATE sessions SET project_id = ? WHERE id = ?`, nullable(projectID), sessionID))(sessionID)
	})
}

// PinSession pins a session to the top of the list, or unpins it.
func (db *DB) PinSession(ctx context.Context, sessionID string, pinned bool) error {
	return db.tx(ctx, "pinning the session", func(tx *sql.Tx) error {
		return oneSession(tx.ExecContext(ctx, `UPDATE sessions SET pinned_at = CASE WHEN ? THEN COALESCE(pinned_at, ?) END WHERE id = ?`,
			pinned, fmtTime(time.Now()), sessionID))(sessionID)
	})
}

// ArchiveSession hides a session from the list (never deleting it), or
// brings it back.
func (db *DB) ArchiveSession(ctx context.Context, sessionID string, archived bool) error {
	return db.tx(ctx, "archiving the session", func(tx *sql.Tx) error {
		return oneSession(tx.ExecContext(ctx, `UPDATE sessions SET archived_at = CASE WHEN ? THEN COALESCE(archived_at, ?) END WHERE id = ?`,
			archived, fmtTime(time.Now()), sessionID))(sessionID)
	})
}

// SetTags replaces a session's tags. Tags are trimmed, one line, at most
// MaxNameLen characters, and kept once ignoring case.
func (db *DB) SetTags(ctx context.Context, sessionID string, tags []string) error {
	clean, err := cleanTags(tags)
	if err != nil {
		return err
	}
	return db.tx(ctx, "tagging the session", func(tx *sql.Tx) error {
		if err := oneSession(tx.ExecContext(ctx, `UPDATE sessions SET id = id WHERE id = ?`, sessionID))(sessionID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM session_tags WHERE session_id = ?`, sessionID); err != nil {
			return err
		}
		for _, t := range clean {
			if _, err := tx.ExecContext(ctx, `INSERT INTO session_tags (session_id, tag) VALUES (?, ?)`, sessionID, t); err != nil {
				return err
			}
		}
		return nil
	})
}

func cleanTags(tags []string) ([]string, error) {
	var out []string
	for _, t := range tags {
		t = strings.TrimPrefix(strings.TrimSpace(t), "#")
		if t == "" {
			continue
		}
		t, err := cleanName("A tag", t)
		if err != nil {
			return nil, err
		}
		if !slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, t) }) {
			out = append(out, t)
		}
	}
	return out, nil
}

// TagCount is a tag and how many sessions have it.
type TagCount struct {
	Tag      string `json:"tag"`
	Sessions int    `json:"sessions"`
}

// ListTags lists the tags in use, most used first: what a tag field
// completes from.
func (db *DB) ListTags(ctx context.Context) ([]TagCount, error) {
	tags, err := appendRows(ctx, db.reader, []TagCount{}, func(r scanner) (TagCount, error) {
		var t TagCount
		return t, r.Scan(&t.Tag, &t.Sessions)
	}, `SELECT MIN(tag), COUNT(*) FROM session_tags GROUP BY tag COLLATE NOCASE ORDER BY COUNT(*) DESC, MIN(tag) COLLATE NOCASE`)
	if err != nil {
		return nil, readError(err, "listing tags")
	}
	return tags, nil
}

// SettingsFor is what a new turn of the session would run with, before
// the turn's own layer: the app's defaults, the session's project's, the
// session's own (its provider, model and workflow, and Settings). Add the
// turn's layer and Resolve.
func (db *DB) SettingsFor(ctx context.Context, sessionID string) ([]turn.Layer, error) {
	s, err := db.GetSession(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	app, err := db.AppSettings(ctx)
	if err != nil {
		return nil, err
	}
	layers := []turn.Layer{{Name: turn.LayerApp, Settings: app.Layer()}}
	if s.ProjectID != "" {
		// A project deleted since the session was read leaves no layer.
		p, err := db.GetProject(ctx, s.ProjectID)
		switch {
		case err == nil:
			layers = append(layers, turn.Layer{Name: turn.LayerProject, Settings: p.Settings})
		case apperr.CodeOf(err) != apperr.NotFound:
			return nil, err
		}
	}
	return append(layers, turn.Layer{Name: turn.LayerSession, Settings: s.Layer()}), nil
}

// Layer is the session's own layer: Settings with its provider, model
// and workflow.
func (s Session) Layer() turn.RunSettings {
	l := s.Settings
	l.Provider, l.Model, l.Workflow = s.Provider, s.Model, s.Workflow
	return l
}

// Layer is the app's defaults as the lowest layer.
func (st AppSettings) Layer() turn.RunSettings {
	l := st.Defaults
	l.Provider = firstNonEmpty(st.DefaultProvider, l.Provider)
	l.Model = firstNonEmpty(st.DefaultModel, l.Model)
	l.Workflow = firstNonEmpty(st.DefaultWorkflow, l.Workflow)
	if l.Limits == (turn.Limits{}) {
		l.Limits = st.Limits
	}
	return l
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// filter is the WHERE clause (after one already begun) of Page's filters
// on the sessions aliased as alias.
func (p Page) filter(alias string) (string, []any) {
	var q strings.Builder
	var args []any
	switch {
	case p.Project == NoProject:
		q.WriteString(` AND ` + alias + `.project_id IS NULL`)
	case p.Project != "":
		q.WriteString(` AND ` + alias + `.project_id = ?`)
		args = append(args, p.Project)
	}
	if p.Tag != "" {
		q.WriteString(` AND EXISTS (SELECT 1 FROM session_tags g WHERE g.session_id = ` + alias + `.id AND g.tag = ? COLLATE NOCASE)`)
		args = append(args, strings.TrimPrefix(strings.TrimSpace(p.Tag), "#"))
	}
	switch {
	case p.ArchivedOnly:
		q.WriteString(` AND ` + alias + `.archived_at IS NOT NULL`)
	case !p.Archived:
		q.WriteString(` AND ` + alias + `.archived_at IS NULL`)
	}
	r, rargs := p.reviewsFilter(alias)
	q.WriteString(r)
	return q.String(), append(args, rargs...)
}

// checkProject refuses a project id that names no project.
func checkProject(ctx context.Context, tx *sql.Tx, id string) error {
	if id == "" {
		return nil
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM projects WHERE id = ?`, id).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return noProject(id)
	}
	return nil
}

func noProject(id string) error {
	return apperr.New(apperr.NotFound, "There is no project %s. It may have been deleted.", id)
}

// oneSession turns an UPDATE of one session by id into NotFound when it
// touched none.
func oneSession(res sql.Result, err error) func(id string) error {
	return func(id string) error {
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return apperr.New(apperr.NotFound, "There is no session %s. It may have been deleted.", id)
		}
		return nil
	}
}

// nameTaken maps a unique-name violation to a Conflict that names it.
func nameTaken(err error, what, name string) error {
	if err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed") {
		return apperr.New(apperr.Conflict, "There is already a %s named %q. Pick another name.", what, name)
	}
	return err
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func settingsJSON(s turn.RunSettings) string {
	b, err := json.Marshal(s)
	if err != nil {
		return `{}`
	}
	return string(b)
}

// parseSettings reads a settings column; what it cannot read is no
// settings (a person's file may hold anything), never a failed load.
func parseSettings(raw string) turn.RunSettings {
	var s turn.RunSettings
	if raw != `{}` { // most rows: not worth a decode (ListProjects, ListSessions)
		_ = json.Unmarshal([]byte(raw), &s)
	}
	return s
}

func optTime(s string) *time.Time {
	if s == "" {
		return nil
	}
	t := parseTime(s)
	return &t
}

func sessionsNoun(n int) string {
	if n == 1 {
		return "1 session"
	}
	return strconv.Itoa(n) + " sessions"
}

package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Session is one conversation.
type Session struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	Provider  string    `json:"provider"`
	Model     string    `json:"model"`
	Workflow  string    `json:"workflow"`
	Workspace string    `json:"workspace"`
	// Settings is the session's own layer of settings (instructions,
	// sampling, limits: turn.RunSettings); its provider, model and workflow
	// are the fields above, not these.
	Settings turn.RunSettings `json:"settings"`
	// ProjectID is the project the session belongs to ("" for none).
	ProjectID string `json:"project_id"`
	// Pinned sessions list first; archived ones are hidden from the list
	// unless asked for (Page.Archived). Either is the time it was done.
	PinnedAt   *time.Time `json:"pinned_at"`
	ArchivedAt *time.Time `json:"archived_at"`
	// Tags are the session's tags, in order of name.
	Tags []string `json:"tags"`
	// Turns is filled by ListSessions with the number of turns.
	Turns int `json:"turns"`
	// RunningTurn is the id of the session's running turn ("" when none
	// runs), so a list shows which sessions are busy after a reload. One
	// turn runs per session, or the columns of one group (StartTurn): then
	// it is one of them.
	RunningTurn string `json:"running_turn"`
	// ActiveTurnID is the newest turn of the branch the user last looked
	// at ("" for a session with no turns): a new message follows it.
	ActiveTurnID string `json:"active_turn_id"`
	// ForkedFromSession and ForkedFromTurn name where a forked session
	// came from: it began as a copy of that session's branch up to that
	// turn. Either may since have been deleted.
	ForkedFromSession string `json:"forked_from_session,omitempty"`
	ForkedFromTurn    string `json:"forked_from_turn,omitempty"`
	// Kind is SessionChat ("" is taken as chat), or SessionEval for an
	// evaluation case's session: hidden from ListSessions unless asked for
	// (Page.Eval), and never searched (Search, SearchMemory).
	Kind string `json:"kind"`
	// OpenGroupID is the side-by-side group the session shows, "" when it
	// reads as one conversation (see CreateGroup).
	OpenGroupID string `json:"open_group_id,omitempty"`
}

// The kinds of session.
const (
	SessionChat = "chat"
	SessionEval = "eval"
)

const timeFmt = time.RFC3339Nano

func fmtTime(t time.Time) string { return t.UTC().Format(timeFmt) }

func parseTime(s string) time.Time {
	t, _ := time.Parse(timeFmt, s)
	return t
}

// CreateSession stores a new session; empty fields get defaults.
func (db *DB) CreateSession(ctx context.Context, s Session) (Session, error) {
	now := time.Now().UTC()
	if s.ID == "" {
		s.ID = turn.NewID()
	}
	if strings.TrimSpace(s.Title) == "" {
		s.Title = "New session"
	}
	if s.CreatedAt.IsZero() {
		s.CreatedAt = now
	}
	if s.UpdatedAt.IsZero() {
		s.UpdatedAt = s.CreatedAt
	}
	if s.Workflow == "" {
		s.Workflow = "chat"
	}
	if err := s.Settings.Validate(); err != nil {
		return Session{}, apperr.New(apperr.Invalid, "The session's settings are not valid: %v.", err)
	}
	if s.Kind == "" {
		s.Kind = SessionChat
	}
	if s.Kind != SessionChat && s.Kind != SessionEval {
		return Session{}, apperr.New(apperr.Invalid, "A session is a %s or an %s session, not %q.", SessionChat, SessionEval, s.Kind)
	}
	err := db.tx(ctx, "saving the session", func(tx *sql.Tx) error {
		if err := checkProject(ctx, tx, s.ProjectID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, title, created_at, updated_at, provider, model, workflow, workspace, settings, kind, project_id)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			s.ID, s.Title, fmtTime(s.CreatedAt), fmtTime(s.UpdatedAt), s.Provider, s.Model, s.Workflow, s.Workspace, settingsJSON(s.Settings), s.Kind, nullable(s.ProjectID)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO search (text, kind, session_id, turn_id) VALUES (?, 'title', ?, '')`, s.Title, s.ID)
		return err
	})
	return s, err
}

// GetSession returns one session.
func (db *DB) GetSession(ctx context.Context, id string) (Session, error) {
	row := db.reader.QueryRowContext(ctx, sessionSelect+` WHERE s.id = ?`, id)
	s, err := scanSession(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, apperr.New(apperr.NotFound, "There is no session %s. It may have been deleted.", id)
	}
	if err != nil {
		return Session{}, readError(err, "loading the session")
	}
	return s, nil
}

// Page asks for one page of a list, newest first. Cursor is the value of
// NextCursor from the previous page ("" for the first).
type Page struct {
	Limit  int    `json:"limit"`
	Cursor string `json:"cursor"`
	// Eval lists evaluation sessions too (ListSessions only: they are
	// hidden by default).
	Eval bool `json:"eval,omitempty"`
	// The filters of ListSessions (and Search): Project keeps one
	// project's sessions (NoProject: those in none); Tag those with the
	// tag; Archived lists archived sessions too, ArchivedOnly only them.
	Project      string `json:"project,omitempty"`
	Tag          string `json:"tag,omitempty"`
	Archived     bool   `json:"archived,omitempty"`
	ArchivedOnly bool   `json:"archived_only,omitempty"`
	// Reviews keeps the sessions with a turn a review filter picks
	// ("rated down in the last week"); nil keeps every one.
	Reviews *SessionReviews `json:"reviews,omitempty"`
}

// NoProject, as Page.Project, keeps the sessions in no project.
const NoProject = "-"

// SessionPage is one page of sessions. The first page (no cursor) also
// carries the pinned sessions that pass the filters, most recently pinned
// first; Sessions never holds a pinned one.
type SessionPage struct {
	Pinned     []Session `json:"pinned"`
	Sessions   []Session `json:"sessions"`
	NextCursor string    `json:"next_cursor"`
}

// MaxPinned is the most pinned sessions a list shows.
const MaxPinned = 200

// sessionSelect reads a session with its number of turns and its running
// turn. The running turn is found through the partial index of running
// turns (a handful of rows): the + keeps SQLite from walking every turn
// of the session by the (session_id, seq) index instead.
const sessionSelect = `SELECT s.id, s.title, s.created_at, s.updated_at, s.provider, s.model, s.workflow, s.workspace, s.settings,
	(SELECT COUNT(*) FROM turns t WHERE t.session_id = s.id),
	COALESCE((SELECT r.id FROM turns r WHERE r.state = 'running' AND +r.session_id = s.id LIMIT 1), ''),
	COALESCE(s.active_turn_id, ''), COALESCE(s.forked_from_session_id, ''), COALESCE(s.forked_from_turn_id, ''), s.kind,
	COALESCE(s.project_id, ''), COALESCE(s.pinned_at, ''), COALESCE(s.archived_at, ''), COALESCE(s.open_group_id, ''),
	COALESCE((SELECT json_group_array(tag) FROM (SELECT g.tag FROM session_tags g WHERE g.session_id = s.id ORDER BY g.tag COLLATE NOCASE)), '[]')
	FROM sessions s`

// ListSessions pages through sessions by most recent activity.
func (db *DB) ListSessions(ctx context.Context, p Page) (SessionPage, error) {
	limit := clampLimit(p.Limit, 50, 500)
	if err := p.Reviews.check(); err != nil {
		return SessionPage{}, err
	}
	q, args := sessionSelect+` WHERE (? OR s.kind = 'chat')`, []any{p.Eval}
	f, fargs := p.filter("s")
	q, args = q+f, append(args, fargs...)
	pinned := []Session{}
	if p.Cursor == "" {
		var err error
		pinned, err = appendRows(ctx, db.reader, pinned, scanSession, q+` AND s.pinned_at IS NOT NULL ORDER BY s.pinned_at DESC, s.id LIMIT ?`, append(slices.Clip(args), MaxPinned)...)
		if err != nil {
			return SessionPage{}, readError(err, "listing pinned sessions")
		}
	}
	q += ` AND s.pinned_at IS NULL`
	if p.Cursor != "" {
		at, id, _ := strings.Cut(p.Cursor, "|")
		q += ` AND (s.updated_at, s.id) < (?, ?)`
		args = append(args, at, id)
	}
	q += ` ORDER BY s.updated_at DESC, s.id DESC LIMIT ?`
	args = append(args, limit+1)
	sessions, err := appendRows(ctx, db.reader, []Session(nil), scanSession, q, args...)
	if err != nil {
		return SessionPage{}, readError(err, "listing sessions")
	}
	page := SessionPage{Pinned: pinned, Sessions: sessions}
	if len(page.Sessions) > limit {
		page.Sessions = page.Sessions[:limit]
		last := page.Sessions[limit-1]
		page.NextCursor = fmtTime(last.UpdatedAt) + "|" + last.ID
	}
	return page, nil
}

// RenameSession changes a session's title.
func (db *DB) RenameSession(ctx context.Context, id, title string) error {
	title = strings.TrimSpace(title)
	if title == "" {
		return apperr.New(apperr.Invalid, "A session needs a title.")
	}
	return db.tx(ctx, "renaming the session", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET title = ?, updated_at = ? WHERE id = ?`, title, fmtTime(time.Now()), id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return apperr.New(apperr.NotFound, "There is no session %s.", id)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM search WHERE kind = 'title' AND session_id = ?`, id); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO search (text, kind, session_id, turn_id) VALUES (?, 'title', ?, '')`, title, id)
		return err
	})
}

// UpdateSession saves a session's model, provider, workflow, workspace and settings.
// Its project, pins, tags and archive have their own methods (project.go).
func (db *DB) UpdateSession(ctx context.Context, s Session) error {
	if err := s.Settings.Validate(); err != nil {
		return apperr.New(apperr.Invalid, "The session's settings are not valid: %v.", err)
	}
	return db.tx(ctx, "saving the session", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET provider = ?, model = ?, workflow = ?, workspace = ?, settings = ?, updated_at = ? WHERE id = ?`,
			s.Provider, s.Model, s.Workflow, s.Workspace, settingsJSON(s.Settings), fmtTime(time.Now()), s.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return apperr.New(apperr.NotFound, "There is no session %s.", s.ID)
		}
		return nil
	})
}

type scanner interface{ Scan(...any) error }

func scanSession(r scanner) (Session, error) {
	var s Session
	var created, updated, settings, pinned, archived, tags string
	err := r.Scan(&s.ID, &s.Title, &created, &updated, &s.Provider, &s.Model, &s.Workflow, &s.Workspace, &settings, &s.Turns, &s.RunningTurn, &s.ActiveTurnID, &s.ForkedFromSession, &s.ForkedFromTurn, &s.Kind,
		&s.ProjectID, &pinned, &archived, &s.OpenGroupID, &tags)
	s.CreatedAt, s.UpdatedAt, s.Settings = parseTime(created), parseTime(updated), parseSettings(settings)
	s.PinnedAt, s.ArchivedAt = optTime(pinned), optTime(archived)
	_ = json.Unmarshal([]byte(tags), &s.Tags)
	if s.Tags == nil {
		s.Tags = []string{}
	}
	return s, err
}

func clampLimit(n, def, max int) int {
	if n <= 0 {
		return def
	}
	return min(n, max)
}

// tx runs fn in a write transaction and maps failures to clear errors.
func (db *DB) tx(ctx context.Context, doing string, fn func(*sql.Tx) error) error {
	tx, err := db.writer.BeginTx(ctx, nil)
	if err != nil {
		return writeError(err, doing)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		var ae *apperr.Error
		if errors.As(err, &ae) {
			return err
		}
		return writeError(err, doing)
	}
	if err := tx.Commit(); err != nil {
		return writeError(err, doing)
	}
	db.ckpt.poke()
	return nil
}

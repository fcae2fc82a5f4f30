package app

import (
	"context"

	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Projects, and keeping sessions in order: the API's part. Each is the
// store's method (store/project.go), called with the database open.

// ListProjects lists every project by name, with its number of sessions.
// Read one with GetProject for its settings.
func (a *API) ListProjects() ([]store.ProjectSummary, error) {
	return call(a, needDB, func(ctx context.Context) ([]store.ProjectSummary, error) { return a.s.db.ListProjects(ctx) })
}

// GetProject returns one project, by id or name.
func (a *API) GetProject(idOrName string) (store.Project, error) {
	return call(a, needDB, func(ctx context.Context) (store.Project, error) { return a.s.db.GetProject(ctx, idOrName) })
}

// CreateProject stores a new project (its name must be new).
func (a *API) CreateProject(p store.Project) (store.Project, error) {
	return call(a, needDB, func(ctx context.Context) (store.Project, error) { return a.s.db.CreateProject(ctx, p) })
}

// UpdateProject saves a project's name and defaults.
func (a *API) UpdateProject(p store.Project) (Done, error) {
	return call(a, needDB, func(ctx context.Context) (Done, error) { return done(a.s.db.UpdateProject(ctx, p)) })
}

// DeleteProject deletes a project; its sessions move to no project
// (store.KeepSessions) or are deleted (store.DeleteSessions). A project
// with sessions and no choice is refused, saying how many it has.
func (a *API) DeleteProject(id, sessions string) (Done, error) {
	return call(a, needDB, func(ctx context.Context) (Done, error) {
		_, err := a.s.db.DeleteProject(ctx, id, sessions)
		return done(err)
	})
}

// MoveSession puts a session in a project ("" for none).
func (a *API) MoveSession(sessionID, projectID string) (Done, error) {
	return call(a, needDB, func(ctx context.Context) (Done, error) { return done(a.s.db.MoveSession(ctx, sessionID, projectID)) })
}

// PinSession pins a session to the top of the list, or unpins it.
func (a *API) PinSession(sessionID string, pinned bool) (Done, error) {
	return call(a, needDB, func(ctx context.Context) (Done, error) { return done(a.s.db.PinSession(ctx, sessionID, pinned)) })
}

// ArchiveSession hides a session from the list, or brings it back.
func (a *API) ArchiveSession(sessionID string, archived bool) (Done, error) {
	return call(a, needDB, func(ctx context.Context) (Done, error) { return done(a.s.db.ArchiveSession(ctx, sessionID, archived)) })
}

// SetTags replaces a session's tags.
func (a *API) SetTags(sessionID string, tags []string) (Done, error) {
	return call(a, needDB, func(ctx context.Context) (Done, error) { return done(a.s.db.SetTags(ctx, sessionID, tags)) })
}

// ListTags lists the tags in use, most used first.
func (a *API) ListTags() ([]store.TagCount, error) {
	return call(a, needDB, func(ctx context.Context) ([]store.TagCount, error) { return a.s.db.ListTags(ctx) })
}

// SearchIn finds text in one project's sessions or those with a tag.
func (a *API) SearchIn(query string, limit int, scope store.Scope) ([]store.SearchHit, error) {
	return call(a, needDB, func(ctx context.Context) ([]store.SearchHit, error) { return a.s.db.SearchIn(ctx, query, limit, scope) })
}

// SessionSettings is what the session's next turn would run with, and
// where each value came from (app, project, session).
func (a *API) SessionSettings(sessionID string) (turn.Resolved, error) {
	return call(a, needDB, func(ctx context.Context) (turn.Resolved, error) {
		layers, err := a.s.db.SettingsFor(ctx, sessionID)
		if err != nil {
			return turn.Resolved{}, err
		}
		return turn.Resolve(layers...), nil
	})
}

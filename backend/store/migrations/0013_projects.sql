-- Keeping sessions in order (issue 42). A project groups sessions and
-- holds their defaults (settings: a turn.Settings layer, JSON); a session
-- belongs to at most one. Deleting a project is DeleteProject's choice,
-- made by the person: its sessions move to no project or are deleted;
-- the SET NULL only covers a project row removed some other way.
CREATE TABLE projects (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL,
    settings      TEXT NOT NULL DEFAULT '{}',
    -- How many sessions are in it (archived ones too), kept by the
    -- triggers below: the sidebar lists projects with their counts each
    -- time it opens, and counting 10,000 sessions then cost more than the
    -- rest of the list (BenchmarkSidebar10k).
    session_count INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE UNIQUE INDEX projects_name ON projects (name COLLATE NOCASE);

-- A pinned session lists first (most recently pinned first); an archived
-- one is hidden from the list unless asked for, never deleted by it.
ALTER TABLE sessions ADD COLUMN project_id TEXT REFERENCES projects (id) ON DELETE SET NULL;
ALTER TABLE sessions ADD COLUMN pinned_at TEXT;
ALTER TABLE sessions ADD COLUMN archived_at TEXT;
-- The lists read newest first (updated_at DESC, id DESC): each index has
-- that order exactly, so a page reads its rows in order and stops, never
-- sorting every session (with the filters below, SQLite would otherwise
-- scan the table and sort it, reading each session's counts on the way).
DROP INDEX sessions_updated;
CREATE INDEX sessions_updated ON sessions (updated_at DESC, id DESC);
CREATE INDEX sessions_project ON sessions (project_id, updated_at DESC, id DESC) WHERE project_id IS NOT NULL;
-- "No project", the group the sidebar opens with: read by date without
-- walking every session that is in a project.
CREATE INDEX sessions_no_project ON sessions (updated_at DESC, id DESC) WHERE project_id IS NULL;
-- The first page's pinned sessions, read without scanning every session.
CREATE INDEX sessions_pinned ON sessions (pinned_at DESC, id) WHERE pinned_at IS NOT NULL;

CREATE TRIGGER projects_count_insert AFTER INSERT ON sessions WHEN NEW.project_id IS NOT NULL BEGIN
    UPDATE projects SET session_count = session_count + 1 WHERE id = NEW.project_id;
END;
CREATE TRIGGER projects_count_delete AFTER DELETE ON sessions WHEN OLD.project_id IS NOT NULL BEGIN
    UPDATE projects SET session_count = session_count - 1 WHERE id = OLD.project_id;
END;
CREATE TRIGGER projects_count_move AFTER UPDATE OF project_id ON sessions WHEN OLD.project_id IS NOT NEW.project_id BEGIN
    UPDATE projects SET session_count = session_count - 1 WHERE id = OLD.project_id;
    UPDATE projects SET session_count = session_count + 1 WHERE id = NEW.project_id;
END;

-- Tags, typed by a person: kept as written, matched without case.
CREATE TABLE session_tags (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    tag        TEXT NOT NULL,
    PRIMARY KEY (session_id, tag COLLATE NOCASE)
) STRICT, WITHOUT ROWID;
CREATE INDEX session_tags_tag ON session_tags (tag COLLATE NOCASE, session_id);

-- The prompt library: saved prompts with {{variables}}, global
-- (project_id NULL) or a project's (deleted with it).
CREATE TABLE prompts (
    id          TEXT PRIMARY KEY,
    project_id  TEXT REFERENCES projects (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    body        TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
) STRICT;
CREATE UNIQUE INDEX prompts_name ON prompts (COALESCE(project_id, ''), name COLLATE NOCASE);

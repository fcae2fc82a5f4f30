-- Knowledge (issue 43): documents of a session or of a project, cut into
-- passages that keep their page and heading, indexed by FTS5 (BM25) and,
-- when the user picked an embedding model, by their embeddings. They live
-- here, in the main file, not in a session's data.db, so that a
-- project's documents serve all its sessions. Deleting a document, its
-- session or its project deletes its passages, their index entries and
-- embeddings (secure_delete zeroes the pages; the index is secure-delete
-- too).
CREATE TABLE documents (
    id          TEXT PRIMARY KEY,
    session_id  TEXT REFERENCES sessions (id) ON DELETE CASCADE,
    project_id  TEXT REFERENCES projects (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    kind        TEXT NOT NULL,
    url         TEXT NOT NULL DEFAULT '',
    -- SHA-256 of the bytes, hex: the same bytes twice in one place are
    -- refused (documents_version).
    version     TEXT NOT NULL,
    size        INTEGER NOT NULL,
    pages       INTEGER NOT NULL,
    note        TEXT NOT NULL DEFAULT '',
    embed_model TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL,
    CHECK ((session_id IS NULL) != (project_id IS NULL))
) STRICT;
CREATE UNIQUE INDEX documents_version ON documents (COALESCE(session_id, ''), COALESCE(project_id, ''), version);
CREATE INDEX documents_session ON documents (session_id) WHERE session_id IS NOT NULL;
CREATE INDEX documents_project ON documents (project_id) WHERE project_id IS NOT NULL;

-- A passage: one page, one heading. Its embedding, when it has one, is
-- little-endian float32s of unit length (the document names the model).
CREATE TABLE passages (
    id          INTEGER PRIMARY KEY,
    document_id TEXT NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    ord         INTEGER NOT NULL,
    page        INTEGER NOT NULL,
    heading     TEXT NOT NULL DEFAULT '',
    text        TEXT NOT NULL,
    embedding   BLOB,
    UNIQUE (document_id, ord)
) STRICT;

-- The passages' full-text index: external content (the text is stored
-- once, in passages), kept by the triggers below.
CREATE VIRTUAL TABLE passages_fts USING fts5 (
    text,
    heading,
    content = 'passages',
    content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO passages_fts (passages_fts, rank) VALUES ('secure-delete', 1);
CREATE TRIGGER passages_fts_insert AFTER INSERT ON passages BEGIN
    INSERT INTO passages_fts (rowid, text, heading) VALUES (new.id, new.text, new.heading);
END;
CREATE TRIGGER passages_fts_delete AFTER DELETE ON passages BEGIN
    INSERT INTO passages_fts (passages_fts, rowid, text, heading) VALUES ('delete', old.id, old.text, old.heading);
END;
CREATE TRIGGER passages_fts_update AFTER UPDATE OF text, heading ON passages BEGIN
    INSERT INTO passages_fts (passages_fts, rowid, text, heading) VALUES ('delete', old.id, old.text, old.heading);
    INSERT INTO passages_fts (rowid, text, heading) VALUES (new.id, new.text, new.heading);
END;

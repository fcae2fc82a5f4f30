-- Sessions, turns and everything a turn produced. Times are RFC 3339 UTC
-- text; ids are time-ordered UUIDv7 text; JSON columns hold the engine's
-- own structs.

CREATE TABLE sessions (
    id         TEXT PRIMARY KEY,
    title      TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    provider   TEXT NOT NULL DEFAULT '',
    model      TEXT NOT NULL DEFAULT '',
    workflow   TEXT NOT NULL DEFAULT 'chat',
    workspace  TEXT NOT NULL DEFAULT '',
    settings   TEXT NOT NULL DEFAULT '{}'
) STRICT;
CREATE INDEX sessions_updated ON sessions (updated_at DESC, id);

CREATE TABLE turns (
    id           TEXT PRIMARY KEY,
    session_id   TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq          INTEGER NOT NULL,
    user_message TEXT NOT NULL,
    state        TEXT NOT NULL CHECK (state IN ('running', 'completed', 'cancelled', 'failed', 'interrupted')),
    workflow     TEXT NOT NULL DEFAULT '',
    model        TEXT NOT NULL DEFAULT '',
    started_at   TEXT NOT NULL,
    completed_at TEXT,
    owner_pid    INTEGER NOT NULL DEFAULT 0,
    owner_start  TEXT NOT NULL DEFAULT '',
    heartbeat_at TEXT NOT NULL DEFAULT '',
    final_text   TEXT NOT NULL DEFAULT '',
    outcome      TEXT NOT NULL DEFAULT '',
    termination  TEXT NOT NULL DEFAULT '{}',
    result       TEXT NOT NULL DEFAULT '{}',
    UNIQUE (session_id, seq)
) STRICT;
CREATE INDEX turns_running ON turns (state) WHERE state = 'running';

CREATE TABLE messages (
    id         INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    turn_id    TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    idx        INTEGER NOT NULL,
    role       TEXT NOT NULL,
    content    TEXT NOT NULL,
    extra      TEXT NOT NULL DEFAULT '{}', -- tool calls, tool_call_id, name, reasoning
    UNIQUE (turn_id, idx)
) STRICT;
CREATE INDEX messages_session ON messages (session_id);

-- The append-only event log.
CREATE TABLE events (
    turn_id    TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    id         TEXT NOT NULL,
    stage_id   TEXT NOT NULL,
    parent_id  TEXT NOT NULL,
    at         TEXT NOT NULL,
    type       TEXT NOT NULL,
    phase      TEXT NOT NULL,
    checkpoint INTEGER NOT NULL,
    data       TEXT NOT NULL,
    PRIMARY KEY (turn_id, seq)
) STRICT, WITHOUT ROWID;

CREATE TABLE stages (
    id          TEXT PRIMARY KEY,
    turn_id     TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    idx         INTEGER NOT NULL,
    name        TEXT NOT NULL,
    agent       TEXT NOT NULL,
    phase       TEXT NOT NULL,
    outcome     TEXT NOT NULL,
    termination TEXT NOT NULL,
    diagnostics TEXT NOT NULL,
    response    TEXT NOT NULL DEFAULT 'null'
) STRICT;
CREATE INDEX stages_turn ON stages (turn_id, idx);

CREATE TABLE model_calls (
    turn_id        TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    stage_id       TEXT NOT NULL,
    idx            INTEGER NOT NULL,
    model          TEXT NOT NULL,
    started_at     TEXT NOT NULL,
    duration_ms    INTEGER NOT NULL,
    ttft_ms        INTEGER NOT NULL,
    input_tokens   INTEGER NOT NULL,
    output_tokens  INTEGER NOT NULL,
    cached_tokens  INTEGER NOT NULL,
    reasoning_tokens INTEGER NOT NULL,
    estimated      INTEGER NOT NULL,
    ok             INTEGER NOT NULL,
    error          TEXT NOT NULL,
    PRIMARY KEY (turn_id, stage_id, idx)
) STRICT;

CREATE TABLE tool_calls (
    turn_id     TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    stage_id    TEXT NOT NULL,
    call_id     TEXT NOT NULL,
    name        TEXT NOT NULL,
    arguments   TEXT NOT NULL,
    result_size INTEGER NOT NULL,
    started_at  TEXT NOT NULL,
    duration_ms INTEGER NOT NULL,
    ok          INTEGER NOT NULL,
    error       TEXT NOT NULL,
    PRIMARY KEY (turn_id, stage_id, call_id)
) STRICT;

-- Record/replay captures, shared by key; capture_refs says which turns use
-- each, so deleting a session removes captures no other session uses.
CREATE TABLE captures (
    key         TEXT PRIMARY KEY,
    model       TEXT NOT NULL,
    request     TEXT NOT NULL,
    chunks      TEXT NOT NULL,
    response    TEXT NOT NULL,
    recorded_at TEXT NOT NULL
) STRICT;
CREATE INDEX captures_model ON captures (model, recorded_at DESC);
CREATE TABLE capture_refs (
    capture_key TEXT NOT NULL REFERENCES captures (key) ON DELETE CASCADE,
    turn_id     TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    PRIMARY KEY (capture_key, turn_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX capture_refs_turn ON capture_refs (turn_id);

CREATE TABLE attachments (
    id         TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    path       TEXT NOT NULL,
    size       INTEGER NOT NULL,
    sha256     TEXT NOT NULL,
    table_name TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL
) STRICT;

CREATE TABLE approvals (
    id         INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    turn_id    TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    call_id    TEXT NOT NULL,
    tool       TEXT NOT NULL,
    args       TEXT NOT NULL,
    guard      TEXT NOT NULL,
    answer     TEXT NOT NULL,
    at         TEXT NOT NULL
) STRICT;

-- Settings and provider definitions. Never secrets: providers hold a
-- reference into the keyring, not a key.
CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;
CREATE TABLE providers (
    name       TEXT PRIMARY KEY,
    definition TEXT NOT NULL
) STRICT;

-- Full-text search over message text, tool arguments and results, and
-- session titles. kind is 'message', 'tool_call', 'tool_result' or 'title'.
CREATE VIRTUAL TABLE search USING fts5 (
    text,
    kind UNINDEXED,
    session_id UNINDEXED,
    turn_id UNINDEXED,
    tokenize = 'unicode61 remove_diacritics 2'
);
-- Deleted text must really leave the index.
INSERT INTO search (search, rank) VALUES ('secure-delete', 1);

-- Images sent with messages to models that see (issue 21). The bytes live
-- here, in the one file with everything else; the message's extra column
-- names them (id, type, size, hash). They belong to their turn: deleting
-- the turn or its session deletes them, and the freed pages are zeroed
-- like every other deleted row. (Attached tables are another thing: files
-- loaded as data, in the attachments table, with their copies on disk.)
CREATE TABLE images (
    id         TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    turn_id    TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    mime       TEXT NOT NULL,
    name       TEXT NOT NULL DEFAULT '',
    width      INTEGER NOT NULL DEFAULT 0,
    height     INTEGER NOT NULL DEFAULT 0,
    size       INTEGER NOT NULL,
    sha256     TEXT NOT NULL,
    data       BLOB NOT NULL,
    created_at TEXT NOT NULL
) STRICT;
CREATE INDEX images_turn ON images (turn_id);
CREATE INDEX images_session ON images (session_id);

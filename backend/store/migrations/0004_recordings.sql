-- Recordings are never overwritten. Until now a capture was keyed by its
-- request's hash, so a second turn that sent the same request with a
-- different answer replaced the first turn's recording, and replaying the
-- first turn gave the second one's answer. Now every recorded call is a row
-- of its own, and turn_calls says which recording each turn used at each
-- call index, so a turn replays from its own recordings in call order.

CREATE TABLE recordings (
    id          INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused, even after a delete
    key         TEXT NOT NULL,                     -- SHA-256 of the canonical request
    model       TEXT NOT NULL,
    request     TEXT NOT NULL,                     -- the canonical request (JSON)
    chunks      TEXT NOT NULL,
    response    TEXT NOT NULL,
    recorded_at TEXT NOT NULL
) STRICT;
-- The newest recording of a request: capture modes auto and replay look
-- requests up by key.
CREATE INDEX recordings_key ON recordings (key, id);
CREATE INDEX recordings_model ON recordings (model, recorded_at DESC);

-- The model calls of a turn in call order (idx from 0). A replay links the
-- recordings it served to the replaying turn, so a replay can be replayed
-- and a recording is kept while any turn uses it.
CREATE TABLE turn_calls (
    turn_id      TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    idx          INTEGER NOT NULL,
    recording_id INTEGER NOT NULL REFERENCES recordings (id),
    PRIMARY KEY (turn_id, idx)
) STRICT, WITHOUT ROWID;
CREATE INDEX turn_calls_recording ON turn_calls (recording_id);

-- Old captures keep working: each becomes a recording, and each turn that
-- used it gets it at a call index in the order the captures were recorded.
-- Calls within a turn are sequential, so for a capture that was not later
-- replaced by another turn this is the turn's call order.
INSERT INTO recordings (key, model, request, chunks, response, recorded_at)
    SELECT key, model, request, chunks, response, recorded_at FROM captures ORDER BY recorded_at, key;
INSERT INTO turn_calls (turn_id, idx, recording_id)
    SELECT r.turn_id,
           ROW_NUMBER() OVER (PARTITION BY r.turn_id ORDER BY c.recorded_at, c.key) - 1,
           rec.id
    FROM capture_refs r
    JOIN captures c ON c.key = r.capture_key
    JOIN recordings rec ON rec.key = c.key;

-- How each turn was run (its limits and its workflow as resolved when it
-- started, as the runner writes them), so a replay runs it the same way
-- even after the workflow file or the settings changed.
ALTER TABLE turns ADD COLUMN run TEXT NOT NULL DEFAULT '{}';

DROP TABLE capture_refs;
DROP TABLE captures;

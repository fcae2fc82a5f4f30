-- Evaluations (issue 25). A session is a chat (what the sidebar lists) or
-- an evaluation case's session ('eval': hidden from the sidebar by default,
-- never searched by recall memory). A run of a suite keeps the suite as it
-- ran; each case × model × repeat of it is one result, stored once (the
-- UNIQUE makes running a case idempotent), linked to the turn it ran as.
ALTER TABLE sessions ADD COLUMN kind TEXT NOT NULL DEFAULT 'chat' CHECK (kind IN ('chat', 'eval'));
CREATE INDEX sessions_eval ON sessions (id) WHERE kind = 'eval';

CREATE TABLE eval_runs (
    id          TEXT PRIMARY KEY,
    suite_name  TEXT NOT NULL,
    suite_file  TEXT NOT NULL DEFAULT '',
    suite       TEXT NOT NULL,               -- the suite as run, JSON
    capture     TEXT NOT NULL DEFAULT 'record' CHECK (capture IN ('record', 'replay', 'auto')),
    from_run_id TEXT NOT NULL DEFAULT '',    -- the run a replay serves recordings of
    state       TEXT NOT NULL CHECK (state IN ('running', 'completed', 'cancelled', 'failed')),
    started_at  TEXT NOT NULL,
    ended_at    TEXT,
    owner_pid   INTEGER NOT NULL DEFAULT 0,
    owner_start TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX eval_runs_started ON eval_runs (started_at DESC, id);

CREATE TABLE eval_results (
    id         TEXT PRIMARY KEY,
    run_id     TEXT NOT NULL REFERENCES eval_runs (id) ON DELETE CASCADE,
    case_id    TEXT NOT NULL,
    model      TEXT NOT NULL,                -- provider/model
    repeat     INTEGER NOT NULL,             -- 1-based
    session_id TEXT REFERENCES sessions (id) ON DELETE SET NULL,
    turn_id    TEXT REFERENCES turns (id) ON DELETE SET NULL,
    state      TEXT NOT NULL CHECK (state IN ('running', 'passed', 'failed', 'cancelled', 'error')),
    score      REAL NOT NULL DEFAULT 0,
    outcomes   TEXT NOT NULL DEFAULT '[]',   -- eval.Outcome per assertion, JSON
    error      TEXT NOT NULL DEFAULT '',
    latency_ms INTEGER NOT NULL DEFAULT 0,
    tokens     INTEGER NOT NULL DEFAULT 0,
    cost_usd   REAL,
    started_at TEXT NOT NULL,
    ended_at   TEXT,
    UNIQUE (run_id, case_id, model, repeat)
) STRICT;
CREATE INDEX eval_results_turn ON eval_results (turn_id);

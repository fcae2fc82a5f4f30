-- Side by side (issue 44): one message sent to several models or
-- workflows at once. Each target runs as its own turn, a version of the
-- others in the tree; the group records which turns were sent together,
-- in which column (slot) and to what (target), so reopening the session
-- shows the same columns. A message sent in side-by-side mode makes a
-- group that follows the last one: the turn in slot i continues slot i's
-- branch. The turns of one group may run at the same time; any other
-- second running turn in a session is still refused (StartTurn).
CREATE TABLE turn_groups (
    id               TEXT PRIMARY KEY,
    session_id       TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    follows_group_id TEXT REFERENCES turn_groups (id) ON DELETE SET NULL,
    -- A blind group hides its targets' names (A, B, …) and shuffles its
    -- columns until it is voted on.
    blind            INTEGER NOT NULL DEFAULT 0 CHECK (blind IN (0, 1)),
    -- What each column runs, by slot: [{"provider","model","workflow"}].
    -- A group that follows this one sends to the same targets.
    targets          TEXT NOT NULL DEFAULT '[]',
    created_at       TEXT NOT NULL
) STRICT;
CREATE INDEX turn_groups_session ON turn_groups (session_id);
CREATE INDEX turn_groups_follows ON turn_groups (follows_group_id) WHERE follows_group_id IS NOT NULL;

ALTER TABLE turns ADD COLUMN group_id TEXT REFERENCES turn_groups (id) ON DELETE SET NULL;
ALTER TABLE turns ADD COLUMN group_slot INTEGER NOT NULL DEFAULT 0;
-- What the column ran, as the user picked it: the leaderboard's key.
ALTER TABLE turns ADD COLUMN target TEXT NOT NULL DEFAULT '';
CREATE INDEX turns_group ON turns (group_id) WHERE group_id IS NOT NULL;

-- The group a session shows side by side, NULL when it reads as one
-- conversation ("Continue with this one" clears it).
ALTER TABLE sessions ADD COLUMN open_group_id TEXT REFERENCES turn_groups (id) ON DELETE SET NULL;

-- A person's verdict on a group: one per group (voting again replaces
-- it). 'win' names the better turn; 'tie' and 'both_bad' name none. The
-- leaderboard reads each vote as the pairs of its group's targets.
CREATE TABLE votes (
    id             TEXT PRIMARY KEY,
    group_id       TEXT NOT NULL UNIQUE REFERENCES turn_groups (id) ON DELETE CASCADE,
    outcome        TEXT NOT NULL CHECK (outcome IN ('win', 'tie', 'both_bad')),
    winner_turn_id TEXT REFERENCES turns (id) ON DELETE CASCADE,
    note           TEXT NOT NULL DEFAULT '',
    -- The names were hidden when the vote was cast.
    blind          INTEGER NOT NULL CHECK (blind IN (0, 1)),
    created_at     TEXT NOT NULL,
    CHECK ((outcome = 'win') = (winner_turn_id IS NOT NULL))
) STRICT;

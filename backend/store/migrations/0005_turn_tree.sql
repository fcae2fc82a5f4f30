-- Turns form a tree (issue 20): each turn follows the turn before it on
-- its branch (parent_turn_id; NULL for a first message), and a session
-- remembers the branch the user last looked at by its newest turn
-- (active_turn_id). Until now a session was one line of turns in seq
-- order, so each turn follows the one numbered before it, and the newest
-- is the active one. Kept by code, not by foreign keys: db salvage copies
-- what it can read, and a turn whose parent was lost stays readable.
ALTER TABLE turns ADD COLUMN parent_turn_id TEXT;
ALTER TABLE sessions ADD COLUMN active_turn_id TEXT;
-- A session forked from a turn of another ("Fork from here") says which.
ALTER TABLE sessions ADD COLUMN forked_from_session_id TEXT;
ALTER TABLE sessions ADD COLUMN forked_from_turn_id TEXT;

UPDATE turns SET parent_turn_id = (
    SELECT p.id FROM turns p
    WHERE p.session_id = turns.session_id AND p.seq < turns.seq
    ORDER BY p.seq DESC LIMIT 1);
UPDATE sessions SET active_turn_id = (
    SELECT t.id FROM turns t WHERE t.session_id = sessions.id ORDER BY t.seq DESC LIMIT 1);

-- A turn's versions and continuations are found by their parent.
CREATE INDEX turns_parent ON turns (parent_turn_id) WHERE parent_turn_id IS NOT NULL;

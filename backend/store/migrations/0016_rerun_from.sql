-- Time travel (issue 45): a turn re-run from a step of another turn. The
-- new turn is a version of the original in the tree; it names the turn
-- and the step it started from (timeline step ids: start, stage2, call3,
-- tool1) and the kind of edit made there. Everything before the step was
-- served from the original's recordings, which the new turn links as its
-- own (turn_calls), so deleting the original keeps what the new turn
-- needs: only this link is cleared.
ALTER TABLE turns ADD COLUMN from_turn_id TEXT REFERENCES turns (id) ON DELETE SET NULL;
ALTER TABLE turns ADD COLUMN from_step TEXT NOT NULL DEFAULT '';
ALTER TABLE turns ADD COLUMN from_edit TEXT NOT NULL DEFAULT '';
CREATE INDEX turns_from ON turns (from_turn_id) WHERE from_turn_id IS NOT NULL;

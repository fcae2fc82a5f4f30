-- Continue means continue (issue 20): a turn that continues the answer of
-- the turn it follows (after Stop or a limit) is marked, so readers show
-- the two as one answer with a mark where it resumed. Every turn before
-- this was a turn of its own.
ALTER TABLE turns ADD COLUMN continues INTEGER NOT NULL DEFAULT 0;

-- Token runs (issue 22): the consecutive token (or reasoning) events of one
-- stage that are written in one batch are one row, covering seq .. seq +
-- run_len - 1, instead of a row each. Such a row's id and at are its first
-- event's, and its data holds every event's id, time and data (eventrun.go).
-- Rows written before this migration are runs of one: the default, so no
-- row is rewritten and a large history opens at once.
ALTER TABLE events ADD COLUMN run_len INTEGER NOT NULL DEFAULT 1 CHECK (run_len >= 1);

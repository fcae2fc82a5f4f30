-- Search entries after the turn (issue 22): FinishTurn stores a turn's
-- messages and marks it search_pending; the store's indexer (indexer.go)
-- writes its search entries a moment later, off the turn's path, and
-- clears the mark. Search indexes whatever is still marked before it
-- looks, so a hit is never missing for a stored turn. Existing turns are
-- indexed already: the default.
ALTER TABLE turns ADD COLUMN search_pending INTEGER NOT NULL DEFAULT 0 CHECK (search_pending IN (0, 1));
CREATE INDEX turns_search_pending ON turns (id) WHERE search_pending = 1;

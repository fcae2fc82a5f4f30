-- Human review (issue 47): a person's judgement of a turn or of one step
-- of it (step: a timeline step id, '' for the whole turn). One review per
-- turn and step: saving again replaces it; a review that says nothing is
-- deleted rather than stored. Labels are a sorted JSON array of strings;
-- review_labels repeats them as rows so filters and completion use an
-- index. Deleting the turn deletes its reviews, on the bytes like the rest
-- of it.
CREATE TABLE reviews (
    id         TEXT PRIMARY KEY,
    turn_id    TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    step       TEXT NOT NULL DEFAULT '',
    thumb      INTEGER NOT NULL DEFAULT 0 CHECK (thumb IN (-1, 0, 1)),
    score      INTEGER NOT NULL DEFAULT 0 CHECK (score BETWEEN 0 AND 5),
    labels     TEXT NOT NULL DEFAULT '[]',
    note       TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (turn_id, step)
) STRICT;
CREATE INDEX reviews_updated ON reviews (updated_at DESC);

CREATE TABLE review_labels (
    review_id TEXT NOT NULL REFERENCES reviews (id) ON DELETE CASCADE,
    label     TEXT NOT NULL,
    PRIMARY KEY (review_id, label)
) STRICT, WITHOUT ROWID;
CREATE INDEX review_labels_label ON review_labels (label);

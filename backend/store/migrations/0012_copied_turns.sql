-- Turns copied from elsewhere (issue 40): a fork copies its branch's turns
-- and an import copies a file's, each with the model calls they made. The
-- copies keep their figures to show, but usage, budgets and the other sums
-- count only the calls this database's own turns made, so each call
-- counts once. copied says where a turn came from: '' (it ran here),
-- 'fork' or 'import'.
ALTER TABLE turns ADD COLUMN copied TEXT NOT NULL DEFAULT '' CHECK (copied IN ('', 'fork', 'import'));

-- Copies made before this are found as far as the file allows: a fork or
-- an import into the database its session came from left two turns with
-- the same start (to the nanosecond), number and message in two sessions,
-- and the copy is the one stored later (the higher rowid). A copy in a
-- session that names the one it was forked from is a fork's; any other,
-- an import's. A file imported from another database, whose original is
-- not here, left no trace to tell it by: its turns keep counting.
UPDATE turns SET copied = CASE
        WHEN (SELECT COALESCE(s.forked_from_session_id, '') FROM sessions s WHERE s.id = turns.session_id) != '' THEN 'fork'
        ELSE 'import' END
    WHERE rowid IN (
        SELECT t.rowid FROM turns t JOIN (
            SELECT started_at, seq, user_message, MIN(rowid) AS first FROM turns
            GROUP BY started_at, seq, user_message HAVING COUNT(*) > 1
        ) d ON d.started_at = t.started_at AND d.seq = t.seq AND d.user_message = t.user_message
        WHERE t.rowid != d.first);

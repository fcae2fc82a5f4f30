-- Look-ups by owner, which are also what ON DELETE CASCADE searches when a
-- session or turn is deleted: without these, every delete scans the table.
CREATE INDEX attachments_session ON attachments (session_id, created_at);
CREATE INDEX approvals_turn ON approvals (turn_id, id);
CREATE INDEX approvals_session ON approvals (session_id);

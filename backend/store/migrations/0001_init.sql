-- Settings and metadata that belong to the installation, not to a session.
CREATE TABLE app_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;

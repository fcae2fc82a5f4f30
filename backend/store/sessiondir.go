package store

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"regexp"
)

// SessionDir is the folder of a session's own files beside the database
// at dbPath: its attached tables (data.db) and uploads. Deleting the
// session deletes the folder.
//
// Session ids are UUIDs, but an imported file brings its own: an id that
// is not a plain name ("..", one with a slash) is hashed into one, so a
// folder is always inside sessions/ and deleting it never reaches beyond.
func SessionDir(dbPath, sessionID string) string {
	name := sessionID
	if !plainName.MatchString(name) || name == "." || name == ".." {
		sum := sha256.Sum256([]byte(sessionID))
		name = "x-" + hex.EncodeToString(sum[:12])
	}
	return filepath.Join(filepath.Dir(dbPath), "sessions", name)
}

var plainName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,80}$`)

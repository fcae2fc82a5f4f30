package store

import (
	"encoding/json"
	"errors"
	"os"
	"regexp"

	"github.com/agentdeck/agentdeck/backend/atomicfile"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// An ending that could not be stored. When a full disk stops a turn and
// even its ending (state, termination, messages) finds no room, the turn
// stays running. So that its cause is not lost, the runner first writes a
// note beside the database (NoteEnding): a few hundred bytes, written
// right after the reserve is released, when there is most room. The
// process that ran the turn stores the ending itself once there is room;
// if it ends first, whoever recovers the turn (recoverTx) ends it with
// the note's termination and message instead of "interrupted", and the
// note is removed once the turn's ending is stored.

// endingNote is what NoteEnding keeps.
type endingNote struct {
	Termination turn.Termination `json:"termination"`
	Error       string           `json:"error"`
	ErrorSource string           `json:"error_source,omitempty"`
}

// safeTurnID is the shape of a turn id that may name a file: ids come
// from the database, and an imported one is not trusted as a path.
var safeTurnID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// endingNotePath is the note of turnID beside the database at dbPath, or
// "" for an id that cannot name a file.
func endingNotePath(dbPath, turnID string) string {
	if !safeTurnID.MatchString(turnID) {
		return ""
	}
	return dbPath + ".ending-" + turnID + ".json"
}

// NoteEnding keeps, beside the database, how a turn ended (its termination
// and its message), for when its ending cannot be stored: see above.
func (db *DB) NoteEnding(turnID string, res turn.Result) error {
	path := endingNotePath(db.path, turnID)
	if path == "" {
		return errors.New("the turn id cannot name a file: " + turnID)
	}
	data, err := json.Marshal(endingNote{Termination: res.Termination, Error: res.Error, ErrorSource: res.ErrorSource})
	if err != nil {
		return err
	}
	return atomicfile.Write(path, data, 0o600)
}

// endingNoteOf reads the note of turnID; ok is false when there is none
// (or it cannot be read, which leaves the turn to be marked interrupted).
func (db *DB) endingNoteOf(turnID string) (note endingNote, ok bool) {
	path := endingNotePath(db.path, turnID)
	if path == "" {
		return note, false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return note, false
	}
	if json.Unmarshal(data, &note) != nil || note.Termination.Kind == "" {
		return note, false
	}
	return note, true
}

// forgetEndings removes the notes of turns whose ending is now stored.
func (db *DB) forgetEndings(turnIDs ...string) {
	for _, id := range turnIDs {
		if path := endingNotePath(db.path, id); path != "" {
			_ = os.Remove(path) // a note left behind is harmless: its turn is no longer running
		}
	}
}

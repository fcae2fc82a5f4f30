package turn

import "time"

// Answer is a person's answer to an approval request.
type Answer string

const (
	AllowOnce Answer = "allow_once"
	Always    Answer = "always" // this tool, for the rest of the session
	Deny      Answer = "deny"
)

// Memory is one excerpt from an earlier session.
type Memory struct {
	SessionID    string    `json:"session_id"`
	SessionTitle string    `json:"session_title"`
	At           time.Time `json:"at"`
	Excerpt      string    `json:"excerpt"`
}

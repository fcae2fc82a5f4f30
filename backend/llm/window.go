package llm

// A model's context window: how many tokens of prompt and answer it holds.
// The server knows best, and each kind says it its own way; then the table
// of well-known models; then a default (catalog.ContextWindow asks in that
// order). A window set by the user for a model overrides all of them (the
// caller's to apply).

// Window is a model's context size in tokens and where it was learned.
type Window struct {
	Tokens int `json:"tokens"`
	// Source is WindowServer, WindowKnown, WindowDefault or WindowUser.
	Source string `json:"source"`
}

// Where a Window came from.
const (
	WindowServer  = "server"  // the model's server said so
	WindowKnown   = "known"   // the table of well-known models
	WindowDefault = "default" // nothing knew the model
	WindowUser    = "user"    // set in Settings
)

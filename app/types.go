package app

import (
	"encoding/base64"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
	"github.com/agentdeck/agentdeck/backend/workflow"
)

// The requests and replies of the API (api.go) that are the app's own.
// Every one is a plain struct with snake_case JSON; the frontend's types of
// them are generated (frontend/typegen), so a field added here reaches the
// UI's types with `make types`.

// Done is the reply of a call that has nothing else to say: every API
// method answers (T, error), and these answer (Done, error). It is {} on
// the wire.
type Done struct{}

// NewSession is what CreateSession needs; empty fields take the defaults.
type NewSession struct {
	Title     string `json:"title,omitempty"`
	Provider  string `json:"provider,omitempty"`
	Model     string `json:"model,omitempty"`
	Workflow  string `json:"workflow,omitempty"`
	Workspace string `json:"workspace,omitempty"`
	// ProjectID puts the session in a project: it starts on the project's
	// provider, model and workflow (unless given here), and inherits the
	// project's instructions, sampling, limits and MCP servers until it
	// sets its own.
	ProjectID string `json:"project_id,omitempty"`
	// Settings is the session's own layer (instructions, sampling).
	Settings turn.RunSettings `json:"settings,omitzero"`
}

// SendRequest sends a message to a session.
type SendRequest struct {
	SessionID string `json:"session_id"`
	Message   string `json:"message"`
	Workflow  string `json:"workflow,omitempty"`
	Model     string `json:"model,omitempty"`
	// Limits bound the turn; none (the zero value) takes the settings'.
	Limits turn.Limits `json:"limits,omitzero"`
	// Attach lists files (paths on this machine) to load as tables.
	Attach []string `json:"attach,omitempty"`
	// Force stores the turn even when the database is damaged: the person
	// saw the Damaged error of a first try and confirmed.
	Force bool `json:"force,omitempty"`
	// OverBudget sends past the provider's spent monthly budget: the
	// person saw the OverBudget error of a first try and agreed. A
	// provider whose budget refuses ignores it.
	OverBudget bool `json:"over_budget,omitempty"`
	// Parent is the turn the message follows: given the parent of an
	// existing turn, it is a new version of that turn (an edit). Empty
	// follows the session's active turn.
	Parent string `json:"parent,omitempty"`
	// VersionOf makes the message a new version of that turn (an edit, a
	// regeneration, a retry): it follows what that turn follows, and a
	// first message's version starts the session anew. It overrides
	// Parent.
	VersionOf string `json:"version_of,omitempty"`
	// Continue continues the answer of that turn (stopped, or ended at a
	// limit) in a turn that follows it; Message is not needed.
	Continue string `json:"continue,omitempty"`
	// Images go with the message, for a model that sees.
	Images []ImageData `json:"images,omitempty"`
	// Settings is this turn's own layer over the session's (a value set
	// here is for this message only: turn.LayerTurn).
	Settings turn.RunSettings `json:"settings,omitzero"`
}

// ImageData is an image with its bytes: one sent with a message, or one
// read back (GetImage) to show.
type ImageData struct {
	// ID names a stored image ("" for one being sent).
	ID     string `json:"id,omitempty"`
	Name   string `json:"name"`
	MIME   string `json:"mime"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	// Data is the bytes, base64.
	Data string `json:"data"`
}

// imageData is an image as the API hands it over.
func imageData(im llm.Image) ImageData {
	return ImageData{ID: im.ID, Name: im.Name, MIME: im.MIME, Width: im.Width, Height: im.Height, Data: base64.StdEncoding.EncodeToString(im.Data)}
}

// ExportOptions change what ExportSession writes.
type ExportOptions struct {
	// AllBranches writes every branch into Markdown and JSONL, not only
	// the active one (JSON always holds all).
	AllBranches bool `json:"all_branches,omitempty"`
}

// TurnTree is a session's turns as a tree (API.SessionTree).
type TurnTree struct {
	Turns      []store.Turn `json:"turns"`
	ActivePath []string     `json:"active_path"`
}

// TurnRef names a started turn.
type TurnRef struct {
	TurnID    string `json:"turn_id"`
	SessionID string `json:"session_id"`
	// Seq is the turn's number in its session.
	Seq int `json:"seq"`
}

// RerunOptions change what a re-run uses.
type RerunOptions struct {
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	Workflow string `json:"workflow,omitempty"`
}

// ExportReply is an exported session.
type ExportReply struct {
	Filename string `json:"filename"`
	Content  string `json:"content"`
}

// ProviderView is a provider as the UI sees it: the key is never sent,
// only whether one is stored and its masked tail.
type ProviderView struct {
	llm.Provider
	HasKey    bool   `json:"has_key"`
	MaskedKey string `json:"masked_key"`
}

// ProviderInput saves a provider; APIKey, when set, goes to the keyring.
type ProviderInput struct {
	Provider llm.Provider `json:"provider"`
	APIKey   string       `json:"api_key,omitempty"`
}

// TestReply is the outcome of a connection test. A failed test is a reply
// with Error set, not an error: the settings screen shows it in place.
type TestReply struct {
	OK     bool     `json:"ok"`
	Models []string `json:"models"`
	Error  string   `json:"error,omitempty"`
}

// WorkflowList is the workflows a session can use, and the problems of
// workflow files that did not load.
type WorkflowList struct {
	Workflows []WorkflowInfo     `json:"workflows"`
	Problems  []workflow.Problem `json:"problems"`
}

// WorkflowInfo describes one workflow.
type WorkflowInfo struct {
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Kind        workflow.Kind `json:"kind"`
	Source      string        `json:"source"`
}

// ApprovalAnswer answers a pending approval.
type ApprovalAnswer struct {
	// TurnID is the turn that asks: a call id is the model's, and two
	// turns may wait on the same one ("" reaches a call id only one waits on).
	TurnID string      `json:"turn_id,omitempty"`
	CallID string      `json:"call_id"`
	Answer turn.Answer `json:"answer"`
}

// Status describes the state of the backend for the UI's status line.
type Status struct {
	Version       string `json:"version"`
	DBPath        string `json:"db_path"`
	SchemaVersion int    `json:"schema_version"`
	// DBError is set when the database could not be opened; the UI shows it
	// and stays usable for settings.
	DBError *apperr.Error `json:"db_error,omitempty"`
	// Providers is how many providers are saved (0: show onboarding).
	Providers int `json:"providers"`
	// Damaged is set once a read or a write has met damage in the
	// database: what is damaged and what to do, for the UI's banner.
	Damaged string `json:"damaged,omitempty"`
}

// AboutInfo is what the About box shows: the build, the platform, where
// the data lives and how much room the database takes, and where to read
// about Agentdeck or report a problem. Its "Copy details" is this, as text.
type AboutInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	GoVersion string `json:"go_version"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	// DataDir is the database's folder, where the workflows, mcp.json,
	// the session data and the log are kept beside it.
	DataDir string `json:"data_dir"`
	DBPath  string `json:"db_path"`
	// DBBytes is what the database takes on disk: the file, its
	// write-ahead log (-wal) and its shared index (-shm); a missing one
	// counts 0.
	DBBytes int64 `json:"db_bytes"`
	// DBError is set when the database could not be opened: why.
	DBError *apperr.Error `json:"db_error,omitempty"`
	// LogPath is the log file, when there is one.
	LogPath string `json:"log_path,omitempty"`
	Links   []Link `json:"links"`
}

// Link is a web page the UI offers to open outside the app.
type Link struct {
	Label string `json:"label"`
	URL   string `json:"url"`
}

// ReadyReport is what the UI tells the backend once its shell is on screen.
type ReadyReport struct {
	// VersionShown is the version text as rendered in the page.
	VersionShown string `json:"version_shown"`
	// Regions lists the shell regions found in the DOM with a non-zero size.
	Regions []string `json:"regions"`
	Width   int      `json:"width"`
	Height  int      `json:"height"`
}

// Settings are the app-wide preferences.
type Settings = store.AppSettings

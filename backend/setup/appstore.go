package setup

import (
	"context"
	"io"

	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// AppStore is the database as a user interface's app uses it (the window
// and the browser mode: package app): what Build needs for the engine,
// and what the app reads and writes itself. It is declared here, below
// both app and the command line, so that the command line can open the
// database and hand it to main, and main to app.Open, as this interface:
// neither side names the SQLite store. *store.DB is one (checked in
// setup_test.go); the planned store on PostgreSQL is to be another.
//
// An AppStore that could not be opened is a nil interface, never one
// holding a nil *store.DB: callers convert only a store that opened.
type AppStore interface {
	Store         // the engine's: Build
	export.Source // ExportSession

	// EventsAfter serves stored events: the hub's back-fill.
	EventsAfter(ctx context.Context, turnID string, after int64, limit int) ([]turn.Event, error)

	// Sessions.
	ListSessions(ctx context.Context, p store.Page) (store.SessionPage, error)
	CreateSession(ctx context.Context, s store.Session) (store.Session, error)
	GetSession(ctx context.Context, id string) (store.Session, error)
	RenameSession(ctx context.Context, id, title string) error
	UpdateSession(ctx context.Context, s store.Session) error
	DeleteSession(ctx context.Context, id string) error
	Search(ctx context.Context, query string, limit int) ([]store.SearchHit, error)
	SearchIn(ctx context.Context, query string, limit int, sc store.Scope) ([]store.SearchHit, error)
	Import(ctx context.Context, r io.Reader) (store.Session, error)
	ImportDocuments(ctx context.Context, docs []export.Document) ([]store.Session, error)

	// Projects, and keeping sessions in order.
	ListProjects(ctx context.Context) ([]store.ProjectSummary, error)
	GetProject(ctx context.Context, idOrName string) (store.Project, error)
	CreateProject(ctx context.Context, p store.Project) (store.Project, error)
	UpdateProject(ctx context.Context, p store.Project) error
	DeleteProject(ctx context.Context, id, sessions string) ([]string, error)
	MoveSession(ctx context.Context, sessionID, projectID string) error
	PinSession(ctx context.Context, sessionID string, pinned bool) error
	ArchiveSession(ctx context.Context, sessionID string, archived bool) error
	SetTags(ctx context.Context, sessionID string, tags []string) error
	ListTags(ctx context.Context) ([]store.TagCount, error)
	SettingsFor(ctx context.Context, sessionID string) ([]turn.Layer, error)

	// The prompt library.
	ListPrompts(ctx context.Context, projectID string) ([]store.Prompt, error)
	SavePrompt(ctx context.Context, p store.Prompt) (store.Prompt, error)
	DeletePrompt(ctx context.Context, id string) error
	PromptEntries(ctx context.Context, projectID string) ([]store.PromptEntry, error)
	ImportPrompts(ctx context.Context, entries []store.PromptEntry) (store.PromptImport, error)

	// Turns, and those of processes that died.
	GetTurn(ctx context.Context, id string, withEvents bool) (store.TurnDetail, error)
	ListTurns(ctx context.Context, sessionID string, p store.Page) (store.TurnPage, error)
	ListBranch(ctx context.Context, sessionID string, p store.Page) (store.BranchPage, error)
	Image(ctx context.Context, id string) (llm.Image, error)
	UserImages(ctx context.Context, turnID string) ([]llm.Image, error)
	History(ctx context.Context, sessionID string, beforeSeq int) ([]llm.Message, error)
	PathHistory(ctx context.Context, turnID string) ([]llm.Message, error)
	TurnOwnership(ctx context.Context, turnID string) (store.Ownership, error)
	RecoverTurn(ctx context.Context, turnID string) (bool, error)
	RecoverOrphans(ctx context.Context, sessionID string) ([]store.Orphan, error)

	// Evaluation runs and their results: what running a suite needs, and
	// the runs list.
	eval.SuiteStore
	EvalRunTallies(ctx context.Context, suite string, limit int) ([]store.EvalRunTally, error)

	// The turn tree: branches, versions, forks.
	SessionTree(ctx context.Context, sessionID string) ([]store.Turn, []string, error)
	SwitchBranch(ctx context.Context, turnID string) (string, error)
	CountTurnsFrom(ctx context.Context, turnID string) (int, error)
	DeleteTurn(ctx context.Context, turnID string) (int, error)
	ForkSession(ctx context.Context, turnID string) (store.Session, error)

	// Side by side: groups of columns, and votes on them.
	GroupChain(ctx context.Context, id string) ([]store.TurnGroup, error)
	OpenGroup(ctx context.Context, groupID string) error
	ContinueWith(ctx context.Context, turnID string) (string, error)
	SaveVote(ctx context.Context, v store.Vote) (store.Vote, error)
	ListVotes(ctx context.Context, f store.VoteFilter) ([]store.VoteRecord, error)

	// Human review of turns and their steps.
	SaveReview(ctx context.Context, r turn.Review) (turn.Review, error)
	ReviewsFor(ctx context.Context, turnIDs []string) ([]turn.Review, error)
	ListReviewed(ctx context.Context, f store.ReviewFilter) ([]store.ReviewedTurn, error)
	ReviewLabels(ctx context.Context, prefix string, limit int) ([]store.LabelCount, error)
	VoteTargets(ctx context.Context, f store.VoteFilter) ([]string, error)

	// Providers and preferences.
	ListProviders(ctx context.Context) ([]llm.Provider, error)
	SaveProvider(ctx context.Context, p llm.Provider) error
	DeleteProvider(ctx context.Context, name string) error
	AppSettings(ctx context.Context) (store.AppSettings, error)
	SaveAppSettings(ctx context.Context, st store.AppSettings) error

	// Usage and cost, for the Usage page.
	Usage(ctx context.Context, q store.UsageQuery) (store.UsageReport, error)

	// Health, for Status.
	SchemaVersion(ctx context.Context) (int, error)
	Damaged() (bool, string)
}

package runner

import (
	"context"
	"encoding/json"

	"github.com/agentdeck/agentdeck/backend/knowledge"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/recall"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// The database as the runner uses it: the few methods of the store each
// part of a turn needs, declared here, where they are used. *store.DB is
// one implementation; a test may give another (fakestore_test.go fakes the
// providers and model facts in memory). The per-turn handles (the event
// log, the recorder of model calls, a replay's recordings) are interfaces
// of the store package, so another store can give its own.

// Store is everything the runner reads and writes.
type Store interface {
	// Documents and their passages (knowledge.Library).
	knowledge.Store
	turnStore
	diskStore
	recordingStore
	replayStore
	approvalStore
	providerStore
	factsStore
	budgetStore
	meterStore
	settingsStore
	recall.Searcher // the recall tool
}

var _ Store = (*store.DB)(nil)

// turnStore starts and ends a turn: the session it belongs to, the
// conversation so far, the turn's row, how it runs and its event log.
type turnStore interface {
	GetSession(ctx context.Context, id string) (store.Session, error)
	ContinuationOf(ctx context.Context, turnID string) (string, error)
	UserImages(ctx context.Context, turnID string) ([]llm.Image, error)
	PathHistory(ctx context.Context, turnID string) ([]llm.Message, error)
	StartTurn(ctx context.Context, t store.Turn, opts ...store.StartOptions) (store.Turn, error)
	CreateGroup(ctx context.Context, g store.TurnGroup) (store.TurnGroup, error)
	GetGroup(ctx context.Context, id string) (store.TurnGroup, error)
	SetTurnRun(ctx context.Context, turnID string, run json.RawMessage) error
	NewEventLog(turnID string, opts store.EventLogOptions) store.EventLog
	FinishTurn(ctx context.Context, turnID string, from int, res turn.Result) error
}

// diskStore is where the database lives, and the reserve that lets a turn
// stopped by a full disk still store its ending (see diskfull.go).
type diskStore interface {
	Path() string
	KeepReserve() error
	ReleaseReserve(ctx context.Context) int64
	NoteEnding(turnID string, res turn.Result) error
}

// recordingStore keeps a turn's model calls (Captures, to record and link
// them) and serves a recorded turn's calls in order (TurnRecordings).
type recordingStore interface {
	Captures(turnID string) store.Captures
	TurnRecordings(turnID string) store.TurnRecordings
}

// replayStore reads what a replay needs of the original turn.
type replayStore interface {
	GetTurn(ctx context.Context, id string, withEvents bool) (store.TurnDetail, error)
	TurnRun(ctx context.Context, turnID string) (json.RawMessage, error)
	ToolResults(ctx context.Context, turnID string) ([]store.ToolResult, error)
	ListApprovals(ctx context.Context, turnID string) ([]store.Approval, error)
	TurnRecordings(turnID string) store.TurnRecordings
}

// approvalStore keeps every approval answer with its turn.
type approvalStore interface {
	RecordApproval(ctx context.Context, a store.Approval) (store.Approval, error)
}

// providerStore lists the configured model servers.
type providerStore interface {
	ListProviders(ctx context.Context) ([]llm.Provider, error)
}

package store

import (
	"context"

	"github.com/agentdeck/agentdeck/backend/llm/recording"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// The handles a store gives for one turn: its event log, the recorder of
// its model calls and the recordings a replay serves. They are interfaces,
// not the SQLite types behind them, so that whoever takes a store through
// an interface (runner.Store) can be given another store (a second one, on
// PostgreSQL, is planned) or a test's fake. Go has no covariant results:
// an interface method returning a handle must name the handle's type, so
// the types live here, beside the domain types every store shares.

// EventLog is where a turn's events are stored as they happen (a
// turn.Sink). See NewEventLog for the ordering and full-disk rules.
type EventLog interface {
	turn.Sink
	// Flush writes the events emitted so far.
	Flush() error
	// OnFull sets the function called once when a write fails for a full
	// disk; it must not block.
	OnFull(fn func(error))
	// Close flushes what is left and stops retrying.
	Close() error
	// Answer is the answer text the stored events hold, and the text of
	// every token event emitted (stored or not).
	Answer(ctx context.Context) (stored, emitted string, err error)
}

// Captures records one turn's model calls, serves recordings by key, and
// links a recording served again to the turn (recording's recorder and replay
// use it).
type Captures interface {
	recording.Store
	recording.BlocksPutter
	recording.Lister
	recording.Linker
}

// TurnRecordings serves one turn's recorded model calls in call order, for
// replaying that turn.
type TurnRecordings interface {
	recording.TurnRecordings
	// Count is how many recorded calls the turn has.
	Count(ctx context.Context) (int, error)
}

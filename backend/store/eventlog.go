package store

import (
	"context"
	"database/sql"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/agentdeck/agentdeck/backend/agent"
)

// EventLog is the store's event sink for one turn. Events are buffered and
// written in batches, one transaction per batch: at every checkpoint event
// at once, and otherwise at most FlushEvery after the first unwritten event.
// A crash loses at most the events of the last FlushEvery.
//
// Batches are written in order (flushMu is held from taking a batch until
// it is committed), so what is stored is always a prefix of the turn's
// events. A failed write (disk full) keeps the batch for the next flush;
// nothing is dropped.
type EventLog struct {
	db         *DB
	turnID     string
	flushEvery time.Duration
	log        *slog.Logger

	mu      sync.Mutex
	buf     []agent.Event
	timer   *time.Timer
	lastErr error

	flushMu   sync.Mutex
	heartbeat time.Time
}

// EventLogOptions tune NewEventLog.
type EventLogOptions struct {
	FlushEvery time.Duration // default 50 ms
	Logger     *slog.Logger
}

// NewEventLog returns the sink for a turn's events.
func (db *DB) NewEventLog(turnID string, opts EventLogOptions) *EventLog {
	if opts.FlushEvery <= 0 {
		opts.FlushEvery = 50 * time.Millisecond
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &EventLog{db: db, turnID: turnID, flushEvery: opts.FlushEvery, log: opts.Logger, heartbeat: time.Now()}
}

// Emit implements agent.Sink.
func (l *EventLog) Emit(e agent.Event) error {
	l.mu.Lock()
	l.buf = append(l.buf, e)
	if !e.Checkpoint {
		if l.timer == nil {
			l.timer = time.AfterFunc(l.flushEvery, func() {
				if err := l.Flush(); err != nil {
					l.log.Error("writing events failed; will retry", "turn", l.turnID, "err", err)
				}
			})
		}
		l.mu.Unlock()
		return nil
	}
	l.mu.Unlock()
	return l.Flush()
}

// Flush writes every buffered event now.
func (l *EventLog) Flush() error {
	l.flushMu.Lock()
	defer l.flushMu.Unlock()
	l.mu.Lock()
	batch := l.buf
	l.buf = nil
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	l.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	err := l.write(batch)
	if err != nil {
		// Keep the batch in front of anything emitted meanwhile.
		l.mu.Lock()
		l.buf = append(batch, l.buf...)
		l.lastErr = err
		if l.timer == nil {
			l.timer = time.AfterFunc(time.Second, func() { _ = l.Flush() })
		}
		l.mu.Unlock()
	}
	return err
}

// Close flushes and stops the timer. It returns the last write error if
// events could not be stored.
func (l *EventLog) Close() error {
	return l.Flush()
}

func (l *EventLog) write(batch []agent.Event) error {
	ctx := context.Background()
	tx, err := l.db.writer.BeginTx(ctx, nil)
	if err != nil {
		return writeError(err, "saving events")
	}
	defer tx.Rollback()
	if err := insertEvents(ctx, tx, l.turnID, batch); err != nil {
		return writeError(err, "saving events")
	}
	if now := time.Now(); now.Sub(l.heartbeat) > time.Second {
		l.heartbeat = now
		if _, err := tx.ExecContext(ctx, `UPDATE turns SET heartbeat_at = ? WHERE id = ?`, fmtTime(now), l.turnID); err != nil {
			return writeError(err, "saving events")
		}
	}
	if err := tx.Commit(); err != nil {
		return writeError(err, "saving events")
	}
	return nil
}

// eventsPerInsert rows go in one multi-row INSERT: one statement call per
// 64 events instead of one per event (10 parameters a row, well under
// SQLite's limit).
const eventsPerInsert = 64

const eventColumns = `INSERT OR IGNORE INTO events (turn_id, seq, id, stage_id, parent_id, at, type, phase, checkpoint, data) VALUES `

func insertEvents(ctx context.Context, tx *sql.Tx, turnID string, batch []agent.Event) error {
	var full *sql.Stmt
	args := make([]any, 0, eventsPerInsert*10)
	for len(batch) > 0 {
		n := min(len(batch), eventsPerInsert)
		args = args[:0]
		for _, e := range batch[:n] {
			at, _ := e.At.MarshalJSON()
			args = append(args, turnID, e.Seq, e.ID, e.StageID, e.ParentID, string(at[1:len(at)-1]), string(e.Type), string(e.Phase), e.Checkpoint, string(e.Data))
		}
		var err error
		if n == eventsPerInsert {
			if full == nil {
				if full, err = tx.PrepareContext(ctx, eventColumns+valuesList(n)); err != nil {
					return err
				}
				defer full.Close()
			}
			_, err = full.ExecContext(ctx, args...)
		} else {
			_, err = tx.ExecContext(ctx, eventColumns+valuesList(n), args...)
		}
		if err != nil {
			return err
		}
		batch = batch[n:]
	}
	return nil
}

// valuesList returns n "(?, ..., ?)" groups of ten placeholders.
func valuesList(n int) string {
	const row = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
	return strings.Repeat(row+", ", n-1) + row
}

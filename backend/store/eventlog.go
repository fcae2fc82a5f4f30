package store

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/agentdeck/agentdeck/backend/turn"
)

// eventLog is the store's event sink for one turn (EventLog). Events are buffered and
// written in batches, one transaction per batch: at every checkpoint event
// at once, and otherwise at most FlushEvery after the first unwritten event.
// A crash loses at most the events of the last FlushEvery.
//
// Batches are written in order (flushMu is held from taking a batch until
// it is committed), so what is stored is always a prefix of the turn's
// events. A failed write (disk full) keeps the batch for the next flush,
// retried every second until Close; nothing is dropped before Close. The
// first write that fails for a full disk calls the OnFull function, so the
// runner can stop a turn the store no longer keeps up with.
type eventLog struct {
	db         *DB
	turnID     string
	flushEvery time.Duration
	log        *slog.Logger

	mu sync.Mutex
	// buf holds the unwritten events in order, in blocks of up to
	// eventBlock. A long answer buffers tens of thousands of events a
	// batch; growing one array for them copied each event again at every
	// growth, into fresh memory, a tenth of a token's cost. Written blocks
	// go back to the DB's pool for the next batch.
	buf     [][]turn.Event
	timer   *time.Timer
	lastErr error
	closed  bool
	onFull  func(error)
	full    bool // a write failed for a full disk

	flushMu   sync.Mutex
	heartbeat time.Time
}

// EventLogOptions tune NewEventLog.
type EventLogOptions struct {
	FlushEvery time.Duration // default 50 ms
	Logger     *slog.Logger
}

// NewEventLog returns the sink for a turn's events.
func (db *DB) NewEventLog(turnID string, opts EventLogOptions) EventLog {
	if opts.FlushEvery <= 0 {
		opts.FlushEvery = 50 * time.Millisecond
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &eventLog{db: db, turnID: turnID, flushEvery: opts.FlushEvery, log: opts.Logger, heartbeat: time.Now()}
}

// Emit implements turn.Sink.
func (l *eventLog) Emit(e turn.Event) error {
	l.mu.Lock()
	if n := len(l.buf); n == 0 || len(l.buf[n-1]) == cap(l.buf[n-1]) {
		l.buf = append(l.buf, l.db.eventBlock())
	}
	last := &l.buf[len(l.buf)-1]
	*last = append(*last, e)
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
func (l *eventLog) Flush() error {
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
	if err == nil {
		for _, b := range batch {
			l.db.putEventBlock(b)
		}
	} else {
		// Keep the batch in front of anything emitted meanwhile.
		l.mu.Lock()
		l.buf = append(batch, l.buf...)
		l.lastErr = err
		if l.timer == nil && !l.closed {
			l.timer = time.AfterFunc(time.Second, func() { _ = l.Flush() })
		}
		var notify func(error)
		if IsDiskFull(err) && !l.full {
			l.full, notify = true, l.onFull
		}
		l.mu.Unlock()
		if notify != nil {
			notify(err)
		}
	}
	return err
}

// OnFull sets fn to be called once, the first time a batch cannot be
// written because the disk is full. fn is called from the goroutine that
// flushed (an Emit of a checkpoint event, or the flush timer), with no lock
// of the eventLog held; it must not block.
func (l *eventLog) OnFull(fn func(error)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.onFull = fn
}

// Close flushes once more and stops retrying: events that still cannot be
// written are dropped, and the error says so. The turn's stored events stay
// a prefix of what was emitted.
func (l *eventLog) Close() error {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	err := l.Flush()
	l.mu.Lock()
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	l.mu.Unlock()
	l.db.idx.poke()
	return err
}

// Answer is the answer of the model call under way, the token texts
// emitted after the last think_start: stored is the part whose events are
// in the database, emitted all of it, so stored is always a prefix of
// emitted. Call it when no more events come (the turn has run).
func (l *eventLog) Answer(ctx context.Context) (stored, emitted string, err error) {
	l.flushMu.Lock() // no batch in flight: l.buf holds every unwritten event
	defer l.flushMu.Unlock()
	if stored, err = l.db.storedAnswer(ctx, l.turnID); err != nil {
		return "", "", err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	b.WriteString(stored)
	for _, block := range l.buf {
		for _, e := range block {
			switch e.Type {
			case turn.EventThinkStart:
				// The stored tokens, if any, belonged to an earlier call.
				b.Reset()
				stored = ""
			case turn.EventToken:
				b.WriteString(e.StreamedText())
			}
		}
	}
	return stored, b.String(), nil
}

// eventBlock is how many events a block of an eventLog's buffer holds
// (about 200 KB).
const eventBlock = 1024

// eventBlock returns an empty block, an earlier batch's if there is one.
func (db *DB) eventBlock() []turn.Event {
	if b, ok := db.eventBlocks.Get().(*[]turn.Event); ok {
		return (*b)[:0]
	}
	return make([]turn.Event, 0, eventBlock)
}

// putEventBlock empties a written block, letting its events' data go, and
// keeps it for the next batch.
func (db *DB) putEventBlock(b []turn.Event) {
	if cap(b) != eventBlock {
		return
	}
	clear(b)
	b = b[:0]
	db.eventBlocks.Put(&b)
}

func (l *eventLog) write(batch [][]turn.Event) error {
	ctx := context.Background()
	return l.db.tx(ctx, "saving events", func(tx *sql.Tx) error {
		for _, b := range batch {
			// A run of tokens that spans two blocks is stored as two rows,
			// which read back as the same events (eventrun.go).
			if err := insertEvents(ctx, tx, l.turnID, b); err != nil {
				return err
			}
		}
		if now := time.Now(); now.Sub(l.heartbeat) > time.Second {
			l.heartbeat = now
			if _, err := tx.ExecContext(ctx, `UPDATE turns SET heartbeat_at = ? WHERE id = ?`, fmtTime(now), l.turnID); err != nil {
				return err
			}
		}
		return nil
	})
}

// eventsPerInsert rows go in one multi-row INSERT: one statement call per
// 64 rows instead of one per row (11 parameters a row, well under
// SQLite's limit).
const eventsPerInsert = 64

const eventColumns = `INSERT INTO events (turn_id, seq, run_len, id, stage_id, parent_id, at, type, phase, checkpoint, data) VALUES `

// eventConflict keeps a batch written again whole: a write whose commit
// reported an error may have landed. The batch comes back with any events
// emitted since after it, so a run may now be longer; what was stored is
// its prefix, and the longer run replaces it.
const eventConflict = ` ON CONFLICT (turn_id, seq) DO UPDATE SET run_len = excluded.run_len, data = excluded.data WHERE excluded.run_len > events.run_len`

// insertEvents stores a batch of a turn's events in order: each run of
// consecutive token (or reasoning) events as one row (eventrun.go), every
// other event as its own.
func insertEvents(ctx context.Context, tx *sql.Tx, turnID string, batch []turn.Event) error {
	var full *sql.Stmt
	args := make([]any, 0, eventsPerInsert*11)
	// The data of the batch's runs, written into one string of their
	// size, each row's a part of it: a long answer's batch holds
	// megabytes of runs, and a buffer grown run by run, then copied into
	// each row's string, allocated five times that. The builder never
	// changes what it has written, so the parts stay valid.
	var runs strings.Builder
	runs.Grow(runDataSize(turnID, batch))
	var scratch []byte
	var finalText, result string
	read := false
	column := func() (string, string, error) { // the turn's ending, for terminalRef
		if !read {
			read = true
			if err := tx.QueryRowContext(ctx, `SELECT final_text, result FROM turns WHERE id = ?`, turnID).Scan(&finalText, &result); err != nil && !errors.Is(err, sql.ErrNoRows) {
				return "", "", err
			}
		}
		return finalText, result, nil
	}
	for len(batch) > 0 {
		args = args[:0]
		rows := 0
		for rows < eventsPerInsert && len(batch) > 0 {
			n := runLength(batch)
			e := &batch[0]
			at, _ := e.At.MarshalJSON()
			data := string(e.Data)
			if ref, err := terminalRef(e, column); err != nil {
				return err
			} else if ref != "" {
				data = ref
			}
			if n > 1 {
				from := runs.Len()
				var text bool
				if scratch, text = textRun(turnID, batch[:n], scratch); text {
					scratch = writeRunText(&runs, batch[:n], scratch)
				} else {
					writeRunData(&runs, batch[:n])
				}
				data = runs.String()[from:]
			}
			args = append(args, turnID, e.Seq, n, e.ID, e.StageID, e.ParentID, string(at[1:len(at)-1]), string(e.Type), string(e.Phase), e.Checkpoint, data)
			batch = batch[n:]
			rows++
		}
		var err error
		if rows == eventsPerInsert {
			if full == nil {
				if full, err = tx.PrepareContext(ctx, eventColumns+valuesList(rows)+eventConflict); err != nil {
					return err
				}
				defer full.Close()
			}
			_, err = full.ExecContext(ctx, args...)
		} else {
			_, err = tx.ExecContext(ctx, eventColumns+valuesList(rows)+eventConflict, args...)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// valuesList returns n "(?, ..., ?)" groups of eleven placeholders.
func valuesList(n int) string {
	const row = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
	return strings.Repeat(row+", ", n-1) + row
}

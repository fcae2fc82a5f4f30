package traces

import (
	"context"
	"sync"
	"time"
)

// Live is where the engine sends ended turns: the exporter of the moment,
// none (off) until one is set, swapped when the settings change. The
// runner calls TurnEnded from the turn's goroutine; it never blocks.
type Live struct {
	mu    sync.Mutex
	exp   *Exporter
	watch func(ExporterStatus)
}

// TurnEnded hands a stored turn to the current exporter, if any.
func (l *Live) TurnEnded(sessionID, turnID string) {
	l.mu.Lock()
	e := l.exp
	l.mu.Unlock()
	e.TurnEnded(sessionID, turnID)
}

// Status is the current exporter's, or off.
func (l *Live) Status() ExporterStatus {
	l.mu.Lock()
	e := l.exp
	l.mu.Unlock()
	return e.Status()
}

// Watch has fn told of every change of status, of this exporter and the
// ones set after it (and of a swap).
func (l *Live) Watch(fn func(ExporterStatus)) {
	l.mu.Lock()
	l.watch = fn
	e := l.exp
	l.mu.Unlock()
	e.Watch(fn)
}

// Set makes e the exporter (nil: off) and shuts the one before down,
// sending what it holds within wait.
func (l *Live) Set(e *Exporter, wait time.Duration) {
	l.mu.Lock()
	old := l.exp
	l.exp = e
	fn := l.watch
	l.mu.Unlock()
	e.Watch(fn)
	if fn != nil {
		fn(e.Status())
	}
	if old != nil {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		_ = old.Shutdown(ctx)
	}
}

// Close shuts the exporter down, sending what it holds within wait.
func (l *Live) Close(wait time.Duration) {
	l.mu.Lock()
	old := l.exp
	l.exp = nil
	l.mu.Unlock()
	if old != nil {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		_ = old.Shutdown(ctx)
	}
}

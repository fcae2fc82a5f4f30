package store

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// runWatch follows a worker's runs for a test, through Options.afterIndex
// or afterCheckpoint: wait blocks until a run that began after the
// worker's latest poke has ended.
type runWatch struct {
	mu      sync.Mutex
	seen    uint64
	changed chan struct{}
}

func newRunWatch() *runWatch { return &runWatch{changed: make(chan struct{}, 1)} }

func (r *runWatch) after(seen uint64) {
	r.mu.Lock()
	r.seen = max(r.seen, seen)
	r.mu.Unlock()
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

func (r *runWatch) wait(t *testing.T, w *worker) {
	t.Helper()
	target := w.pokes.Load()
	timeout := time.After(time.Minute) // the whole wait's bound, not a poll
	for {
		r.mu.Lock()
		done := r.seen >= target
		r.mu.Unlock()
		if done {
			return
		}
		select {
		case <-r.changed:
		case <-timeout:
			t.Fatalf("no run of the worker after poke %d within a minute", target)
		}
	}
}

// openWatched opens a database whose indexer and checkpointer runs the
// test can wait for.
func openWatched(t *testing.T) (db *DB, index, ckpt *runWatch) {
	t.Helper()
	index, ckpt = newRunWatch(), newRunWatch()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "agentdeck.db"), Options{afterIndex: index.after, afterCheckpoint: ckpt.after})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, index, ckpt
}

// TestWorkerFoldsWakesAndStops: a worker runs only when poked; pokes
// while the job runs fold into one more run, never lost and never queued
// one by one; halt waits for the
// run under way, twice is harmless, and a nil worker does nothing.
func TestWorkerFoldsWakesAndStops(t *testing.T) {
	// Not parallel: goleak would count the goroutines of tests running beside it.
	defer goleak.VerifyNone(t)
	started, release := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	runs := 0
	w := startWorker(func() {
		mu.Lock()
		runs++
		first := runs == 1
		mu.Unlock()
		if first {
			close(started)
			<-release
		}
	}, nil)
	w.poke()
	<-started // the first run holds the worker
	for range 100 {
		w.poke()
	}
	watch := newRunWatch()
	w.after = watch.after // no run reads it yet: the first is held
	close(release)
	watch.wait(t, w)
	w.halt()
	w.halt()
	mu.Lock()
	defer mu.Unlock()
	if runs != 2 {
		t.Fatalf("%d runs for a poke and 100 pokes during its run, want 2", runs)
	}
	var none *worker
	none.poke()
	none.halt()
}

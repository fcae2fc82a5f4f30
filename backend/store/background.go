package store

import (
	"sync"
	"sync/atomic"
)

// The DB's background work, off every caller's path: the search entries
// of finished turns (indexer.go) and checkpoints of the write-ahead log
// (checkpoint.go). Each is a worker: one goroutine, from Open to Close,
// that runs its job when woken.

// worker runs job in its own goroutine each time it is woken. Wakes that
// come while the job runs fold into one more run, so a burst of them costs
// at most two. A nil worker (a read-only DB has none) does nothing.
type worker struct {
	job func()
	// after, if set, is called after each run with the number of pokes
	// before it began, so a test can wait for a run that saw its poke.
	after func(seen uint64)
	pokes atomic.Uint64
	wake  chan struct{}
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
}

// startWorker starts a worker for job; it first runs when poked.
func startWorker(job func(), after func(seen uint64)) *worker {
	w := &worker{job: job, after: after, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go w.loop()
	return w
}

func (w *worker) loop() {
	defer close(w.done)
	for {
		select {
		case <-w.stop:
			return
		case <-w.wake:
			seen := w.pokes.Load()
			w.job()
			if w.after != nil {
				w.after(seen)
			}
		}
	}
}

// poke wakes the worker; it never blocks.
func (w *worker) poke() {
	if w == nil {
		return
	}
	w.pokes.Add(1)
	select {
	case w.wake <- struct{}{}:
	default: // woken already: that run will see what this wake was for
	}
}

// halt stops the worker and waits for a run under way to end. It is safe
// to call more than once.
func (w *worker) halt() {
	if w == nil {
		return
	}
	w.once.Do(func() { close(w.stop) })
	<-w.done
}

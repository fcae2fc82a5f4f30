package sandbox

import (
	"context"
	"errors"
	"runtime"
	"runtime/metrics"
	"time"
)

// watchEvery is how often the watchdog looks at the heap.
const watchEvery = time.Millisecond

// heapObjects is the metric the watchdog reads: the bytes of the heap's
// objects, live ones and garbage not yet swept.
const heapObjects = "/memory/classes/heap/objects:bytes"

// watch starts the run's watchdog: it cancels the thread at once when
// parent ends (Stop), when wctx's deadline passes (the time limit), and
// when the heap has grown past the memory limit since the script began.
// The returned func stops the watchdog and waits for it.
func (r *run) watch(parent, wctx context.Context) func() {
	done := make(chan struct{})
	finished := make(chan struct{})
	mem := heapWatch{limit: uint64(r.lim.MaxMemoryBytes)}
	mem.base = mem.read()
	mem.nextGC = mem.base + mem.limit
	go func() {
		defer close(finished)
		tick := time.NewTicker(watchEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-wctx.Done():
				if parent.Err() == nil && errors.Is(wctx.Err(), context.DeadlineExceeded) {
					r.stop(LimitTime)
				} else {
					r.stopped.Store(true)
					r.thread.Cancel("stopped")
				}
				return
			case <-tick.C:
				if mem.over() {
					r.stop(LimitMemory)
					return
				}
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// heapWatch tells whether the heap grew past limit since base. The cheap
// reading counts garbage too, so a reading over the limit is confirmed by
// a collection before the script is stopped; after a collection that
// clears it, the next is not forced before the heap grew by another
// quarter of the limit, so a script near its limit does not collect at
// every tick.
type heapWatch struct {
	limit, base, nextGC uint64
	sample              [1]metrics.Sample
}

func (h *heapWatch) read() uint64 {
	h.sample[0].Name = heapObjects
	metrics.Read(h.sample[:])
	if h.sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return h.sample[0].Value.Uint64()
}

func (h *heapWatch) over() bool {
	cur := h.read()
	if cur < h.nextGC {
		return false
	}
	runtime.GC()
	cur = h.read()
	if cur > h.base+h.limit {
		return true
	}
	h.nextGC = max(h.base+h.limit, cur+h.limit/4)
	return false
}

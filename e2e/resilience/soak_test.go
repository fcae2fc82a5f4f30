package resilience_test

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/store"
)

var soakFlag = flag.Bool("soak", false, "run the full soak test: 10,000 turns with a memory-growth check (also AGENTDECK_SOAK=1)")

func soaking() bool { return *soakFlag || os.Getenv("AGENTDECK_SOAK") == "1" }

// soakPlan is how long the soak runs and when it measures.
type soakPlan struct {
	turns, sampleEvery, warmUp int
	turnsPerSession            int
	assertMemory               bool
}

// TestSoak runs many short turns on one engine and samples memory every
// sampleEvery turns. The normal run is a short smoke version; with -soak or
// AGENTDECK_SOAK=1 it runs 10,000 turns and requires memory to grow less
// than 10% from turn 1,000 to the end, measured two ways after a full GC:
// the Go heap in use, and the resident set (/proc/self/statm), which also
// sees SQLite's memory (modernc's C allocator lives outside the Go heap).
// The resident set is only checked without -race, whose shadow memory
// grows with every address it has seen.
//
// Each window of sampleEvery turns gets its own scripted server (closed at
// the end of its subtest), because the server keeps every request it has
// seen; sessions are short (turnsPerSession turns) so that no history grows
// without bound. What remains is the engine's own footprint.
func TestSoak(t *testing.T) {
	p := soakPlan{turns: 100, sampleEvery: 25, warmUp: 25, turnsPerSession: 10}
	if soaking() {
		p = soakPlan{turns: 10_000, sampleEvery: 500, warmUp: 1_000, turnsPerSession: 10, assertMemory: true}
	}
	r := newRig(t)
	var samples []memSample
	var sess store.Session
	start := time.Now()
	for window := 0; window*p.sampleEvery < p.turns; window++ {
		first := window * p.sampleEvery
		ok := t.Run(fmt.Sprintf("turns-%05d", first+1), func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Respond(func(req llmtest.Request) llmtest.Reply {
				return llmtest.Reply{Chunks: llmtest.Text("ok: "+lastContent(req), 2), Usage: &llmtest.Usage{PromptTokens: 20, CompletionTokens: 4}}
			})
			for n := first; n < min(first+p.sampleEvery, p.turns); n++ {
				if n%p.turnsPerSession == 0 {
					sess = r.session(t, "soak "+strconv.Itoa(n))
				}
				msg := "turn " + strconv.Itoa(n)
				tn := r.run(t, sess.ID, msg, via(srv))
				if !tn.res.OK || tn.stored.State != store.StateCompleted || tn.stored.FinalText != "ok: "+msg {
					t.Fatalf("turn %d: %s %q (%s)", n, tn.stored.State, tn.stored.FinalText, tn.errorMessage(t))
				}
			}
			if n := srv.Unscripted(); n != 0 {
				t.Fatalf("%d unscripted requests", n)
			}
		})
		if !ok {
			return
		}
		s := sampleMemory(min(first+p.sampleEvery, p.turns))
		samples = append(samples, s)
		t.Logf("after %5d turns (%v): heap in use %s, resident %s, goroutines %d", s.turns, time.Since(start).Round(time.Second), mib(s.heapInuse), mib(s.rss), s.goroutines)
	}
	page, err := r.db.ListTurns(ctx, sess.ID, store.Page{})
	if err != nil || len(page.Turns) != p.turnsPerSession {
		t.Fatalf("the last session has %d turns stored (%v)", len(page.Turns), err)
	}
	if !p.assertMemory {
		return
	}
	var base, last memSample
	for _, s := range samples {
		if s.turns == p.warmUp {
			base = s
		}
		last = s
	}
	check := func(what string, base, last uint64) {
		growth := float64(last)/float64(base) - 1
		t.Logf("%s grew %.1f%% from turn %d (%s) to turn %d (%s)", what, 100*growth, p.warmUp, mib(base), p.turns, mib(last))
		if growth >= 0.10 {
			t.Errorf("%s grew %.1f%% after warm-up: something keeps memory per turn", what, 100*growth)
		}
	}
	check("the heap in use", base.heapInuse, last.heapInuse)
	if !raceEnabled && base.rss > 0 {
		check("resident memory", base.rss, last.rss)
	}
}

type memSample struct {
	turns      int
	heapInuse  uint64
	rss        uint64
	goroutines int
}

// sampleMemory measures after a full collection, so that garbage not yet
// collected does not count as growth.
func sampleMemory(turns int) memSample {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return memSample{turns: turns, heapInuse: ms.HeapInuse, rss: residentBytes(), goroutines: runtime.NumGoroutine()}
}

// residentBytes reads the resident set size from /proc/self/statm (Linux);
// 0 elsewhere.
func residentBytes() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseUint(f[1], 10, 64)
	return pages * uint64(os.Getpagesize())
}

func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

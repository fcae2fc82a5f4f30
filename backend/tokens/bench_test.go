package tokens

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

// Counting 10 KB of English once the vocabulary is loaded.
func BenchmarkText(b *testing.B) {
	for _, model := range []string{"gpt-4o", "gpt-4", "llama-3"} {
		b.Run(string(MethodFor(model)), func(b *testing.B) {
			c := New()
			c.Text(model, "warm up") // load outside the timing
			b.SetBytes(int64(len(tenKB)))
			b.ReportAllocs()
			for b.Loop() {
				c.Text(model, tenKB)
			}
		})
	}
}

// The first use of each vocabulary: its load time and the heap it keeps.
// The library loads a vocabulary once per process, so each measurement
// runs in a fresh process (this test binary, running loadProbe).
func BenchmarkFirstUse(b *testing.B) {
	for _, model := range []string{"gpt-4o", "gpt-4"} {
		b.Run(string(MethodFor(model)), func(b *testing.B) {
			var load time.Duration
			var heap uint64
			for b.Loop() {
				r := runLoadProbe(b, model)
				load += r.Load
				heap += r.Heap
			}
			b.ReportMetric(load.Seconds()*1000/float64(b.N), "load-ms")
			b.ReportMetric(float64(heap)/float64(b.N)/1e6, "heap-MB")
		})
	}
}

const probeEnv = "AGENTDECK_TOKENS_LOAD_PROBE"

type probeResult struct {
	Load time.Duration // New and the first Text
	Heap uint64        // HeapAlloc after GC, less what it was before
}

func runLoadProbe(b *testing.B, model string) probeResult {
	cmd := exec.Command(os.Args[0], "-test.run=^TestLoadProbe$", "-test.count=1")
	cmd.Env = append(os.Environ(), probeEnv+"="+model)
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("load probe: %v\n%s", err, out)
	}
	var r probeResult
	for line := range bytes.Lines(out) {
		if json.Unmarshal(line, &r) == nil && r.Load > 0 {
			return r
		}
	}
	b.Fatalf("load probe printed no result:\n%s", out)
	return r
}

// TestLoadProbe is BenchmarkFirstUse's child process; it is skipped in
// ordinary runs.
func TestLoadProbe(t *testing.T) {
	model := os.Getenv(probeEnv)
	if model == "" {
		t.Skip("run by BenchmarkFirstUse")
	}
	before := heapAlloc()
	start := time.Now()
	c := New()
	c.Text(model, "hello world")
	load := time.Since(start)
	after := heapAlloc()
	runtime.KeepAlive(c)
	r, _ := json.Marshal(probeResult{Load: load, Heap: after - before})
	fmt.Printf("\n%s\n", r)
}

func heapAlloc() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

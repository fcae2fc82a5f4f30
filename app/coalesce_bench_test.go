package app

import (
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/turn"
)

// BenchmarkCoalescerBurst pushes 50,000 tokens as fast as possible and
// reports events per second through the coalescer and emits per 1,000
// events (one emit per event would be 1,000).
func BenchmarkCoalescerBurst(b *testing.B) {
	const n = 50_000
	emits := 0
	for i := 0; i < b.N; i++ {
		c := NewCoalescer(func([]Delivered) { emits++ }, 16*time.Millisecond)
		em := turn.NewEmitter(turn.EmitterConfig{SessionID: "s", TurnID: "t", Sinks: []turn.Sink{c}})
		for j := 0; j < n; j++ {
			em.Emit(turn.Draft{Data: turn.TokenData{Text: "tok "}})
		}
		c.Flush()
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(emits)/float64(n*b.N)*1000, "emits/1k-events")
}

// BenchmarkCoalescerLatency2000 streams tokens at 2,000 per second for one
// second and reports the delay from an event's creation to its delivery
// (p50, p99, max) and the emits per second.
func BenchmarkCoalescerLatency2000(b *testing.B) {
	var mu sync.Mutex
	var delays []time.Duration
	emits := 0
	for i := 0; i < b.N; i++ {
		created := make([]time.Time, 2001) // by seq
		c := NewCoalescer(func(batch []Delivered) {
			now := time.Now()
			mu.Lock()
			emits++
			for _, d := range batch {
				// Every token merged into the run counts, by its own creation time.
				for seq := d.FirstSeq; seq <= d.Seq; seq++ {
					delays = append(delays, now.Sub(created[seq]))
				}
			}
			mu.Unlock()
		}, 16*time.Millisecond)
		em := turn.NewEmitter(turn.EmitterConfig{SessionID: "s", TurnID: "t", Sinks: []turn.Sink{c}})
		start := time.Now()
		for j := 0; j < 2000; j++ {
			next := start.Add(time.Duration(j) * 500 * time.Microsecond)
			if d := time.Until(next); d > 0 {
				time.Sleep(d)
			}
			mu.Lock()
			created[j+1] = time.Now()
			mu.Unlock()
			em.Emit(turn.Draft{Data: turn.TokenData{Text: "tok "}})
		}
		c.Flush()
	}
	mu.Lock()
	defer mu.Unlock()
	sort.Slice(delays, func(i, j int) bool { return delays[i] < delays[j] })
	pct := func(p float64) float64 { return float64(delays[int(p*float64(len(delays)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.5), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(emits)/b.Elapsed().Seconds(), "emits/s")
}

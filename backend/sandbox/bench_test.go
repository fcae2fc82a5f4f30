package sandbox_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/sandbox"
)

// BenchmarkRunCodeSum1M is run_code summing a column of 1,000,000 rows
// with a Starlark loop (what a model writes), from the table as Tables
// gives it (read into Starlark values, as every run does) to the result;
// the floor, timed in the same loop, is a plain Go loop over the same
// float64 values. It reports both in ms, script/go (how many times the Go
// loop's time the script takes) and sum-builtin-ms, the same column
// summed with sum() instead of a loop.
func BenchmarkRunCodeSum1M(b *testing.B) {
	const n = 1_000_000
	rows := make([][]any, n)
	values := make([]float64, n)
	var want float64
	for i := range rows {
		v := float64(i%1000) / 8
		rows[i] = []any{int64(i), v}
		values[i] = v
		want += v
	}
	tabs := memTables{"t": {cols: []string{"id", "amount"}, rows: rows}}
	loop := "total = 0.0\nfor x in tables[\"t\"].column(\"amount\"):\n    total += x\nresult = total"
	builtin := "result = sum(tables[\"t\"].column(\"amount\"), 0.0)"
	run := func(code string) {
		res, err := sandbox.Run(context.Background(), code, sandbox.Env{Tables: tabs})
		if err != nil || res.Error != nil {
			b.Fatalf("run: %v %+v", err, res.Error)
		}
		if res.Value != sandbox.FloatRepr(want) {
			b.Fatalf("result %s, want %v", res.Value, want)
		}
	}
	var script, floor, sum []time.Duration
	var sink float64
	for b.Loop() {
		script = append(script, timed(func() { run(loop) }))
		floor = append(floor, timed(func() {
			total := 0.0
			for _, v := range values {
				total += v
			}
			sink = total
		}))
		sum = append(sum, timed(func() { run(builtin) }))
	}
	b.StopTimer()
	if sink != want {
		b.Fatalf("Go sum %v, want %v", sink, want)
	}
	s, f, u := median(script), median(floor), median(sum)
	b.ReportMetric(ms(s), "script-ms")
	b.ReportMetric(ms(f), "go-ms")
	b.ReportMetric(s.Seconds()/f.Seconds(), "script/go")
	b.ReportMetric(ms(u), "sum-builtin-ms")
}

func timed(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

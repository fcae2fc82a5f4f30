package app

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/traces"
)

// BenchmarkOTLPExport50k is figure 1a's turn (50,000 tokens through the
// full path, BenchmarkTokenPipeline50k) with the live OpenTelemetry
// export on, against the same turn with it off: the two alternate, one
// of each per iteration, in one rig, and the medians are compared
// (on/off; the target is ≤ 1.03). With it on, the runner's Ended hands
// the turn to a traces.Exporter, which reads the stored turn, builds its
// spans and posts them as OTLP/HTTP protobuf to a collector on loopback:
// an in-process receiver (httptest on 127.0.0.1) that reads each request
// whole and answers 200 to /v1/traces, so the bench needs no collector
// binary. The turn is timed from Start to Handle.Wait as in 1a; the
// export then runs off the turn's path, and each iteration waits for the
// collector to have the turn outside the timed span (reported as
// export-ms, from the turn's end), so that it does not fall on the next
// measurement. Search indexing and the WAL checkpoint are waited for
// after every turn, on or off, as in 1a.
func BenchmarkOTLPExport50k(b *testing.B) {
	srv := llmtest.NewServer(b)
	reply := llmtest.Reply{Chunks: llmtest.Tokens(benchPipelineTokens), Usage: &llmtest.Usage{PromptTokens: 10, CompletionTokens: benchPipelineTokens}}
	srv.Respond(func(llmtest.Request) llmtest.Reply { return reply })

	var requests, received atomic.Int64
	col := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		if r.URL.Path != "/v1/traces" {
			http.NotFound(w, r)
			return
		}
		requests.Add(1)
		received.Add(n)
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	defer col.Close()

	rig := newBenchRig(b)
	exp, err := traces.New(context.Background(), traces.Config{Endpoint: col.URL, Protocol: traces.ProtocolHTTP}, rig.db, nil, "bench")
	if err != nil {
		b.Fatal(err)
	}
	defer exp.Shutdown(context.Background())
	sent := make(chan traces.ExporterStatus, 16)
	exp.Watch(func(st traces.ExporterStatus) { sent <- st })
	toExporter := exp.TurnEnded

	var onTimes, offTimes, exportTimes []time.Duration
	turn := func(on bool) {
		if on {
			rig.ended.Store(&toExporter)
		} else {
			rig.ended.Store(nil)
		}
		session := rig.newSession(b)
		start := time.Now()
		h := rig.start(b, runner.Request{SessionID: session, Message: "go", BaseURL: srv.URL()})
		res := h.Wait()
		took := time.Since(start)
		rig.end(h)
		if !res.OK {
			b.Fatalf("turn failed: %+v", res.Termination)
		}
		if on {
			onTimes = append(onTimes, took)
			ended := time.Now()
			st := <-sent
			if st.State != traces.StateOK || st.Dropped != 0 {
				b.Fatalf("the export failed: %+v", st)
			}
			exportTimes = append(exportTimes, time.Since(ended))
		} else {
			offTimes = append(offTimes, took)
		}
		if err := rig.db.IndexPending(context.Background()); err != nil {
			b.Fatal(err)
		}
		if err := rig.db.Checkpoint(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	i := 0
	for b.Loop() {
		turn(i%2 == 1)
		turn(i%2 == 0)
		i++
	}
	b.StopTimer()
	if st := exp.Status(); requests.Load() != int64(len(onTimes)) || st.Sent == 0 {
		b.Fatalf("the collector got %d requests for %d turns (status %+v)", requests.Load(), len(onTimes), st)
	}
	on, off := benchMedianDur(onTimes), benchMedianDur(offTimes)
	b.ReportMetric(on.Seconds()/off.Seconds(), "on/off")
	b.ReportMetric(benchPipelineTokens/on.Seconds(), "on-tok/s")
	b.ReportMetric(benchPipelineTokens/off.Seconds(), "off-tok/s")
	b.ReportMetric(benchMS(on), "on-ms")
	b.ReportMetric(benchMS(off), "off-ms")
	b.ReportMetric(benchMS(benchMedianDur(exportTimes)), "export-ms")
	b.ReportMetric(float64(received.Load())/float64(len(onTimes)), "bytes/turn")
}

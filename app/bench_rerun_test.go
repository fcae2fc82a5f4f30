package app

import (
	"context"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/timeline"
	"github.com/agentdeck/agentdeck/backend/turn"
)

const benchRerunRuns = 15

// BenchmarkRerunFromLastStep records the 20-call critique-revise turn of
// figure 4a (the same replies, streamed without the 50 tokens/s pacing,
// which only the recording's wall time depends on) and re-runs it from
// its last step, the passing critique: the 19 calls before it come from
// the recordings, the last one is live. It measures the time from Start
// to the live_from event, where the live part begins (the live call is
// about to reach the server), over 15 re-runs, and reports the median.
// The floor, measured in the same run, is a plain turn of the same
// workflow from Start to its first model call (think_start): what any
// turn costs before it asks a model. Target: ≤ 50 ms to the live step.
func BenchmarkRerunFromLastStep(b *testing.B) {
	srv := llmtest.NewServer(b)
	rig := newBenchRig(b)
	wfPath := benchCritiqueWorkflow(b)
	script := benchCritiqueScript()
	for i := range script {
		script[i].Delay = 0
	}
	const message = "Write a short note on the benchmark."
	var reruns, floors, prepared []time.Duration
	for b.Loop() {
		srv.Enqueue(script...)
		orig := rig.start(b, runner.Request{Message: message, Workflow: wfPath, BaseURL: srv.URL()})
		res := orig.Wait()
		rig.end(orig)
		if !res.OK || srv.Pending() != 0 {
			b.Fatalf("recording: ok %v (%s), %d replies left", res.OK, res.Error, srv.Pending())
		}
		tr, err := rig.db.GetTurn(context.Background(), orig.TurnID, true)
		if err != nil {
			b.Fatal(err)
		}
		steps := timeline.Steps(tr.Events)
		last := steps[len(steps)-1]
		if last.Kind != timeline.KindCall || last.RecordedCalls != benchReplayCalls-1 {
			b.Fatalf("the last step is %+v, want the 20th call", last)
		}
		for range benchRerunRuns {
			before := len(srv.Requests())
			srv.Enqueue(script[benchReplayCalls-1])
			at, sink := benchFirst(turn.EventLiveFrom)
			start := time.Now()
			h := rig.start(b, runner.Request{SessionID: orig.SessionID, BaseURL: srv.URL(), From: &runner.From{TurnID: orig.TurnID, Step: last.ID}}, sink)
			prepared = append(prepared, time.Since(start))
			re := h.Wait()
			rig.end(h)
			if !re.OK || re.FinalText != res.FinalText || len(srv.Requests())-before != 1 {
				b.Fatalf("re-run: ok %v (%s), %q, %d model calls", re.OK, re.Error, re.FinalText, len(srv.Requests())-before)
			}
			reruns = append(reruns, (<-at).Sub(start))

			srv.Enqueue(script[0], script[benchReplayCalls-1]) // a draft, then a passing critique
			at, sink = benchFirst(turn.EventThinkStart)
			start = time.Now()
			h = rig.start(b, runner.Request{Message: message, Workflow: wfPath, BaseURL: srv.URL()}, sink)
			if fl := h.Wait(); !fl.OK {
				b.Fatalf("floor turn: %s", fl.Error)
			}
			rig.end(h)
			floors = append(floors, (<-at).Sub(start))
		}
	}
	b.StopTimer()
	rm, fm := benchMedianDur(reruns), benchMedianDur(floors)
	b.ReportMetric(benchMS(rm), "to-live-ms")
	b.ReportMetric(benchMS(fm), "floor-ms")
	b.ReportMetric(benchMS(rm-fm), "recorded-part-ms")
	b.ReportMetric(benchMS(benchMedianDur(prepared)), "start-ms")
}

// benchFirst is a sink that sends the time the first event of typ passed
// through it.
func benchFirst(typ turn.EventType) (<-chan time.Time, turn.Sink) {
	at := make(chan time.Time, 1)
	seen := false
	return at, turn.SinkFunc(func(e turn.Event) error {
		if e.Type == typ && !seen {
			seen = true
			at <- time.Now()
		}
		return nil
	})
}

package app

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/store"
)

const benchPipelineTokens = 50_000

// BenchmarkTokenPipeline50k streams 50,000 tokens from the scripted server,
// as fast as loopback allows, through the whole path of a desktop turn:
// runner.Start → llm client recording the call into the SQLite captures
// table → workflow and agent engine → Emitter → sinks (the store's
// EventLog, the Hub, the Coalescer with its batches JSON-encoded) → the
// result committed. It is timed from Start to Handle.Wait, which returns
// once the turn and its events are stored. Two things follow off the
// turn's path, in the store's background: the answer's search entries
// (store/indexer.go) and the checkpoint of the write-ahead log
// (store/checkpoint.go). Each iteration waits for both outside the timed
// span, so that they do not fall on the next measurement, and reports
// that wait as after-ms.
//
// The floor is bare go-openai reading the same stream and doing nothing
// with it. The two alternate, one of each per iteration, and the medians
// are compared. Targets: full/bare ≥ 0.8 and ≥ 20,000 tokens/s.
func BenchmarkTokenPipeline50k(b *testing.B) {
	srv := llmtest.NewServer(b)
	// The reply is made once: making it is the scripted server's work,
	// not either client's, and on two cores it would take from both.
	reply := llmtest.Reply{Chunks: llmtest.Tokens(benchPipelineTokens), Usage: &llmtest.Usage{PromptTokens: 10, CompletionTokens: benchPipelineTokens}}
	srv.Respond(func(llmtest.Request) llmtest.Reply { return reply })
	rig := newBenchRig(b)
	oc := openai.DefaultConfig("")
	oc.BaseURL = srv.URL()
	oc.HTTPClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	bare := openai.NewClientWithConfig(oc)

	var fullTimes, bareTimes, afterTimes []time.Duration
	var fullBytes, bareBytes, stored []int64 // figure 1d (bench_bytes_test.go)
	var last string
	i := 0
	for b.Loop() {
		full := func() {
			session := rig.newSession(b)
			pages, w := pagesInUse(b, rig.db.Path()), procWchar(b)
			start := time.Now()
			h := rig.start(b, runner.Request{SessionID: session, Message: "go", BaseURL: srv.URL()})
			last = h.TurnID
			res := h.Wait()
			fullTimes = append(fullTimes, time.Since(start))
			rig.end(h)
			if !res.OK {
				b.Fatalf("turn failed: %+v", res.Termination)
			}
			after := time.Now()
			if err := rig.db.IndexPending(context.Background()); err != nil {
				b.Fatal(err)
			}
			if err := rig.db.Checkpoint(context.Background()); err != nil {
				b.Fatal(err)
			}
			afterTimes = append(afterTimes, time.Since(after))
			fullBytes = append(fullBytes, procWchar(b)-w)
			stored = append(stored, pagesInUse(b, rig.db.Path())-pages)
		}
		floor := func() {
			w := procWchar(b)
			start := time.Now()
			if n := benchBareStream(b, bare); n != benchPipelineTokens {
				b.Fatalf("bare go-openai read %d tokens", n)
			}
			bareTimes = append(bareTimes, time.Since(start))
			bareBytes = append(bareBytes, procWchar(b)-w)
		}
		if i%2 == 0 {
			floor()
			full()
		} else {
			full()
			floor()
		}
		i++
	}
	b.StopTimer()
	benchCheckPipelineStored(b, rig, last)
	fm, bm := benchMedianDur(fullTimes), benchMedianDur(bareTimes)
	b.ReportMetric(benchPipelineTokens/fm.Seconds(), "full-tok/s")
	b.ReportMetric(benchPipelineTokens/bm.Seconds(), "bare-tok/s")
	b.ReportMetric(bm.Seconds()/fm.Seconds(), "full/bare")
	b.ReportMetric(benchMS(fm), "full-ms")
	b.ReportMetric(benchMS(bm), "bare-ms")
	b.ReportMetric(benchMS(benchMedianDur(afterTimes)), "after-ms")
	reportBytes(b, answerBytes(reply), fullBytes, bareBytes, stored)
}

// benchCheckPipelineStored checks that the last turn really went through
// the store: completed, every token event logged, the call recorded.
func benchCheckPipelineStored(b *testing.B, rig *benchRig, turnID string) {
	d, err := rig.db.GetTurn(context.Background(), turnID, false)
	if err != nil {
		b.Fatal(err)
	}
	if d.State != store.StateCompleted || d.LastSeq < benchPipelineTokens {
		b.Fatalf("last turn: state %s, %d events stored", d.State, d.LastSeq)
	}
	rig.settle()
	if rig.emitted.Load() == 0 {
		b.Fatal("the coalescer emitted nothing")
	}
}

func benchBareStream(b *testing.B, c *openai.Client) int {
	s, err := c.CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{
		Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "go"}},
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	n := 0
	for {
		r, err := s.Recv()
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			b.Fatal(err)
		}
		if len(r.Choices) > 0 && r.Choices[0].Delta.Content != "" {
			n++
		}
	}
}

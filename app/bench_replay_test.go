package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/workflow"
)

const (
	benchReplayCalls    = 20
	benchReplayFails    = 9                     // critiques that fail before one passes
	benchReplayTokens   = 25                    // content tokens per model call
	benchReplayTokenGap = 20 * time.Millisecond // 50 tokens/s
	benchReplayRuns     = 5
	benchReplayReps     = 25 // per capture, for the per-call overhead
)

const benchReplayWorkflow = `name: bench-critique
description: A writer and a critic, with room for many revisions.
kind: critique-revise
writer: writer
critic: critic
max_retries: 12
agents:
  writer:
    system_prompt: You are a careful writer. Write exactly what the request asks for.
  critic:
    system_prompt: You are a demanding editor. Reply with JSON {"passed", "score", "feedback"}.
`

// BenchmarkReplay records one critique-revise turn of 20 model calls (a
// draft, then a critique that fails nine times with a revision after each,
// then a passing critique) against a scripted server that streams 25
// tokens per call at 50 tokens/s, as a hosted model would (about 10 s in
// all, once), and replays it from the recorded captures, offline, five
// times. It reports the recorded and replayed wall times (the replay's
// median) and recorded/replayed. Target: replay ≥ 20x faster.
//
// It also measures what the capture middleware costs per call in replay
// mode: each of the 20 recorded calls is replayed through recording.WithCapture
// (canonical request, key hash, lookup, chunk delivery) and looked up with
// a bare store GetCapture, alternating. Target: middleware/lookup ≤ 1.25.
func BenchmarkReplay(b *testing.B) {
	srv := llmtest.NewServer(b)
	rig := newBenchRig(b)
	wfPath := benchCritiqueWorkflow(b)
	var recorded time.Duration
	var replayed []time.Duration
	var callTimes, lookupTimes []time.Duration
	for b.Loop() {
		srv.Enqueue(benchCritiqueScript()...)
		start := time.Now()
		orig := rig.start(b, runner.Request{Message: "Write a short note on the benchmark.", Workflow: wfPath, BaseURL: srv.URL()})
		res := orig.Wait()
		recorded = time.Since(start)
		rig.end(orig)
		if !res.OK || len(srv.Requests()) != benchReplayCalls || srv.Pending() != 0 {
			b.Fatalf("recording: ok %v (%s), %d requests, %d replies left", res.OK, res.Error, len(srv.Requests()), srv.Pending())
		}
		for range benchReplayRuns {
			start := time.Now()
			h := rig.start(b, runner.Request{Message: "Write a short note on the benchmark.", Workflow: wfPath,
				BaseURL: "http://replay.invalid/v1", Capture: recording.Replay, History: []llm.Message{}})
			rep := h.Wait()
			replayed = append(replayed, time.Since(start))
			rig.end(h)
			if !rep.OK || rep.FinalText != res.FinalText {
				b.Fatalf("replay: ok %v (%s), final text %q, recorded %q", rep.OK, rep.Error, rep.FinalText, res.FinalText)
			}
		}
		if n := len(srv.Requests()); n != benchReplayCalls {
			b.Fatalf("a replay called the model: %d requests", n)
		}
		callTimes, lookupTimes = benchReplayPerCall(b, rig.db, orig.SessionID)
	}
	b.StopTimer()
	rm := benchMedianDur(replayed)
	b.ReportMetric(recorded.Seconds(), "recorded-s")
	b.ReportMetric(benchMS(rm), "replayed-ms")
	b.ReportMetric(recorded.Seconds()/rm.Seconds(), "recorded/replayed")
	cm, lm := benchMedianDur(callTimes), benchMedianDur(lookupTimes)
	b.ReportMetric(float64(cm.Nanoseconds())/1e3, "replay-call-µs")
	b.ReportMetric(float64(lm.Nanoseconds())/1e3, "GetCapture-µs")
	b.ReportMetric(float64((cm-lm).Nanoseconds())/1e3, "overhead-µs/call")
	b.ReportMetric(cm.Seconds()/lm.Seconds(), "middleware/lookup")
}

// benchCritiqueWorkflow writes the workflow of the recorded turn to a
// file and returns its path.
func benchCritiqueWorkflow(b *testing.B) string {
	wfPath := filepath.Join(b.TempDir(), "bench-critique.yaml")
	if err := os.WriteFile(wfPath, []byte(benchReplayWorkflow), 0o600); err != nil {
		b.Fatal(err)
	}
	if _, err := workflow.Parse("bench-critique.yaml", []byte(benchReplayWorkflow)); err != nil {
		b.Fatal(err)
	}
	return wfPath
}

// benchCritiqueScript is the 20 replies of the recorded turn, in the order
// the critique-revise executor asks for them.
func benchCritiqueScript() []llmtest.Reply {
	reply := func(text string) llmtest.Reply {
		return llmtest.Reply{Chunks: llmtest.Text(text, benchReplayTokens), Delay: benchReplayTokenGap,
			Usage: &llmtest.Usage{PromptTokens: 200, CompletionTokens: benchReplayTokens}}
	}
	draft := func(n int) string {
		return fmt.Sprintf("Draft %d. The benchmark measures the whole path of a turn, from the model's stream to the stored events, and compares it with a floor.", n)
	}
	out := []llmtest.Reply{reply(draft(0))}
	for i := 1; i <= benchReplayFails; i++ {
		out = append(out,
			reply(`{"passed": false, "score": 0.`+strconv.Itoa(i%10)+`, "feedback": "Revision `+strconv.Itoa(i)+`: name the floor and say what the ratio means."}`),
			reply(draft(i)))
	}
	return append(out, reply(`{"passed": true, "score": 0.9, "feedback": "Clear, accurate and complete for the purpose."}`))
}

// benchReplayPerCall replays every recorded call through the capture
// middleware and looks it up with a bare GetCapture, alternating, and
// returns the times of each.
func benchReplayPerCall(b *testing.B, db *store.DB, sessionID string) (calls, lookups []time.Duration) {
	ctx := context.Background()
	reqs := benchRecordedRequests(b, db, sessionID)
	if len(reqs) != benchReplayCalls {
		b.Fatalf("%d captures stored, want %d", len(reqs), benchReplayCalls)
	}
	caps := db.Captures("")
	offline := llm.ClientFunc(func(context.Context, llm.Request, func(llm.Chunk) error) (llm.Response, error) {
		b.Fatal("replay mode called the model")
		return llm.Response{}, nil
	})
	mw := recording.WithCapture(offline, recording.Options{Mode: recording.Replay, Store: caps})
	deliver := func(llm.Chunk) error { return nil }
	for r := range benchReplayReps {
		for i, req := range reqs {
			call := func() {
				start := time.Now()
				if _, err := mw.Stream(ctx, req.req, deliver); err != nil {
					b.Fatal(err)
				}
				calls = append(calls, time.Since(start))
			}
			lookup := func() {
				start := time.Now()
				c, err := caps.GetCapture(ctx, req.key)
				if err != nil || c == nil {
					b.Fatalf("GetCapture: %v", err)
				}
				lookups = append(lookups, time.Since(start))
			}
			if (r+i)%2 == 0 {
				call()
				lookup()
			} else {
				lookup()
				call()
			}
		}
	}
	return calls, lookups
}

type benchRecorded struct {
	key string
	req llm.Request
}

// benchRecordedRequests rebuilds the request of each capture a session's
// turns used from its canonical form (read through a JSON export, which
// carries the captures) and checks that it has the stored key.
func benchRecordedRequests(b *testing.B, db *store.DB, sessionID string) []benchRecorded {
	var out []benchRecorded
	var buf bytes.Buffer
	if err := export.Write(context.Background(), db, sessionID, export.JSON, &buf, export.Options{Captures: true}); err != nil {
		b.Fatal(err)
	}
	var doc struct {
		Captures []struct {
			Key     string          `json:"key"`
			Request json.RawMessage `json:"request"`
		} `json:"captures"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		b.Fatal(err)
	}
	for _, c := range doc.Captures {
		var f recording.CanonicalForm
		if err := json.Unmarshal(c.Request, &f); err != nil {
			b.Fatal(err)
		}
		req := benchRequestOf(b, f)
		if k := recording.Key(req); k != c.Key {
			b.Fatalf("rebuilt request has key %s, stored %s", k, c.Key)
		}
		out = append(out, benchRecorded{key: c.Key, req: req})
	}
	return out
}

func benchRequestOf(b *testing.B, f recording.CanonicalForm) llm.Request {
	req := llm.Request{Model: f.Model, MaxTokens: f.MaxTokens}
	for _, m := range f.Messages {
		msg := llm.Message{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, Name: m.Name}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall(tc))
		}
		req.Messages = append(req.Messages, msg)
	}
	for _, t := range f.Tools {
		tool := llm.Tool{Name: t.Name, Description: t.Description}
		if string(t.Parameters) != "null" {
			tool.Parameters = t.Parameters
		}
		req.Tools = append(req.Tools, tool)
	}
	parse := func(s *string) *float32 {
		if s == nil {
			return nil
		}
		v, err := strconv.ParseFloat(*s, 32)
		if err != nil {
			b.Fatal(err)
		}
		f := float32(v)
		return &f
	}
	req.Temperature, req.TopP = parse(f.Temperature), parse(f.TopP)
	if rf := f.ResponseFormat; rf != nil {
		req.ResponseFormat = &llm.ResponseFormat{Type: rf.Type, Name: rf.Name, Strict: rf.Strict}
		if string(rf.Schema) != "null" {
			req.ResponseFormat.Schema = rf.Schema
		}
	}
	return req
}

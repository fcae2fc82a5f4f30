package agent_test

import (
	"context"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/agent"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/llm/openai"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// BenchmarkEngineTokens streams 50,000 tokens through a whole agent turn
// to a sink that keeps every event (the engine path), and through the bare
// llm client (the floor), alternating in one run. It reports events per
// second through the engine and engine/client throughput (1.0 = no
// overhead). Medians over the iterations.
func BenchmarkEngineTokens(b *testing.B) {
	const n = 50_000
	srv := llmtest.NewServer(b)
	srv.Respond(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Chunks: llmtest.Tokens(n)} })
	client := openai.NewClient(openai.Config{BaseURL: srv.URL(), HTTPClient: &http.Client{}})
	ag := &agent.Agent{Name: "bench", Client: client, Model: "m"}
	req := llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: "go"}}}

	var bare, engine []time.Duration
	events := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := client.Stream(context.Background(), req, func(llm.Chunk) error { return nil }); err != nil {
			b.Fatal(err)
		}
		bare = append(bare, time.Since(start))

		kept := make([]turn.Event, 0, n+16)
		em := turn.NewEmitter(turn.EmitterConfig{SessionID: "s", TurnID: "t", Sinks: []turn.Sink{turn.SinkFunc(func(e turn.Event) error {
			kept = append(kept, e)
			return nil
		})}})
		start = time.Now()
		res := turn.RunTurn(context.Background(), em, func(ctx context.Context) turn.Result {
			return ag.Run(ctx, em, agent.Input{User: "go"})
		})
		engine = append(engine, time.Since(start))
		if !res.OK || len(kept) < n {
			b.Fatalf("turn failed or lost events: %d events, %+v", len(kept), res.Termination)
		}
		events = len(kept)
	}
	b.StopTimer()
	mb, me := medianDur(bare), medianDur(engine)
	b.ReportMetric(float64(events)/me.Seconds(), "events/s")
	b.ReportMetric(mb.Seconds()/me.Seconds(), "engine/client")
	b.ReportMetric(float64(me-mb)/float64(n), "ns-overhead/token")
}

func medianDur(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

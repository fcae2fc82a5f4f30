package app

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

const benchStops = 200

// BenchmarkStopLatency stops 200 streaming turns, each at a random point
// 5-50 ms after its first token (the scripted server sends a token every
// millisecond), through runner.Stop as the Stop button does, and measures
// from the Stop call to
//
//   - disconnect: the scripted server noticing that the client went away
//     (the HTTP stream to the model is closed), and
//   - stored: Handle.Done, which closes once the turn is committed as
//     cancelled with its partial answer and its events are flushed.
//
// The floor is bare go-openai: the same stream, cancelled through its
// context at the same kind of moment, from cancel to the server noticing.
// The two alternate. It reports p50 and p99 of each. Targets: p99 ≤ 50 ms
// to the disconnect, ≤ 100 ms to stored.
func BenchmarkStopLatency(b *testing.B) {
	srv := llmtest.NewServer(b)
	srv.Respond(func(llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Chunks: llmtest.Tokens(100_000), Delay: time.Millisecond}
	})
	rig := newBenchRig(b)
	oc := openai.DefaultConfig("")
	oc.BaseURL = srv.URL()
	bare := openai.NewClientWithConfig(oc)
	rng := rand.New(rand.NewPCG(11, 12))
	wait := func() time.Duration {
		return 5*time.Millisecond + time.Duration(rng.Int64N(int64(45*time.Millisecond)))
	}
	var disconnect, stored, floor []time.Duration
	n := 0 // disconnects the server has seen
	for b.Loop() {
		for range benchStops {
			n++
			d, s := benchStopOnce(b, rig, srv, n, wait())
			disconnect, stored = append(disconnect, d), append(stored, s)
			n++
			floor = append(floor, benchBareCancel(b, bare, srv, n, wait()))
		}
	}
	b.StopTimer()
	for _, m := range []struct {
		name string
		d    []time.Duration
	}{{"disconnect", disconnect}, {"stored", stored}, {"bare-disconnect", floor}} {
		b.ReportMetric(benchMS(benchPercentile(m.d, 0.5)), m.name+"-p50-ms")
		b.ReportMetric(benchMS(benchPercentile(m.d, 0.99)), m.name+"-p99-ms")
	}
	b.ReportMetric(float64(len(stored)), "stops")
}

// benchBareCancel streams with bare go-openai, cancels the request's
// context wait after the first token, and returns the time from the cancel
// to the server's n-th disconnect.
func benchBareCancel(b *testing.B, c *openai.Client, srv *llmtest.Server, n int, wait time.Duration) time.Duration {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := c.CreateChatCompletionStream(ctx, openai.ChatCompletionRequest{
		Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "go"}},
	})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Recv(); err != nil {
		b.Fatal(err)
	}
	// Keep reading, as a client showing the stream would, until cancelled.
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if _, err := s.Recv(); err != nil {
				return
			}
		}
	}()
	time.Sleep(wait)
	stop := time.Now()
	cancel()
	<-done
	at, ok := srv.WaitDisconnects(n, 5*time.Second)
	if !ok {
		b.Fatalf("bare cancel %d: the server saw no disconnect", n)
	}
	return at[n-1].Sub(stop)
}

// benchStopOnce runs one turn, stops it after wait from its first token,
// and returns the times from Stop to the server's disconnect and to the
// turn being stored. n is the number of disconnects the server should have
// recorded afterwards.
func benchStopOnce(b *testing.B, rig *benchRig, srv *llmtest.Server, n int, wait time.Duration) (disconnect, stored time.Duration) {
	first := make(chan struct{})
	var once sync.Once
	onToken := turn.SinkFunc(func(e turn.Event) error {
		if e.Type == turn.EventToken {
			once.Do(func() { close(first) })
		}
		return nil
	})
	h := rig.start(b, runner.Request{Message: "go", BaseURL: srv.URL()}, onToken)
	select {
	case <-first:
	case <-h.Done():
		b.Fatal("the turn ended before its first token")
	}
	time.Sleep(wait)
	stop := time.Now()
	if err := rig.runner.Stop(h.TurnID); err != nil {
		b.Fatal(err)
	}
	<-h.Done()
	stored = time.Since(stop)
	rig.end(h)
	at, ok := srv.WaitDisconnects(n, 5*time.Second)
	if !ok {
		b.Fatalf("stop %d: the server saw no disconnect", n)
	}
	disconnect = at[n-1].Sub(stop)
	d, err := rig.db.GetTurn(context.Background(), h.TurnID, false)
	if err != nil || d.State != store.StateCancelled || d.FinalText == "" {
		b.Fatalf("stop %d: turn state %s, partial answer %d bytes (%v)", n, d.State, len(d.FinalText), err)
	}
	return disconnect, stored
}

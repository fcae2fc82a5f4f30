package recording_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sort"
	"testing"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/capturefile"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/llm/openai"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
)

const benchTokens = 50_000

// BenchmarkStream50k streams the same 50,000-token answer from the scripted
// server through bare go-openai (the floor) and through our client in each
// capture mode, alternating in one run, and reports each path's throughput
// relative to the floor (1.0 = as fast as bare go-openai; the target is
// 0.8 or better). Medians of the iterations are reported. The record path
// is measured twice: the middleware alone (a store that discards) and with
// the folder store writing and fsyncing each 50,000-chunk capture.
func BenchmarkStream50k(b *testing.B) {
	srv := llmtest.NewServer(b)
	srv.Respond(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Chunks: llmtest.Tokens(benchTokens)} })
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}

	oc := goopenai.DefaultConfig("")
	oc.BaseURL = srv.URL()
	oc.HTTPClient = hc
	bare := goopenai.NewClientWithConfig(oc)

	client := openai.NewClient(openai.Config{BaseURL: srv.URL(), HTTPClient: hc})
	store, err := capturefile.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	recorder := recording.WithCapture(client, recording.Options{Mode: recording.Record, Store: store})
	recordingNoStore := recording.WithCapture(client, recording.Options{Mode: recording.Record, Store: captureDiscardStore{}})
	req := llm.Request{Model: "bench", Messages: []llm.Message{{Role: llm.RoleUser, Content: "go"}}}

	paths := []struct {
		name string
		run  func() int
	}{
		{"bare-go-openai", func() int { return bareStream(b, bare) }},
		{"client", func() int { return ourStream(b, client, req) }},
		{"client+capture-record", func() int { return ourStream(b, recordingNoStore, req) }},
		{"client+capture-record+file-store", func() int { return ourStream(b, recorder, req) }},
	}
	times := make([][]time.Duration, len(paths))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for p, path := range paths {
			start := time.Now()
			if n := path.run(); n != benchTokens {
				b.Fatalf("%s: %d tokens, want %d", path.name, n, benchTokens)
			}
			times[p] = append(times[p], time.Since(start))
		}
	}
	b.StopTimer()
	floor := median(times[0])
	for p, path := range paths {
		m := median(times[p])
		b.ReportMetric(float64(benchTokens)/m.Seconds(), path.name+"-tok/s")
		if p > 0 {
			b.ReportMetric(floor.Seconds()/m.Seconds(), path.name+"/bare")
		}
	}
}

func bareStream(b *testing.B, c *goopenai.Client) int {
	s, err := c.CreateChatCompletionStream(context.Background(), goopenai.ChatCompletionRequest{
		Model: "bench", Messages: []goopenai.ChatCompletionMessage{{Role: "user", Content: "go"}},
		StreamOptions: &goopenai.StreamOptions{IncludeUsage: true},
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

func ourStream(b *testing.B, c llm.Client, req llm.Request) int {
	n := 0
	_, err := c.Stream(context.Background(), req, func(ch llm.Chunk) error {
		if ch.Content != "" {
			n++
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

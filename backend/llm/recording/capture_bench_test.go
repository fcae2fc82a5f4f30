package recording_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
)

// captureDiscardStore accepts every capture and keeps nothing, so the benchmark
// measures the middleware rather than a store.
type captureDiscardStore struct{}

func (captureDiscardStore) GetCapture(context.Context, string) (*recording.Capture, error) {
	return nil, nil
}
func (captureDiscardStore) PutCapture(context.Context, *recording.Capture) error { return nil }

// BenchmarkCaptureStream streams 50,000 chunks through off and record mode;
// the difference per chunk is the cost of recording.
func BenchmarkCaptureStream(b *testing.B) {
	const n = 50_000
	chunks := make([]llm.Chunk, n)
	for i := range chunks {
		chunks[i] = llm.Chunk{Content: "tok" + strconv.Itoa(i%10)}
	}
	inner := llm.ClientFunc(func(ctx context.Context, req llm.Request, fn func(llm.Chunk) error) (llm.Response, error) {
		for _, ch := range chunks {
			if err := fn(ch); err != nil {
				return llm.Response{}, err
			}
		}
		return llm.Response{FinishReason: "stop"}, nil
	})
	req := captureReq("benchmark")
	fn := func(llm.Chunk) error { return nil }
	for _, mode := range []recording.Mode{recording.Off, recording.Record} {
		b.Run(string(mode), func(b *testing.B) {
			c := recording.WithCapture(inner, recording.Options{Mode: mode, Store: captureDiscardStore{}})
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Stream(context.Background(), req, fn); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/chunk")
		})
	}
}

package recording

import (
	"strconv"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// TestChunkBufKeepsEveryChunkInOrder fills a chunkBuf across block
// boundaries and checks that joined gives every chunk back in order, in a
// slice not much larger than what it holds, and "[]" rather than null for
// a call that sent nothing.
func TestChunkBufKeepsEveryChunkInOrder(t *testing.T) {
	for _, n := range []int{0, 1, 63, 64, 65, 4095, 4096, 4097, 3*chunkBlockMax + 17, 50_001} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			var b chunkBuf
			for i := range n {
				b.add(RecordedChunk{At: time.Duration(i), Chunk: llm.Chunk{Content: strconv.Itoa(i)}})
			}
			got := b.joined()
			if got == nil || len(got) != n {
				t.Fatalf("joined %d chunks (nil %v), want %d", len(got), got == nil, n)
			}
			if cap(got) > 2*n+64 {
				t.Errorf("joined has capacity %d for %d chunks", cap(got), n)
			}
			for i, rc := range got {
				if rc.At != time.Duration(i) || rc.Chunk.Content != strconv.Itoa(i) {
					t.Fatalf("chunk %d is %+v", i, rc)
				}
			}
		})
	}
}

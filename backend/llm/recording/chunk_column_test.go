package recording

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// randomChunks is a stream as providers send them: text deltas with odd
// characters, reasoning (some in reasoning_details only), tool calls, a
// finish reason and usage, with times that sometimes stand still.
func randomChunks(r *rand.Rand) []RecordedChunk {
	texts := []string{"a", " word", "", "\n", `"quoted"`, `back\slash`, "naïve ✓", "\u2028", "<b>&", "{}", "\t"}
	n := r.IntN(300)
	out := make([]RecordedChunk, 0, n+2)
	var at time.Duration
	for range n {
		at += time.Duration(r.IntN(3)) * time.Duration(r.IntN(100_000))
		c := llm.Chunk{}
		switch k := r.IntN(20); {
		case k < 12:
			c.Content = texts[r.IntN(len(texts))]
		case k < 15:
			c.Reasoning = texts[r.IntN(len(texts))]
		case k < 16:
			c.ReasoningDetails = json.RawMessage(`[{"type":"reasoning.text","text":"x"}]`)
		case k < 18:
			c.ToolCalls = []llm.ToolCallDelta{{Index: 0, ID: "call_1", Name: "lookup", Arguments: `{"q":`}}
		default:
			c.Content, c.Reasoning = texts[r.IntN(len(texts))], texts[r.IntN(len(texts))]
		}
		out = append(out, RecordedChunk{At: at, Chunk: c})
	}
	if r.IntN(2) == 0 {
		out = append(out, RecordedChunk{At: at + 1, Chunk: llm.Chunk{FinishReason: "stop", Content: "end"}})
		out = append(out, RecordedChunk{At: at + 2, Chunk: llm.Chunk{Usage: &llm.Usage{InputTokens: 3, OutputTokens: n}}})
	}
	return out
}

// TestChunksColumnReadsBackExactly: for random streams, the second form
// reads back as the chunks written, and an export's first form of it is
// byte for byte what the first form would have stored.
func TestChunksColumnReadsBackExactly(t *testing.T) {
	t.Parallel()
	shorter := 0
	for seed := range uint64(60) {
		r := rand.New(rand.NewPCG(seed, 48))
		chunks := randomChunks(r)
		cut := r.IntN(len(chunks) + 1) // written in two blocks, as the capture buffers them
		col, err := ChunksColumn(chunks[:cut], chunks[cut:])
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeChunks(col)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, col)
		}
		if len(chunks) == 0 && got == nil {
			got = []RecordedChunk{}
		}
		if len(chunks) == 0 {
			chunks = []RecordedChunk{}
		}
		if !reflect.DeepEqual(got, chunks) {
			t.Fatalf("seed %d: read back\n%+v\nwant\n%+v", seed, got, chunks)
		}
		first, err := ChunksJSON(chunks)
		if err != nil {
			t.Fatal(err)
		}
		if again, err := ChunksFirstForm(col); err != nil || again != first {
			t.Fatalf("seed %d: first form\n%s\nwant\n%s (%v)", seed, again, first, err)
		}
		if len(col) < len(first) {
			shorter++
		}
	}
	if shorter < 50 {
		t.Errorf("the second form was shorter for only %d of 60 streams", shorter)
	}
}

// TestChunksKeepReasoningDetails: a delta whose reasoning is only in
// reasoning_details (as OpenRouter sends it) keeps it in either form; the
// first form's fast path used to drop it.
func TestChunksKeepReasoningDetails(t *testing.T) {
	t.Parallel()
	chunks := []RecordedChunk{{At: 5, Chunk: llm.Chunk{ReasoningDetails: json.RawMessage(`[{"type":"reasoning.text","text":"think"}]`)}}}
	first, _ := ChunksJSON(chunks)
	second, _ := ChunksColumn(chunks)
	for name, col := range map[string]string{"first": first, "second": second} {
		got, err := DecodeChunks(col)
		if err != nil || len(got) != 1 || !strings.Contains(string(got[0].Chunk.ReasoningDetails), "think") {
			t.Errorf("%s form: %+v, %v", name, got, err)
		}
	}
}

// TestDamagedChunksColumnSaysSo: numbers that do not agree with the texts
// are an error, never other chunks.
func TestDamagedChunksColumnSaysSo(t *testing.T) {
	t.Parallel()
	for _, col := range []string{
		`{"v":2,"at":"AA","content":"ab","clen":"G","other":{}}`,
		`{"v":2,"at":"A","content":"ab","clen":"CC","other":{}}`,
		`{"v":2,"at":"A","content":"abc","clen":"C","other":{}}`,
		`{"v":2,"at":"A!","content":"","clen":"A","other":{}}`,
		`{"v":2,"at":"A","content":"","clen":"A","other":{"0":{"at_ns":"x"}}}`,
		`{"v":2,"at":"A","content":"","clen":"A","other":{"0":{},"1":{}}}`,
		`{"v":2,`,
	} {
		if got, err := DecodeChunks(col); err == nil {
			t.Errorf("%s read as %+v", col, got)
		}
	}
}

// FuzzDecodeChunks: any stored column reads as chunks or an error, never
// a panic.
func FuzzDecodeChunks(f *testing.F) {
	col, _ := ChunksColumn(randomChunks(rand.New(rand.NewPCG(1, 2))))
	f.Add(col)
	f.Add(`[{"at_ns":1,"chunk":{"content":"a"}}]`)
	f.Fuzz(func(t *testing.T, col string) {
		_, _ = DecodeChunks(col)
	})
}

// TestResponseColumnByReference: a response whose message holds its
// chunks' content is stored without it and reads back, and exports, as
// json.Marshal wrote it; one whose content is something else stays whole.
func TestResponseColumnByReference(t *testing.T) {
	t.Parallel()
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 49))
		chunks := randomChunks(r)
		content := chunksContent(chunks)
		resp := llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: content, Reasoning: "why"}, FinishReason: "stop",
			Usage: llm.Usage{InputTokens: 3, OutputTokens: len(chunks)}, Diagnostics: llm.CallDiagnostics{Model: "m", StartedAt: time.Unix(1700000000, 5).UTC()}}
		if seed%3 == 0 {
			resp.Message.Content += "!" // not the chunks' content
		}
		whole, _ := json.Marshal(resp)
		col, err := ResponseColumn(resp, chunks)
		if err != nil {
			t.Fatal(err)
		}
		byRef := strings.HasPrefix(col, responsePrefix)
		if want := seed%3 != 0 && content != ""; byRef != want {
			t.Fatalf("seed %d: stored by reference %v, want %v", seed, byRef, want)
		}
		got, err := DecodeResponse(col, chunks)
		if err != nil || !reflect.DeepEqual(got, resp) {
			t.Fatalf("seed %d: read back %+v (%v), want %+v", seed, got, err, resp)
		}
		if first, err := ResponseFirstForm(col, chunks); err != nil || first != string(whole) {
			t.Fatalf("seed %d: first form %s (%v), want %s", seed, first, err, whole)
		}
	}
}

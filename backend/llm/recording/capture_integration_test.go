package recording_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/capturefile"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
)

// Record a real streamed call with tool-call fragments, stop the server,
// and replay: the same chunks and the same response, with no network.
func TestRecordThenReplayWithTheServerStopped(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{
		Chunks: llmtest.WithFinish(llmtest.Stream(llmtest.Text("Checking. ", 3)[:3], llmtest.ToolCallChunks(0, "c1", "query_data", `{"sql":"SELECT 1"}`, 5)), "tool_calls"),
		Usage:  &llmtest.Usage{PromptTokens: 12, CompletionTokens: 9, TotalTokens: 21},
	})
	store, err := capturefile.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	live := newClient(srv)
	req := userRequest("query it")

	recorder := recording.WithCapture(live, recording.Options{Mode: recording.Record, Store: store})
	recChunks, recResp, err := collect(t, recorder, context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	srv.Close()

	replayer := recording.WithCapture(live, recording.Options{Mode: recording.Replay, Store: store})
	repChunks, repResp, err := collect(t, replayer, context.Background(), req)
	if err != nil {
		t.Fatalf("replay with the server stopped: %v", err)
	}
	if !reflect.DeepEqual(recChunks, repChunks) {
		t.Fatalf("chunks differ:\nrecorded %+v\nreplayed %+v", recChunks, repChunks)
	}
	if !reflect.DeepEqual(recResp.Message, repResp.Message) || recResp.Usage != repResp.Usage || recResp.FinishReason != repResp.FinishReason {
		t.Fatalf("responses differ:\nrecorded %+v\nreplayed %+v", recResp, repResp)
	}
	if repResp.Diagnostics.Capture != llm.CaptureReplayed {
		t.Fatalf("diagnostics capture = %q", repResp.Diagnostics.Capture)
	}

	// A different request misses, and the error names it.
	other := userRequest("something else")
	_, _, err = collect(t, replayer, context.Background(), other)
	if llm.KindOf(err) != llm.ErrReplayMiss || !strings.Contains(err.Error(), "something else") {
		t.Fatalf("miss error %v should name the request", err)
	}
}

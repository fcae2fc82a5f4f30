package recording_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
	"github.com/agentdeck/agentdeck/backend/llm/openai"
)

// newClient is a real client of the scripted server srv, retrying fast.
func newClient(srv *llmtest.Server) *openai.Client {
	return openai.NewClient(openai.Config{
		BaseURL:      srv.URL(),
		Label:        "the test server",
		RetryInitial: time.Millisecond,
		RetryMax:     50 * time.Millisecond,
	})
}

func userRequest(text string) llm.Request {
	return llm.Request{Model: "test-model", Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: "You are terse."},
		{Role: llm.RoleUser, Content: text},
	}}
}

// collect runs a call and returns the deltas seen by the callback.
func collect(t *testing.T, c llm.Client, ctx context.Context, req llm.Request) ([]llm.Chunk, llm.Response, error) {
	t.Helper()
	var got []llm.Chunk
	resp, err := c.Stream(ctx, req, func(ch llm.Chunk) error {
		got = append(got, ch)
		return nil
	})
	return got, resp, err
}

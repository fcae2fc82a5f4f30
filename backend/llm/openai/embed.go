package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// maxEmbedBody caps an embeddings answer (a batch of 64 passages at 4,096
// dimensions, written as JSON numbers, is about 5 MB).
const maxEmbedBody = 64 << 20

// Embed asks the server's /v1/embeddings for the vectors of texts, in
// their order, with model. It is one request: the caller batches. Errors
// are *llm.Error, as for Stream.
func (c *Client) Embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	vs, err := c.embed(ctx, model, texts)
	if err != nil {
		return nil, c.classify(ctx, err)
	}
	return vs, nil
}

func (c *Client) embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	payload, err := json.Marshal(struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}{model, texts})
	if err != nil {
		return nil, fmt.Errorf("encoding the request: %w", err)
	}
	url := strings.TrimSuffix(c.endpoint, "/chat/completions") + "/embeddings"
	resp, err := c.send(ctx, url, payload, "application/json")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxEmbedBody)).Decode(&out); err != nil {
		return nil, &llm.Error{Kind: llm.ErrMalformedStream, Err: err,
			Message: fmt.Sprintf("%s sent embeddings Agentdeck could not read. Check that %s is an embedding model.", c.cfg.Label, model)}
	}
	vs := make([][]float32, len(texts))
	for i, d := range out.Data {
		at := d.Index
		if at < 0 || at >= len(vs) {
			at = i
		}
		vs[at] = d.Embedding
	}
	for i, v := range vs {
		if len(v) == 0 {
			return nil, &llm.Error{Kind: llm.ErrMalformedStream,
				Message: fmt.Sprintf("%s gave no embedding for input %d of %d. Check that %s is an embedding model.", c.cfg.Label, i+1, len(vs), model)}
		}
	}
	return vs, nil
}

package recording

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// replay delivers rec's chunks to fn and returns its response, never
// calling inner.
func (c *captureClient) replay(ctx context.Context, rec *Capture, fn func(llm.Chunk) error) (llm.Response, error) {
	started := c.opts.Now()
	begin := time.Now() // pacing runs on the real monotonic clock
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for i := range rec.Chunks {
		rc := &rec.Chunks[i]
		if err := ctx.Err(); err != nil {
			return c.replayFailed(rec, i, started, captureCtxError(err))
		}
		if c.opts.Pace {
			if d := rc.At - time.Since(begin); d > 0 {
				if timer == nil {
					timer = time.NewTimer(d)
				} else {
					timer.Reset(d)
				}
				select {
				case <-ctx.Done():
					return c.replayFailed(rec, i, started, captureCtxError(ctx.Err()))
				case <-timer.C:
				}
			}
		}
		if err := fn(rc.Chunk); err != nil {
			return c.replayFailed(rec, i+1, started, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return c.replayFailed(rec, len(rec.Chunks), started, captureCtxError(err))
	}
	resp := rec.Response
	c.stampReplay(&resp.Diagnostics, started)
	return resp, nil
}

// replayFailed returns the message assembled from the first delivered
// chunks, as a live call that failed part-way would.
func (c *captureClient) replayFailed(rec *Capture, delivered int, started time.Time, err error) (llm.Response, error) {
	resp := captureAssemble(rec.Chunks[:delivered])
	resp.Diagnostics = rec.Response.Diagnostics
	resp.Diagnostics.Usage = resp.Usage
	c.stampReplay(&resp.Diagnostics, started)
	resp.Diagnostics.OK = false
	resp.Diagnostics.ErrorKind = llm.KindOf(err)
	resp.Diagnostics.Error = err.Error()
	return resp, err
}

func (c *captureClient) stampReplay(d *llm.CallDiagnostics, started time.Time) {
	end := c.opts.Now()
	d.Capture = llm.CaptureReplayed
	d.StartedAt = started.UTC()
	d.CompletedAt = end.UTC()
	d.Duration = end.Sub(started)
}

// captureAssemble merges replayed deltas into a partial Response.
func captureAssemble(chunks []RecordedChunk) llm.Response {
	var content, reasoning strings.Builder
	var details llm.ReasoningDetails
	var resp llm.Response
	var calls []llm.ToolCall
	var order []int        // stream index of each call
	index := map[int]int{} // stream index -> position in calls
	for _, rc := range chunks {
		ch := rc.Chunk
		content.WriteString(ch.Content)
		reasoning.WriteString(ch.Reasoning)
		if len(ch.ReasoningDetails) > 0 {
			details.Add(ch.ReasoningDetails)
		}
		for _, d := range ch.ToolCalls {
			pos, ok := index[d.Index]
			if !ok {
				pos = len(calls)
				index[d.Index] = pos
				calls = append(calls, llm.ToolCall{})
				order = append(order, d.Index)
			}
			if d.ID != "" {
				calls[pos].ID = d.ID
			}
			calls[pos].Name += d.Name
			calls[pos].Arguments += d.Arguments
		}
		if ch.FinishReason != "" {
			resp.FinishReason = ch.FinishReason
		}
		if ch.Usage != nil {
			resp.Usage = *ch.Usage
		}
	}
	// Calls are listed by stream index, whatever order they first appeared in.
	sort.Stable(captureCallOrder{calls, order})
	resp.Message = llm.Message{Role: llm.RoleAssistant, Content: content.String(), Reasoning: reasoning.String(), ReasoningDetails: details.Merged(), ToolCalls: calls}
	return resp
}

type captureCallOrder struct {
	calls []llm.ToolCall
	index []int
}

func (o captureCallOrder) Len() int           { return len(o.calls) }
func (o captureCallOrder) Less(i, j int) bool { return o.index[i] < o.index[j] }
func (o captureCallOrder) Swap(i, j int) {
	o.calls[i], o.calls[j] = o.calls[j], o.calls[i]
	o.index[i], o.index[j] = o.index[j], o.index[i]
}

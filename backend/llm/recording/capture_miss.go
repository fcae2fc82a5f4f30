package recording

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// captureMaxDiffs bounds how many differences a miss message lists.
const captureMaxDiffs = 6

// missError explains a replay miss: which request missed and, when the
// store can list recordings, how it differs from the nearest recording of
// the same model, so a person can tell a changed prompt from a changed
// option.
func (c *captureClient) missError(ctx context.Context, req llm.Request, key string, canon []byte) error {
	var b strings.Builder
	fmt.Fprintf(&b, "replay: no recording for this request (model %q, %d messages, last user message %s, key %s)",
		req.Model, len(req.Messages), captureLastUser(req), key[:12])
	if lister, ok := c.opts.Store.(Lister); ok {
		b.WriteString("; ")
		b.WriteString(captureNearest(ctx, lister, req.Model, canon))
	}
	b.WriteString(". Record it with capture mode record or auto.")
	return &llm.Error{Kind: llm.ErrReplayMiss, Message: b.String()}
}

// captureLastUser is the first 80 characters of the last user message,
// quoted, or "(none)".
func captureLastUser(req llm.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role != llm.RoleUser {
			continue
		}
		s := req.Messages[i].Content
		if utf8.RuneCountInString(s) > 80 {
			s = string([]rune(s)[:80]) + "…"
		}
		return fmt.Sprintf("%q", s)
	}
	return "(none)"
}

// captureNearest describes how canon differs from the recording of model
// with the fewest differences (the newest among equals).
func captureNearest(ctx context.Context, lister Lister, model string, canon []byte) string {
	recs, err := lister.CaptureRequests(ctx, model, captureMissCandidates)
	if err != nil {
		return fmt.Sprintf("could not list recordings to compare with: %v", err)
	}
	var cur CanonicalForm
	if err := json.Unmarshal(canon, &cur); err != nil {
		return fmt.Sprintf("could not decode the request's canonical form: %v", err)
	}
	var best *Capture
	var bestDiffs []string
	for i := range recs {
		r := &recs[i]
		var f CanonicalForm
		if r.Model != model || json.Unmarshal(r.Request, &f) != nil {
			continue
		}
		if d := captureDiff(cur, f); best == nil || len(d) < len(bestDiffs) {
			best, bestDiffs = r, d
		}
	}
	if best == nil {
		return fmt.Sprintf("the store has no recording of model %q to compare with", model)
	}
	head := fmt.Sprintf("the nearest recording of this model (key %s, recorded %s) differs (this request vs recorded): ",
		captureShortKey(best.Key), best.RecordedAt.Format(time.RFC3339))
	if len(bestDiffs) == 0 {
		return head + "in nothing the key covers; it was recorded under another key"
	}
	shown := bestDiffs[:min(len(bestDiffs), captureMaxDiffs)]
	s := head + strings.Join(shown, "; ")
	if more := len(bestDiffs) - len(shown); more > 0 {
		s += fmt.Sprintf("; and %d more", more)
	}
	return s
}

func captureShortKey(k string) string {
	return k[:min(len(k), 12)]
}

// captureDiff lists how a differs from b, field by field, for people:
// messages and tools are numbered from 1. Its length is the distance used to
// pick the nearest recording.
func captureDiff(a, b CanonicalForm) []string {
	var d []string
	add := func(format string, args ...any) { d = append(d, fmt.Sprintf(format, args...)) }
	if a.V != b.V {
		add("canonical form version %d vs %d", a.V, b.V)
	}
	if a.Model != b.Model {
		add("model %q vs %q", a.Model, b.Model)
	}
	if len(a.Messages) != len(b.Messages) {
		add("%d messages vs %d", len(a.Messages), len(b.Messages))
	}
	for i := range min(len(a.Messages), len(b.Messages)) {
		d = append(d, captureMessageDiff(i+1, a.Messages[i], b.Messages[i])...)
	}
	d = append(d, captureToolsDiff(a.Tools, b.Tools)...)
	if x, y := captureOptFloat(a.Temperature), captureOptFloat(b.Temperature); x != y {
		add("temperature %s vs %s", x, y)
	}
	if x, y := captureOptFloat(a.TopP), captureOptFloat(b.TopP); x != y {
		add("top_p %s vs %s", x, y)
	}
	if a.MaxTokens != b.MaxTokens {
		add("max_tokens %d vs %d", a.MaxTokens, b.MaxTokens)
	}
	if x, y := captureOptInt(a.Seed), captureOptInt(b.Seed); x != y {
		add("seed %s vs %s", x, y)
	}
	if a.ReasoningEffort != b.ReasoningEffort {
		add("reasoning_effort %q vs %q", a.ReasoningEffort, b.ReasoningEffort)
	}
	if x, y := a.ResponseFormat, b.ResponseFormat; x == nil || y == nil {
		if (x == nil) != (y == nil) {
			add("response format %s vs %s", captureFormatType(x), captureFormatType(y))
		}
	} else if x.Type != y.Type {
		add("response format %s vs %s", x.Type, y.Type)
	} else if x.Name != y.Name || x.Strict != y.Strict || !captureJSONEqual(x.Schema, y.Schema) {
		add("response format %s differs", x.Type)
	}
	return d
}

func captureMessageDiff(n int, a, b CanonicalMessage) []string {
	var d []string
	if a.Role != b.Role {
		return append(d, fmt.Sprintf("message %d role %s vs %s", n, a.Role, b.Role))
	}
	if a.Content != b.Content {
		d = append(d, fmt.Sprintf("message %d (%s) text differs", n, a.Role))
	}
	if !slices.Equal(a.ToolCalls, b.ToolCalls) {
		d = append(d, fmt.Sprintf("message %d (%s) tool calls differ", n, a.Role))
	}
	if a.ToolCallID != b.ToolCallID {
		d = append(d, fmt.Sprintf("message %d (%s) tool_call_id %q vs %q", n, a.Role, a.ToolCallID, b.ToolCallID))
	}
	if a.Name != b.Name {
		d = append(d, fmt.Sprintf("message %d (%s) name %q vs %q", n, a.Role, a.Name, b.Name))
	}
	if !slices.Equal(a.Images, b.Images) {
		d = append(d, fmt.Sprintf("message %d (%s) images differ (%d vs %d)", n, a.Role, len(a.Images), len(b.Images)))
	}
	return d
}

func captureToolsDiff(a, b []CanonicalTool) []string {
	if len(a) != len(b) {
		return []string{fmt.Sprintf("tools differ (%d vs %d)", len(a), len(b))}
	}
	var d []string
	for i := range a {
		x, y := a[i], b[i]
		if x.Name != y.Name {
			d = append(d, fmt.Sprintf("tool %d name %q vs %q", i+1, x.Name, y.Name))
			continue
		}
		if x.Description != y.Description {
			d = append(d, fmt.Sprintf("tool %d (%s) description differs", i+1, x.Name))
		}
		if !captureJSONEqual(x.Parameters, y.Parameters) {
			d = append(d, fmt.Sprintf("tool %d (%s) parameters differ", i+1, x.Name))
		}
	}
	return d
}

// captureJSONEqual compares two canonical JSON values, tolerating the
// whitespace and escaping a store may have added when it saved them.
func captureJSONEqual(a, b json.RawMessage) bool {
	return bytes.Equal(canonicalRaw(a), canonicalRaw(b))
}

func captureOptFloat(p *string) string {
	if p == nil {
		return "unset"
	}
	return *p
}

func captureFormatType(f *CanonicalResponseFormat) string {
	if f == nil {
		return "unset"
	}
	return f.Type
}

func captureOptInt(p *int64) string {
	if p == nil {
		return "unset"
	}
	return strconv.FormatInt(*p, 10)
}

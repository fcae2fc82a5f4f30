package recording_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/llm/recording"
)

// turnRecs is one turn's recordings in memory, and the links a replay made.
type turnRecs struct {
	calls  []*recording.Capture
	linked []string
}

func (t *turnRecs) TurnCall(_ context.Context, i int) (*recording.Capture, error) {
	if i >= len(t.calls) {
		return nil, nil
	}
	return t.calls[i], nil
}

func (t *turnRecs) LinkCapture(_ context.Context, c *recording.Capture) error {
	t.linked = append(t.linked, c.ID)
	return nil
}

func recorded(id string, req llm.Request, answer string) *recording.Capture {
	return &recording.Capture{ID: id, Key: recording.Key(req), Request: recording.CanonicalRequest(req), Model: req.Model,
		Chunks:   []recording.RecordedChunk{{Chunk: llm.Chunk{Content: answer}}, {Chunk: llm.Chunk{FinishReason: "stop"}}},
		Response: llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: answer}, FinishReason: "stop"}}
}

func ask(text string) llm.Request {
	return llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Content: text}}}
}

func TestReplayTurn(t *testing.T) {
	first, second := ask("pick a number"), ask("now double it")
	tests := []struct {
		name     string
		strict   bool
		requests []llm.Request
		answers  []string // "" where the call fails
		kinds    []string // divergence kinds, in order
		errKind  llm.ErrorKind
	}{
		{name: "the same requests replay the turn's own answers", requests: []llm.Request{first, second}, answers: []string{"7", "14"}},
		{name: "a changed request is reported and served anyway", requests: []llm.Request{first, ask("now triple it")}, answers: []string{"7", "14"}, kinds: []string{recording.DivergedRequest}},
		{name: "strict: a changed request fails", strict: true, requests: []llm.Request{first, ask("now triple it")}, answers: []string{"7", ""}, kinds: []string{recording.DivergedRequest}, errKind: llm.ErrReplayDiverged},
		{name: "a call the original never made fails", requests: []llm.Request{first, second, ask("and again")}, answers: []string{"7", "14", ""}, kinds: []string{recording.DivergedExtraCall}, errKind: llm.ErrReplayMiss},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := &turnRecs{calls: []*recording.Capture{recorded("1", first, "7"), recorded("2", second, "14")}}
			var divs []recording.Divergence
			c := recording.ReplayTurn(recording.ReplayOptions{Source: recs, Link: recs, Strict: tt.strict, OnDivergence: func(d recording.Divergence) { divs = append(divs, d) }})
			var lastErr error
			for i, req := range tt.requests {
				var streamed strings.Builder
				resp, err := c.Stream(context.Background(), req, func(ch llm.Chunk) error { streamed.WriteString(ch.Content); return nil })
				if tt.answers[i] == "" {
					if err == nil {
						t.Fatalf("call %d: want an error", i+1)
					}
					lastErr = err
					continue
				}
				if err != nil || resp.Message.Content != tt.answers[i] || streamed.String() != tt.answers[i] {
					t.Fatalf("call %d: %q (streamed %q) %v, want %q", i+1, resp.Message.Content, streamed.String(), err, tt.answers[i])
				}
				if resp.Diagnostics.Capture != llm.CaptureReplayed {
					t.Fatalf("call %d is not marked replayed: %+v", i+1, resp.Diagnostics)
				}
			}
			if llm.KindOf(lastErr) != tt.errKind {
				t.Fatalf("error %v, want kind %q", lastErr, tt.errKind)
			}
			if len(divs) != len(tt.kinds) {
				t.Fatalf("divergences %+v, want kinds %v", divs, tt.kinds)
			}
			for i, d := range divs {
				if d.Kind != tt.kinds[i] || d.Message == "" {
					t.Fatalf("divergence %d: %+v, want kind %s", i, d, tt.kinds[i])
				}
				if d.Kind == recording.DivergedRequest && (d.Call != 2 || !strings.Contains(strings.Join(d.Diffs, ";"), "message 1 (user) text differs")) {
					t.Fatalf("the divergence should name call 2 and say how it differs: %+v", d)
				}
			}
			served := 0
			for _, a := range tt.answers {
				if a != "" {
					served++
				}
			}
			if len(recs.linked) != served {
				t.Fatalf("linked %v: every served recording, and only those, is linked to the replaying turn", recs.linked)
			}
		})
	}
}

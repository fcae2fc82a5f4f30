package llm

import (
	"strings"
	"time"
)

// callState assembles a streamed answer and its diagnostics.
type callState struct {
	req       Request
	content   strings.Builder
	reasoning strings.Builder
	calls     []ToolCall
	callIdx   []int // calls[i] is the call with stream index callIdx[i]
	finishRsn string
	usage     *Usage
	diag      CallDiagnostics
	start     time.Time
	// chunks counts deltas handed to the callback; delivered is chunks > 0.
	chunks    int
	delivered bool
	finished  bool
}

func newCallState(req Request) *callState {
	now := time.Now()
	return &callState{
		req:   req,
		start: now,
		diag:  CallDiagnostics{Model: req.Model, StartedAt: now.UTC(), RequestMessages: len(req.Messages)},
	}
}

// add merges one delta. Tool-call fragments are merged by their index: the
// id and name arrive once, the arguments in pieces.
func (s *callState) add(c Chunk) {
	if !s.delivered && (c.Content != "" || c.Reasoning != "" || len(c.ToolCalls) > 0) {
		s.diag.TimeToFirstToken = time.Since(s.start)
	}
	s.chunks++
	s.delivered = true
	s.content.WriteString(c.Content)
	s.reasoning.WriteString(c.Reasoning)
	for _, d := range c.ToolCalls {
		i := s.callAt(d.Index)
		if d.ID != "" {
			s.calls[i].ID = d.ID
		}
		if d.Name != "" {
			s.calls[i].Name += d.Name
		}
		s.calls[i].Arguments += d.Arguments
	}
	if c.FinishReason != "" {
		s.finishRsn = c.FinishReason
		s.finished = true
	}
	if c.Usage != nil {
		u := *c.Usage
		s.usage = &u
	}
}

func (s *callState) callAt(index int) int {
	for i, idx := range s.callIdx {
		if idx == index {
			return i
		}
	}
	// Keep calls ordered by stream index, whatever order they first appear in.
	pos := len(s.callIdx)
	for pos > 0 && s.callIdx[pos-1] > index {
		pos--
	}
	s.callIdx = append(s.callIdx, 0)
	copy(s.callIdx[pos+1:], s.callIdx[pos:])
	s.callIdx[pos] = index
	s.calls = append(s.calls, ToolCall{})
	copy(s.calls[pos+1:], s.calls[pos:])
	s.calls[pos] = ToolCall{}
	return pos
}

// finish builds the Response, whether the call succeeded or not.
func (s *callState) finish(err error) Response {
	now := time.Now()
	msg := Message{Role: RoleAssistant, Content: s.content.String(), Reasoning: s.reasoning.String()}
	if len(s.calls) > 0 {
		msg.ToolCalls = append([]ToolCall(nil), s.calls...)
	}
	usage := s.estimate(msg)
	if err != nil && !s.delivered {
		// Nothing came back: the server did not process the prompt (or
		// says nothing about it), so no tokens are counted.
		usage = Usage{Estimated: true}
	}
	if s.usage != nil {
		usage = *s.usage
		if usage.TotalTokens == 0 {
			usage.TotalTokens = usage.InputTokens + usage.OutputTokens
		}
	}
	s.diag.CompletedAt = now.UTC()
	s.diag.Duration = now.Sub(s.start)
	s.diag.Usage = usage
	s.diag.OK = err == nil
	if err != nil {
		s.diag.Error = errorText(err)
		s.diag.ErrorKind = KindOf(err)
	}
	return Response{Message: msg, FinishReason: s.finishRsn, Usage: usage, Diagnostics: s.diag}
}

func errorText(err error) string {
	if e, ok := err.(*Error); ok {
		return e.Message
	}
	return err.Error()
}

// estimate guesses token counts at about four characters a token, plus a
// few tokens of framing per message, for servers that report no usage.
func (s *callState) estimate(out Message) Usage {
	in := 0
	for _, m := range s.req.Messages {
		in += 4 + EstimateTokens(m.Content)
		for _, tc := range m.ToolCalls {
			in += EstimateTokens(tc.Name) + EstimateTokens(tc.Arguments)
		}
	}
	for _, t := range s.req.Tools {
		in += EstimateTokens(t.Name) + EstimateTokens(t.Description) + EstimateTokens(string(t.Parameters))
	}
	o := EstimateTokens(out.Content) + EstimateTokens(out.Reasoning)
	for _, tc := range out.ToolCalls {
		o += EstimateTokens(tc.Name) + EstimateTokens(tc.Arguments)
	}
	return Usage{InputTokens: in, OutputTokens: o, TotalTokens: in + o, Estimated: true}
}

// EstimateTokens guesses the token count of s (about four bytes a token).
func EstimateTokens(s string) int {
	return (len(s) + 3) / 4
}

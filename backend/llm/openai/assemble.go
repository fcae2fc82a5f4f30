package openai

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
)

// Tool calls arrive in different shapes from different servers. OpenAI
// sends a call's index, id and name in its first fragment and the arguments
// in pieces after, with the fragments of parallel calls interleaved by
// index. Others (older llama.cpp, some LM Studio and vLLM versions, Gemini's
// OpenAI endpoint, Ollama, some proxies) send each call whole in one delta,
// with no index (fromOpenAI then uses the position in the delta), the same
// index for every call, or no id at all.
//
// add normalizes each delta to the OpenAI shape before anything else sees
// it: the callback, the capture layer that records what the callback sees,
// and the assembled Response all get the same indexes and ids.
//
//   - A delta continues the newest call at its index, unless it starts a
//     new one: there is no call at its index yet; or it carries an id and
//     that call has a different one (but see the last rule); or it carries
//     a name and that call already has a name and arguments that are
//     complete JSON.
//   - A new call keeps its index when no call has it yet; otherwise it gets
//     the next free one, written into the delta. Later fragments with
//     neither id nor name continue the newest call at their original index,
//     and are rewritten to its index too.
//   - A new call with no id, or with an id an earlier call already has, gets
//     a generated one ("call_" and 24 hex digits), written into its first
//     delta. So every call in a Response has an id of its own, and tool
//     results and the UI's tool cards, which pair with calls by id, never
//     collide.
//   - An id that arrives after a call got a generated one, while the call
//     is not complete (a server that sends the name first), continues that
//     call and is dropped from the delta: the generated id has already been
//     seen. So is an id a server repeats for a call it gave a duplicate
//     id. A name repeated in a later fragment of the same call is dropped
//     too, rather than doubled.
//
// The OpenAI shape passes through unchanged: no id is generated, no index
// rewritten. Calls are listed in the Response by index, which is stream
// order for rewritten ones (they get indexes after every other).

// callState assembles a streamed answer and its diagnostics.
type callState struct {
	req       llm.Request
	filter    *contentFilter
	content   strings.Builder
	reasoning strings.Builder
	details   llm.ReasoningDetails
	// detailBlock is the reasoning_details block whose text was read last
	// (detailsText), when reasoning came only in those blocks.
	detailBlock string
	calls       []streamCall // ordered by index
	newest      []indexCall  // the newest call at each index a server sent
	finishRsn   string
	usage       *llm.Usage
	diag        llm.CallDiagnostics
	start       time.Time
	// chunks counts deltas handed to the callback; delivered is chunks > 0.
	chunks    int
	delivered bool
	// received is set once the server sent anything of the answer, also
	// text the filter still holds: the call must not be retried then.
	received bool
	finished bool
	// textCalls counts the tool calls read from the answer's text.
	textCalls int
}

// streamCall is a tool call being assembled.
type streamCall struct {
	llm.ToolCall
	index int    // the call's index in the normalized stream
	sent  string // the id the server sent for it, if any; ID may differ
}

// complete reports whether the call has a name and arguments that are
// whole JSON, so a delta with a name must be the start of another call.
func (c *streamCall) complete() bool {
	return c.Name != "" && json.Valid([]byte(c.Arguments))
}

// indexCall maps an index as the server sent it to the normalized index of
// the newest call sent with it.
type indexCall struct{ sent, index int }

func newCallState(req llm.Request, textCalls bool) *callState {
	now := time.Now()
	return &callState{
		req:    req,
		filter: newContentFilter(req.Tools, textCalls),
		start:  now,
		diag:   llm.CallDiagnostics{Model: req.Model, StartedAt: now.UTC(), RequestMessages: len(req.Messages)},
	}
}

// callbackError carries an error the callback returned, so it goes back
// to Stream's caller as is, never classified as the server's.
type callbackError struct{ err error }

func (e callbackError) Error() string { return e.err.Error() }

// deliver runs a decoded chunk's content through the filter (think
// blocks and tool calls written as text come out of the answer) and hands
// what it releases to fn. The chunk that ends the answer first releases
// everything the filter holds.
func (s *callState) deliver(c llm.Chunk, fn func(llm.Chunk) error) error {
	if c.Content != "" || c.Reasoning != "" || len(c.ToolCalls) > 0 {
		s.received = true
	}
	if c.Reasoning == "" && len(c.ReasoningDetails) > 0 {
		// A gateway that sends reasoning only as reasoning_details blocks.
		c.Reasoning = detailsText(c.ReasoningDetails, &s.detailBlock)
		if c.Reasoning != "" {
			s.received = true
		}
	}
	if raw := c.Content; raw != "" {
		c.Content = ""
		s.apply(&c, s.filter.push(raw))
	}
	if c.FinishReason != "" {
		s.apply(&c, s.filter.flush())
		if s.textCalls > 0 && c.FinishReason == "stop" {
			// The model ended its turn to have its calls run, as a
			// server with a tool-call parser would have said.
			c.FinishReason = "tool_calls"
		}
	}
	if c.Content == "" && c.Reasoning == "" && len(c.ReasoningDetails) == 0 && len(c.ToolCalls) == 0 && c.FinishReason == "" && c.Usage == nil {
		if !s.received || s.delivered {
			return nil
		}
		// The answer has begun but the filter holds all of it so far (a
		// suspected tool call written as text): an empty chunk tells the
		// caller the model is answering, so it does not say it waits.
	}
	if err := fn(s.add(c)); err != nil {
		return callbackError{err}
	}
	return nil
}

// finishUnsaid ends an answer whose server said it was whole without a
// finish reason (a whole JSON body, or [DONE]): "tool_calls" when it
// called tools, else "stop", as the server would have said.
func (s *callState) finishUnsaid(fn func(llm.Chunk) error) error {
	if s.finished {
		return nil
	}
	reason := "stop"
	if len(s.calls) > 0 {
		reason = "tool_calls"
	}
	return s.deliver(llm.Chunk{FinishReason: reason}, fn)
}

// flush releases what the filter still holds, at the end of an answer
// that had no finish_reason, or that failed or was stopped, so the partial
// answer keeps every byte that arrived.
func (s *callState) flush(fn func(llm.Chunk) error) error {
	var c llm.Chunk
	if !s.apply(&c, s.filter.flush()) && c.Content == "" && c.Reasoning == "" {
		return nil
	}
	if err := fn(s.add(c)); err != nil {
		return callbackError{err}
	}
	return nil
}

// apply adds what the filter released to c (after the server's own
// reasoning and calls) and reports whether it released tool calls.
func (s *callState) apply(c *llm.Chunk, f filtered) bool {
	c.Content += f.Content
	if f.Reasoning != "" {
		c.Reasoning += f.Reasoning
	}
	if len(f.Calls) == 0 {
		return false
	}
	next := 0
	if n := len(s.calls); n > 0 {
		next = s.calls[n-1].index + 1
	}
	for _, d := range c.ToolCalls {
		next = max(next, d.Index+1)
	}
	for i, tc := range f.Calls {
		c.ToolCalls = append(c.ToolCalls, llm.ToolCallDelta{Index: next + i, Name: tc.Name, Arguments: tc.Arguments})
	}
	if s.textCalls == 0 {
		s.note("The model wrote its tool calls as text; they were read as calls of the offered tools (turn this off in the provider's settings).")
	}
	s.textCalls += len(f.Calls)
	return true
}

// note adds a line to the call's diagnostics, once.
func (s *callState) note(text string) {
	for _, n := range s.diag.Notes {
		if n == text {
			return
		}
	}
	s.diag.Notes = append(s.diag.Notes, text)
}

// add normalizes one delta, merges it and returns it; the caller passes the
// returned chunk on, never the one it gave. Tool-call deltas are rewritten
// in place (see the rules above).
func (s *callState) add(c llm.Chunk) llm.Chunk {
	if !s.delivered && (c.Content != "" || c.Reasoning != "" || len(c.ToolCalls) > 0 || len(c.ReasoningDetails) > 0) {
		s.diag.TimeToFirstToken = time.Since(s.start)
	}
	s.chunks++
	s.delivered = true
	s.content.WriteString(c.Content)
	s.reasoning.WriteString(c.Reasoning)
	if len(c.ReasoningDetails) > 0 {
		s.details.Add(c.ReasoningDetails)
	}
	for i := range c.ToolCalls {
		s.addToolCall(&c.ToolCalls[i])
	}
	if c.FinishReason != "" {
		s.finishRsn = c.FinishReason
		s.finished = true
	}
	if c.Usage != nil {
		u := *c.Usage
		s.usage = &u
	}
	return c
}

// addToolCall normalizes d and merges it into its call.
func (s *callState) addToolCall(d *llm.ToolCallDelta) {
	sentIndex := d.Index
	pos := s.continued(d)
	if pos < 0 {
		pos = s.startCall(d)
	} else {
		c := &s.calls[pos]
		if d.ID != "" && d.ID != c.ID {
			if c.sent == "" {
				c.sent = d.ID
			}
			d.ID = ""
		}
		if d.Name != "" && d.Name == c.Name {
			d.Name = ""
		}
	}
	c := &s.calls[pos]
	d.Index = c.index
	s.setNewest(sentIndex, c.index)
	c.Name += d.Name
	c.Arguments += d.Arguments
}

// continued returns the position of the call d continues, or -1 when d
// starts a new call.
func (s *callState) continued(d *llm.ToolCallDelta) int {
	pos := -1
	for _, n := range s.newest {
		if n.sent == d.Index {
			pos = s.callAt(n.index)
			break
		}
	}
	if pos < 0 {
		return -1
	}
	c := &s.calls[pos]
	switch {
	case d.Name != "" && c.complete():
		return -1
	case d.ID == "" || d.ID == c.sent:
		return pos
	case c.sent == "" && !c.complete():
		// The server sent the id after the call's first fragment.
		return pos
	}
	return -1
}

// startCall adds the call d starts, giving it an index and an id of its own
// and writing both into d, and returns its position.
func (s *callState) startCall(d *llm.ToolCallDelta) int {
	index := d.Index
	if s.callAt(index) >= 0 {
		index = s.calls[len(s.calls)-1].index + 1
	}
	sent, id := d.ID, d.ID
	if id == "" || s.hasID(id) {
		id = newCallID()
	}
	d.Index, d.ID = index, id
	// Keep calls ordered by index, whatever order they first appear in.
	pos := len(s.calls)
	for pos > 0 && s.calls[pos-1].index > index {
		pos--
	}
	s.calls = append(s.calls, streamCall{})
	copy(s.calls[pos+1:], s.calls[pos:])
	s.calls[pos] = streamCall{ToolCall: llm.ToolCall{ID: id}, index: index, sent: sent}
	return pos
}

// callAt returns the position of the call with index, or -1.
func (s *callState) callAt(index int) int {
	for i := range s.calls {
		if s.calls[i].index == index {
			return i
		}
	}
	return -1
}

func (s *callState) setNewest(sent, index int) {
	for i := range s.newest {
		if s.newest[i].sent == sent {
			s.newest[i].index = index
			return
		}
	}
	s.newest = append(s.newest, indexCall{sent: sent, index: index})
}

func (s *callState) hasID(id string) bool {
	for i := range s.calls {
		if s.calls[i].ID == id {
			return true
		}
	}
	return false
}

// newCallID makes an id for a call the server sent without one, in the
// form OpenAI's take.
func newCallID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand since Go 1.24)
	return "call_" + hex.EncodeToString(b[:])
}

// finish builds the Response, whether the call succeeded or not.
func (s *callState) finish(err error) llm.Response {
	now := time.Now()
	msg := llm.Message{Role: llm.RoleAssistant, Content: s.content.String(), Reasoning: s.reasoning.String(), ReasoningDetails: s.details.Merged()}
	if len(s.calls) > 0 {
		msg.ToolCalls = make([]llm.ToolCall, len(s.calls))
		for i := range s.calls {
			msg.ToolCalls[i] = s.calls[i].ToolCall
		}
	}
	usage := s.estimate(msg)
	if err != nil && !s.delivered {
		// Nothing came back: the server did not process the prompt (or
		// says nothing about it), so no tokens are counted.
		usage = llm.Usage{Estimated: true}
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
		s.diag.ErrorKind = llm.KindOf(err)
	}
	return llm.Response{Message: msg, FinishReason: s.finishRsn, Usage: usage, Diagnostics: s.diag}
}

func errorText(err error) string {
	if e, ok := err.(*llm.Error); ok {
		return e.Message
	}
	return err.Error()
}

// estimate guesses token counts at about four characters a token, plus a
// few tokens of framing per message, for servers that report no usage.
func (s *callState) estimate(out llm.Message) llm.Usage {
	in := 0
	for _, m := range s.req.Messages {
		in += 4 + llm.EstimateTokens(m.Content)
		for _, tc := range m.ToolCalls {
			in += llm.EstimateTokens(tc.Name) + llm.EstimateTokens(tc.Arguments)
		}
	}
	for _, t := range s.req.Tools {
		in += llm.EstimateTokens(t.Name) + llm.EstimateTokens(t.Description) + llm.EstimateTokens(string(t.Parameters))
	}
	o := llm.EstimateTokens(out.Content) + llm.EstimateTokens(out.Reasoning)
	for _, tc := range out.ToolCalls {
		o += llm.EstimateTokens(tc.Name) + llm.EstimateTokens(tc.Arguments)
	}
	return llm.Usage{InputTokens: in, OutputTokens: o, TotalTokens: in + o, Estimated: true}
}
